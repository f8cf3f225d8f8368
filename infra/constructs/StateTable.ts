// The single state table (docs/architecture.md, "State model"), built from STATE_TABLE so the deployed keys, due-index and
// TTL attribute cannot drift from what the adapters, local mode and dynalite tests use.
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { STATE_TABLE } from '../../shared/adapters/dynamodb/table.ts';

export interface StateTableProps {
  /**
   * What happens to the table (rollout specs, release state, history) when it leaves the stack.
   * @default RemovalPolicy.RETAIN — `cdk destroy` must never take the release history with it.
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Refuse DeleteTable until turned off.
   * @default true
   */
  readonly deletionProtection?: boolean;
}

// STATE_TABLE speaks DynamoDB wire names ('S', 'KEYS_ONLY'); these map them to CDK's enums.
const ATTRIBUTE_TYPES = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY } as const;
const attr = (a: { name: string; type: keyof typeof ATTRIBUTE_TYPES }) => ({ name: a.name, type: ATTRIBUTE_TYPES[a.type] });

export class StateTable extends Construct {
  readonly table: TableV2;
  /** ARN of the sparse due-index, for the one grant that queries it. */
  readonly dueIndexArn: string;

  constructor(scope: Construct, id: string, props: StateTableProps = {}) {
    super(scope, id);
    const t = STATE_TABLE;
    this.table = new TableV2(this, 'Table', {
      partitionKey: attr(t.partitionKey),
      sortKey: attr(t.sortKey),
      billing: Billing.onDemand(),
      timeToLiveAttribute: t.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      globalSecondaryIndexes: [{
        indexName: t.dueIndex.name,
        partitionKey: attr(t.dueIndex.partitionKey),
        sortKey: attr(t.dueIndex.sortKey),
        projectionType: ProjectionType[t.dueIndex.projectionType],
      }],
    });
    this.dueIndexArn = `${this.table.tableArn}/index/${t.dueIndex.name}`;
  }
}
