// `npm run soak [-- --seed N] [--rollouts N] [--chaos-minutes M] [--smoke]`: the fault-injected soak (test/support/soak/soak.ts) at
// its default size (≤ 30 minutes on 2 cores), printing a summary and writing it, with the seed that
// replays it, to bench/results/soak.json. Exit code 1 when any invariant was violated.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runSoak, type SoakOptions } from '../test/support/soak/soak.ts';

export const DEFAULT_SOAK: Omit<SoakOptions, 'log'> = {
  seed: 1313, rollouts: 24, chaosMs: 17 * 60_000, kills: 24, outageAtMs: 5 * 60_000, outageMs: 5 * 60_000, faultRate: 0.1,
};

/** The size of the smoke run in npm test (test/integration/soak.smoke.test.ts). */
export const SMOKE_SOAK: Omit<SoakOptions, 'log'> = {
  seed: 7, rollouts: 3, chaosMs: 70_000, kills: 2, outageAtMs: 20_000, outageMs: 15_000, faultRate: 0.1,
};

const { values } = parseArgs({ options: { seed: { type: 'string' }, rollouts: { type: 'string' }, 'chaos-minutes': { type: 'string' }, smoke: { type: 'boolean' } } });
const options: SoakOptions = {
  ...(values.smoke ? SMOKE_SOAK : DEFAULT_SOAK),
  ...(values.seed ? { seed: Number(values.seed) } : {}),
  ...(values.rollouts ? { rollouts: Number(values.rollouts) } : {}),
  ...(values['chaos-minutes'] ? { chaosMs: Number(values['chaos-minutes']) * 60_000 } : {}),
  log: (line) => console.log(`${new Date().toISOString().slice(11, 19)}  ${line}`),
};
const summary = await runSoak(options);
const file = new URL('./results/soak.json', import.meta.url);
writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), ...summary }, null, 2)}\n`);
const pct = (r: number) => `${(r * 100).toFixed(1)} %`;
console.log([
  '',
  `soak seed ${summary.seed}: ${summary.durationSeconds} s`,
  `  rollouts      ${Object.entries(summary.rollouts).map(([k, n]) => `${n} ${k}`).join(', ')}`,
  `  releases      ${summary.releases} (ends: ${Object.entries(summary.releaseEnds).map(([k, n]) => `${k} ${n}`).join(', ')})`,
  `  commands      ${summary.commandsAccepted} accepted (${summary.apiRequests} API requests)`,
  `  apiserver     ${summary.kube.requests} requests, ${summary.kube.faults} faulted (${pct(summary.kube.faultRate)}): ${Object.entries(summary.kube.faultsByKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
  `  DynamoDB      ${summary.dynamodb.requests} requests, ${summary.dynamodb.faults} faulted (${pct(summary.dynamodb.faultRate)}): ${Object.entries(summary.dynamodb.faultsByKind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
  `  kills         ${summary.kills} (kill -9 of local mode, restarted)`,
  `  outage        ${summary.outage.component} stopped for ${summary.outage.seconds} s`,
  `  violations    ${summary.violations.length}`,
  ...summary.violations.map((v) => `    - ${v}`),
  `written to bench/results/soak.json`,
].join('\n'));
process.exit(summary.violations.length === 0 ? 0 : 1);
