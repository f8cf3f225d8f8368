// The reconcile function in the user's VPC (deploy parameter `vpc`), so http hooks and gates can
// reach private targets and the function private apiservers: its own security group with HTTPS out
// (AWS APIs, apiservers, https targets) plus the ports the parameter names, and interface endpoints
// for every AWS API the reconcile calls, so private subnets need no NAT. The subnets come with their
// Availability Zones: nothing is looked up at synth.
import { Stack } from 'aws-cdk-lib';
import { GatewayVpcEndpoint, GatewayVpcEndpointAwsService, InterfaceVpcEndpoint, InterfaceVpcEndpointAwsService, InterfaceVpcEndpointService, Peer, Port, SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { VpcParameter } from '../parameters.ts';

export class ReconcileNetwork extends Construct {
  readonly vpc: IVpc;
  readonly subnets: SubnetSelection;
  readonly securityGroup: SecurityGroup;

  constructor(scope: Construct, id: string, props: { vpc: VpcParameter }) {
    super(scope, id);
    const p = props.vpc;
    this.vpc = Vpc.fromVpcAttributes(this, 'Vpc', { vpcId: p.vpcId, availabilityZones: [...new Set(p.subnets.map((s) => s.availabilityZone))] });
    this.subnets = { subnets: p.subnets.map((s, i) => Subnet.fromSubnetAttributes(this, `Subnet${i}`, { subnetId: s.subnetId, availabilityZone: s.availabilityZone, ...(s.routeTableId ? { routeTableId: s.routeTableId } : {}) })) };
    this.securityGroup = new SecurityGroup(this, 'Reconcile', {
      vpc: this.vpc,
      description: 'serverless-rollouts reconcile: HTTPS to AWS APIs, apiservers and hook targets; no inbound',
      allowAllOutbound: false,
    });
    this.securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(443), 'HTTPS: AWS APIs, Kubernetes apiservers, https hook and gate targets');
    for (const e of p.egress) this.securityGroup.addEgressRule(Peer.ipv4(e.cidr), Port.tcp(e.port), `hook and gate targets on ${e.cidr}:${e.port}`);
    if (!p.endpoints) return;
    const region = Stack.of(this).region;
    // What the reconcile calls: its state, queue, bus and wake-ups; the clusters (EKS, STS for roles
    // and tokens, Secrets Manager for endpoint tokens); Lambda (the watch-proxy, lambda hooks and
    // gates), CloudWatch alarms, AMP queries and X-Ray.
    // DynamoDB through a gateway endpoint (free, on the subnets' route tables); the rest interface endpoints.
    new GatewayVpcEndpoint(this, 'DynamoDb', { vpc: this.vpc, service: GatewayVpcEndpointAwsService.DYNAMODB, subnets: [this.subnets] });
    const services: Record<string, InterfaceVpcEndpointService | InterfaceVpcEndpointAwsService> = {
      Sqs: InterfaceVpcEndpointAwsService.SQS,
      Events: InterfaceVpcEndpointAwsService.EVENTBRIDGE,
      Scheduler: new InterfaceVpcEndpointService(`com.amazonaws.${region}.scheduler`, 443),
      Eks: InterfaceVpcEndpointAwsService.EKS,
      Sts: InterfaceVpcEndpointAwsService.STS,
      SecretsManager: InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      Lambda: InterfaceVpcEndpointAwsService.LAMBDA,
      Monitoring: InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING,
      PrometheusWorkspaces: InterfaceVpcEndpointAwsService.PROMETHEUS_WORKSPACES,
      XRay: InterfaceVpcEndpointAwsService.XRAY,
    };
    for (const [name, service] of Object.entries(services)) {
      const endpoint = new InterfaceVpcEndpoint(this, name, { vpc: this.vpc, service, subnets: this.subnets, open: false, privateDnsEnabled: true });
      endpoint.connections.allowFrom(this.securityGroup, Port.tcp(443), 'the reconcile function');
    }
  }
}
