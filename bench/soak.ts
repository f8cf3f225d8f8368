// `npm run soak [-- --seed N] [--rollouts N] [--kills N] [--chaos-minutes M] [--outage-at-minutes M]
// [--outage-minutes M] [--smoke]`: the fault-injected soak
// (bench/testbed/soak/soak.ts), printing a summary. At its default size (bench/soakSizes.ts; the seed
// may differ) it writes the summary, with the seed that replays it, to bench/results/soak.json and
// the README's "Fault tolerance in numbers" section (scripts/robustness-readme.ts); any other size
// writes bench/results/soak-custom.json (not kept in git). Local mode's output goes to
// bench/results/soak-serve.log (not kept either). Exit code 1 when any invariant was violated.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isDeepStrictEqual } from 'node:util';
import { runSoak, type SoakOptions } from './testbed/soak/soak.ts';
import { updateRobustnessReadme } from '../scripts/robustness-readme.ts';
import { DEFAULT_SOAK, SMOKE_SOAK } from './soakSizes.ts';

const minutes = { type: 'string' } as const;
const { values } = parseArgs({ options: { seed: { type: 'string' }, rollouts: { type: 'string' }, kills: { type: 'string' }, 'chaos-minutes': minutes, 'outage-at-minutes': minutes, 'outage-minutes': minutes, smoke: { type: 'boolean' } } });
const ms = (m: string | undefined): number | undefined => (m === undefined ? undefined : Number(m) * 60_000);
const size = {
  ...(values.smoke ? SMOKE_SOAK : DEFAULT_SOAK),
  ...(values.rollouts ? { rollouts: Number(values.rollouts) } : {}),
  ...(values.kills ? { kills: Number(values.kills) } : {}),
  ...(values['chaos-minutes'] ? { chaosMs: ms(values['chaos-minutes']) as number } : {}),
  ...(values['outage-at-minutes'] ? { outageAtMs: ms(values['outage-at-minutes']) as number } : {}),
  ...(values['outage-minutes'] ? { outageMs: ms(values['outage-minutes']) as number } : {}),
};
const atDefaultSize = isDeepStrictEqual({ ...size, seed: 0 }, { ...DEFAULT_SOAK, seed: 0 });
const options: SoakOptions = {
  ...size,
  ...(values.seed ? { seed: Number(values.seed) } : {}),
  serveLog: new URL('./results/soak-serve.log', import.meta.url).pathname,
  log: (line) => console.log(`${new Date().toISOString().slice(11, 19)}  ${line}`),
};
const summary = await runSoak(options);
const result = { date: new Date().toISOString(), ...summary };
const file = new URL(atDefaultSize ? './results/soak.json' : './results/soak-custom.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
if (atDefaultSize) updateRobustnessReadme(result);
const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
console.log([
  '',
  `soak seed ${summary.seed}: ${summary.durationSeconds} s`,
  `  rollouts      ${Object.entries(summary.rollouts).map(([k, n]) => `${n} ${k}`).join(', ')}`,
  `  releases      ${summary.releases} (ends: ${Object.entries(summary.releaseEnds).map(([k, n]) => `${k} ${n}`).join(', ')})`,
  `  commands      ${summary.commandsAccepted} accepted (${summary.apiRequests} API requests)`,
  `  apiserver     ${summary.kube.requests} requests, ${summary.kube.faults} faulted (${pct(summary.kube.faultRate)}): ${Object.entries(summary.kube.faultsByKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
  `  DynamoDB      ${summary.dynamodb.requests} requests, ${summary.dynamodb.faults} faulted (${pct(summary.dynamodb.faultRate)}): ${Object.entries(summary.dynamodb.faultsByKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
  `  kills         ${summary.kills} (kill -9 of local mode, restarted in ${summary.restartSeconds.median} s median, ${summary.restartSeconds.max} s at most)`,
  `  outage        ${summary.outage.component} stopped for ${summary.outage.seconds} s`,
  `  violations    ${summary.violations.length}`,
  ...summary.violations.map((v) => `    - ${v}`),
  `written to ${file.pathname}${atDefaultSize ? ' and README.md' : ''}; local mode's output in ${options.serveLog}`,
].join('\n'));
process.exit(summary.violations.length === 0 ? 0 : 1);
