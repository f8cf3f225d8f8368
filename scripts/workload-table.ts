// The README's "Supported workloads and strategies" table, from the drivers' own summaries
// (shared/workloads/registry.ts), so the table can only list what a driver declares.
// `node --import tsx scripts/workload-table.ts` prints it; test/unit/workloads/readmeTable.test.ts
// checks that README.md carries exactly this table.
import { fileURLToPath } from 'node:url';
import { WORKLOAD_DRIVERS } from '../shared/workloads/registry.ts';
import { WORKLOAD_KINDS, describeWorkloadType } from '../shared/rollout/workloadKinds.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function workloadTable(): string {
  const rows = WORKLOAD_KINDS.map((kind) => {
    const s = WORKLOAD_DRIVERS[kind].summary;
    return `| ${cell(describeWorkloadType(kind))} | ${cell(s.counts)} | ${cell(s.hold)} | ${cell(s.batch)} | ${cell(s.readiness)} | ${cell(s.restore)} |`;
  });
  return ['| workload | N counts | how it is held | how a batch moves | batch ready when | hand-back restores |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(workloadTable());
