// PromQL syntax check for gate queries, with the official grammar the Prometheus UI itself uses
// (@prometheus-io/lezer-promql, from the Prometheus repository). Lezer recovers from errors and
// marks them as error nodes with a position but no message, so the message is composed here from
// where the first error node is and what the query has there. Prometheus itself remains the judge
// of types and functions: a query that parses but Prometheus refuses is an error of the gate's checks.
import { parser } from '@prometheus-io/lezer-promql';

/** Why `query` does not parse as PromQL, or null when it does. */
export function promqlProblem(query: string): string | null {
  if (query.trim() === '') return 'must be a PromQL query, not empty';
  const tree = parser.parse(query);
  let at: number | null = null;
  tree.iterate({
    enter: (node) => {
      if (at !== null) return false;
      if (node.type.isError) at = node.from;
      return undefined;
    },
  });
  if (at === null) return null;
  const pos = at as number;
  const rest = query.slice(pos).trimStart();
  const near = rest === '' ? 'unexpected end of query' : `unexpected ${JSON.stringify(rest.length > 20 ? `${rest.slice(0, 20)}…` : rest)}`;
  return `does not parse as PromQL: ${near} at character ${pos + 1} (PromQL grammar of @prometheus-io/lezer-promql)`;
}
