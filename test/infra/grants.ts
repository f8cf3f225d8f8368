// Reads the IAM grants of the synthesized template back as "action → resources" per role, with
// resources named readably: our resources by logical-id prefix (hash dropped), others verbatim.
import type { Template } from 'aws-cdk-lib/assertions';
import { resources } from '../../infra/synth.ts';

export interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
  Effect: string;
}

const HASH_SUFFIX = /[0-9A-F]{8}$/;

/** One resource entry rendered as text: `<Prefix>` for Fn::GetAtt/Ref of our resources, `*`, or the literal ARN. */
export function renderResource(resource: unknown, logicalIds: ReadonlySet<string>): string {
  if (typeof resource === 'string') return resource;
  const r = resource as Record<string, unknown>;
  if (Array.isArray(r['Fn::GetAtt'])) {
    const [id] = r['Fn::GetAtt'] as string[];
    return logicalIds.has(id as string) ? `<${(id as string).replace(HASH_SUFFIX, '')}>` : `<UNKNOWN ${id}>`;
  }
  if (typeof r.Ref === 'string') return logicalIds.has(r.Ref) ? `<${r.Ref.replace(HASH_SUFFIX, '')}>` : `{${r.Ref}}`;
  if (Array.isArray(r['Fn::Join'])) {
    const [sep, parts] = r['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => renderResource(p, logicalIds)).join(sep);
  }
  return JSON.stringify(resource);
}

export function statementsOf(template: Template): Array<{ policy: string; roles: string[]; statement: Statement }> {
  const out: Array<{ policy: string; roles: string[]; statement: Statement }> = [];
  for (const [policy, res] of Object.entries(resources(template, 'AWS::IAM::Policy'))) {
    const props = res.Properties as { PolicyDocument: { Statement: Statement[] }; Roles: Array<{ Ref: string }> };
    const roles = props.Roles.map((r) => r.Ref);
    for (const statement of props.PolicyDocument.Statement) out.push({ policy, roles, statement });
  }
  return out;
}

export function asList<T>(v: T | T[]): T[] {
  return Array.isArray(v) ? v : [v];
}

/** Every action a role may perform, each with the sorted resources it applies to. */
export function grantsOf(template: Template, roleLogicalId: string): Record<string, string[]> {
  const ids = new Set(Object.keys(template.toJSON().Resources as object));
  const grants: Record<string, Set<string>> = {};
  for (const { roles, statement } of statementsOf(template)) {
    if (!roles.includes(roleLogicalId) || statement.Effect !== 'Allow') continue;
    for (const action of asList(statement.Action)) {
      grants[action] ??= new Set();
      for (const r of asList(statement.Resource)) grants[action].add(renderResource(r, ids));
    }
  }
  return Object.fromEntries(Object.entries(grants).sort(([a], [b]) => a.localeCompare(b)).map(([a, set]) => [a, [...set].sort()]));
}
