// The README's "Fault tolerance in numbers" section: the last default-size soak, read from
// bench/results/soak.json (written by `npm run soak`), and the bad-input battery's table, from its
// case list (bench/testbed/battery/cases.ts). `npm run soak` at its default size rewrites the section;
// `node --import tsx scripts/robustness-readme.ts` rewrites it from the files as they are;
// test/unit/robustnessReadme.test.ts checks that README.md carries exactly this text.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SoakSummary } from '../bench/testbed/soak/soak.ts';
import { BATTERY, batteryTable } from '../bench/testbed/battery/cases.ts';
import { DEFAULT_SOAK } from '../bench/soakSizes.ts';

export const HEADING = '## Fault tolerance in numbers';
export const README = new URL('../README.md', import.meta.url);
export const SOAK_RESULT = new URL('../bench/results/soak.json', import.meta.url);

export type SoakFile = SoakSummary & { date: string };

const counts = (c: Record<string, number>): string => Object.entries(c).sort(([, a], [, b]) => b - a).map(([k, n]) => `${k} ${n}`).join(', ');
const pct = (r: number): string => `${(r * 100).toFixed(1)} %`;

export function soakTable(s: SoakFile): string {
  const o = s.options;
  const rows: [string, string][] = [
    ['seed', `${s.seed} (\`npm run soak -- --seed ${s.seed}\` replays the same fleet, choices and fault draws)`],
    ['size', `${o.rollouts} rollouts, ${o.chaosMs / 60_000} min of chaos, ${o.kills} kills planned, ${pct(o.faultRate)} faults`],
    ['duration', `${s.durationSeconds} s (${(s.durationSeconds / 60).toFixed(1)} min), ${s.date.slice(0, 10)}`],
    ['rollouts', counts(s.rollouts)],
    ['releases', `${s.releases} (ends: ${counts(s.releaseEnds)})`],
    ['commands accepted', `${s.commandsAccepted} (${s.apiRequests} API requests)`],
    ['apiserver requests', `${s.kube.requests}, ${s.kube.faults} faulted (${pct(s.kube.faultRate)}): ${counts(s.kube.faultsByKind)}`],
    ['DynamoDB requests', `${s.dynamodb.requests}, ${s.dynamodb.faults} faulted (${pct(s.dynamodb.faultRate)}): ${counts(s.dynamodb.faultsByKind)}`],
    ['reconciler kills', `${s.kills} (kill -9 of local mode, started again)`],
    ['outage', `${s.outage.component} stopped for ${s.outage.seconds} s`],
    ['watch streams re-opened by the invariant watchers', String(s.watcherRewatches)],
    ['invariant violations', String(s.violations.length)],
  ];
  return ['| figure | value |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v.replace(/\|/g, '\\|')} |`)].join('\n');
}

/**
 * What the table proves, said by the data itself: only a default-size run with no violation is a
 * pass; anything else is named for what it is.
 */
export function soakVerdict(s: SoakFile): string {
  const o = s.options;
  const defaultSize = o.rollouts === DEFAULT_SOAK.rollouts && o.chaosMs === DEFAULT_SOAK.chaosMs && o.kills === DEFAULT_SOAK.kills
    && o.outageMs === DEFAULT_SOAK.outageMs && o.faultRate === DEFAULT_SOAK.faultRate;
  const size = defaultSize ? 'a default-size run' : `**not** a default-size run (${o.rollouts} rollouts; the default is ${DEFAULT_SOAK.rollouts})`;
  const verdict = s.violations.length === 0
    ? 'it broke no invariant'
    : `**it broke ${s.violations.length} invariant${s.violations.length === 1 ? '' : 's'}** (listed in bench/results/soak.json): not a pass`;
  return `The table is ${size}, and ${verdict}.`;
}

/**
 * What broke, by kind, from the data: each violation without its rollout's name and time, counted,
 * with how many rollouts showed it (a watcher records a breach at every event it sees one in).
 */
export function violationKinds(s: SoakFile, top = 8): string[] {
  const kinds = new Map<string, { events: number; rollouts: Set<string> }>();
  for (const v of s.violations) {
    const rollout = v.split(':')[0] ?? '';
    const kind = v.slice(rollout.length + 1).trim()
      .replace(/ at \d{4}-\d\d-\d\dT\S+Z/g, '')
      .replace(/ in soak-[\w-]+/g, '')
      .replace(/registry\.invalid\/app:v\d+/g, 'an image')
      .replace(/ReplicaSet app-?[0-9a-z]+/g, 'a ReplicaSet')
      .replace(/\b\d+\b/g, 'n');
    const k = kinds.get(kind) ?? { events: 0, rollouts: new Set<string>() };
    k.events += 1;
    k.rollouts.add(rollout);
    kinds.set(kind, k);
  }
  return [...kinds].sort((a, b) => b[1].events - a[1].events).slice(0, top)
    .map(([kind, k]) => `- ${kind}: ${k.events} events in ${k.rollouts.size} rollout${k.rollouts.size === 1 ? '' : 's'}`);
}

/** Per watcher and invariant: how much of the chaos window (outside the outage) it judged, and what it exempted. */
export function coverageLines(s: SoakFile): string[] {
  if (!s.coverage) {
    return ['This run predates the narrowed watcher rules and their coverage counts (issue 23): its figure was judged with', 'windows not judged (after scale-ups, while components were away), and is not their verdict.', ''];
  }
  const seconds = (r: Record<string, number>) => Object.entries(r).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v} s`).join(', ') || 'none';
  const rows: string[] = [];
  for (const [kind, record] of [['Deployments', s.coverage.deployments], ['StatefulSets', s.coverage.statefulSets]] as const) {
    for (const [invariant, c] of Object.entries(record)) {
      rows.push(`| ${kind} | ${invariant} | ${pct(c.judgedShare)} | ${seconds(c.narrowedSeconds)} | ${seconds(c.exemptSeconds)} | ${c.samples} | ${counts(c.exemptSamples) || 'none'} |`);
    }
  }
  const low = [...Object.values(s.coverage.deployments), ...Object.values(s.coverage.statefulSets)].filter((c) => c.judgedShare < 0.95).length;
  return [
    'Coverage (seconds summed over the workloads, chaos window without the outage):',
    '',
    '| workloads | invariant | judged | of which by a narrow rule | exempt | checks | checks exempted |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    low === 0 ? 'Every invariant was judged over at least 95 % of the chaos window outside the outage.' : `**${low} invariant${low === 1 ? ' was' : 's were'} judged over less than 95 % of the chaos window outside the outage.**`,
    '',
  ];
}

export function robustnessSection(s: SoakFile): string {
  return [
    HEADING,
    '',
    '### The soak',
    '',
    '`npm run soak` (bench/testbed/soak/soak.ts) releases a fleet of Deployments (MinReadySeconds and',
    'Partition) and StatefulSets on the real control plane through local mode\'s API, as a seeded random',
    'user would: approvals, pauses, resumes, aborts, retries, undos, new images mid-release and HPA-like',
    'scales. Meanwhile every apiserver and DynamoDB request of the reconciler goes through a fault',
    'proxy (409, 429 with Retry-After, 500, 503, timeouts, hangs, cut watches, 410 Gone, delays;',
    'throttling, 500s, timeouts and lost responses for DynamoDB), local mode is killed with SIGKILL',
    'and started again, and kube-controller-manager is stopped for five minutes. Invariant watchers',
    'follow every workload and never stop judging for a while: where Kubernetes itself does not keep',
    'a rule at some moment, the narrower rule it keeps is judged instead (after a scale-up, no',
    'Available pod deleted while fewer than N − maxUnavailable are, and the same after a StatefulSet\'s',
    'template changes mid-roll, bar the controller\'s own replacement of its highest stale pod; the surge bound at every write that',
    'makes a ReplicaSet ask for more, against the Deployment\'s N of that moment; approval gates at every',
    'step, following the Deployment controller\'s proportional share of a scale), each remaining',
    'exemption has a native-behaviour test with no reconciler of ours (test/integration/native.behaviour.test.ts),',
    'and the seconds and checks each exemption covered are counted (the coverage table below); at the end',
    'every rollout is drained, its history checked (batch order, no batch advanced without its',
    'approval or pause, every release ended with a reason, every accepted command applied exactly',
    'once) and deleted, and its workload compared with what the user had. It writes',
    '`bench/results/soak.json` and this table, and exits 1 on any violation. A smaller run of the',
    'same harness is in `npm test` (test/integration/soak.smoke.test.ts).',
    '',
    soakTable(s),
    '',
    soakVerdict(s),
    '',
    ...coverageLines(s),
    ...(s.violations.length > 0 ? ['What broke, by kind (the evidence of each rollout is in the JSON):', '', ...violationKinds(s), ''] : []),
    '### Bad input',
    '',
    `The bad-input battery (test/integration/badInput.battery.test.ts, ${BATTERY.length} cases in`,
    'bench/testbed/battery/cases.ts) sends each request as a user would, over HTTP to local mode\'s server',
    'in front of the real API handler or through the `rollouts` CLI, against the real apiserver and',
    'dynalite. Each case asserts the status or exit code, an error naming the field with the reason,',
    'and that nothing changed: no item of the table, no reconcile queued, no write by the product\'s',
    'user at the apiserver (its audit log), no workload touched.',
    '',
    batteryTable(),
    '',
  ].join('\n');
}

export function readSoakResult(): SoakFile {
  return JSON.parse(readFileSync(SOAK_RESULT, 'utf8')) as SoakFile;
}

/** Replaces the section (up to the next "## " heading), or appends it. */
export function updateRobustnessReadme(summary: SoakFile = readSoakResult()): void {
  const text = readFileSync(README, 'utf8');
  const section = robustnessSection(summary);
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) {
    writeFileSync(README, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf('\n## ', start + HEADING.length + 1);
  writeFileSync(README, `${text.slice(0, start + 1)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) updateRobustnessReadme();
