// README's "## Benchmarks" section, rewritten from the results file after every run, so the figures
// there are always latest.json's own, each area with the date it was measured. Only that section is
// touched (up to the next "## " heading).
import { readFileSync, writeFileSync } from 'node:fs';
import type { TableRow } from './area.ts';
import type { MachineInfo } from './machine.ts';
import { renderTable } from './table.ts';

const HEADING = '## Benchmarks';

const METHOD = `How the figures are taken (details and every raw figure with its unit in \`bench/results/latest.json\`):

- **reconcile** — one pass of \`reconcile\` on the real control plane and dynalite, ≥ 20 times per kind.
  Kubernetes requests are counted by the apiserver (audit log of the product's least-privilege user),
  DynamoDB requests by dynalite's server-side counter, capacity units from the ConsumedCapacity
  dynalite reported; our Meter's counts are shown beside them (its RCU/WCU add AWS's billing
  minimums). Wall time is the caller's, on loopback.
- **reaction** — from kwok's Ready \`lastTransitionTime\` of the pod that completes a batch (request
  body in the audit log) to the apiserver's \`requestReceivedTimestamp\` of our ReplicaSet patch that
  starts the next batch (audit log, request body gives the replicas); the Partition strategy, whose
  next batch is a ReplicaSet patch of ours. Driven by local mode itself (\`startLocalMode\` against
  the benchmark's control plane) and by the same loop assembled from its parts around the
  instrumented engine. Local mode's watches coalesce per key with a leading edge (the first event of
  a quiet key goes out at once) and a 50 ms trailing window. The same in local mode for a
  StatefulSet and an OpenKruise CloneSet (the real kruise-manager): from the last pod Ready before
  our next partition patch (the one carrying our batch record) to that patch.
- **release** — template change to the "Release Completed" transition, in each Deployment strategy;
  lower bound = one pod-ready delay per batch. The native RollingUpdate of the same Deployment on the
  same control plane ends when the Deployment reports every replica updated and available (the
  benchmark's own watch). Request counts: every user's requests in the namespace during the release
  (audit log), minus the benchmark's own. The machine is shared with other work while it runs, and
  kube-controller-manager's client (20 requests/s by default) paces pod creation and deletion at 100
  replicas for every contender alike.
- **triggers** — local mode (\`startLocalMode\` against the benchmark's control plane, least-privilege
  kubeconfig), timed from its own lines: the release command's answer (right after the apply) to
  "Release Started"; a StatefulSet image patch's answer to "Release Started"; a timed pause's stored
  deadline to the next step's "Step Started" (ten pauses at once per length). \`BENCH_TRIGGERS_RUNS\`
  scales the repetitions (default 10; twice that for apply → release).
- **traffic** — issue 25's figure: from a batch Available to its traffic weight applied at the proxy,
  through the real data plane (Traefik v3.7.13 from \`scripts/build-dataplane.sh\` serving a Gateway API
  HTTPRoute, each kwok pod answered on its IP: \`bench/testbed/dataplane/\`), the release run by local
  mode's loop. A 10-replica Deployment, steps [1 pod, 10%] → [30%, 30%] → [50%, 50%] → 100% without
  pauses, \`gracePeriodSeconds: 3\` (Kruise's default; Traefik applies provider changes at most every
  \`providersThrottleDuration\`, 2 s), released six times. Each step in parts: Available (kwok's Ready
  time of the batch's last new pod, audit log; minReadySeconds 0) → our set-traffic write of the
  HTTPRoute (audit log; a release's first step first points the canary Service at the batch and waits
  the grace period) → Traefik's status write accepting the route's
  new generation → the first request answered by the canary at the step's share (a probe through the
  proxy without a break: the first canary answer of the first 20 answers within 5 points of the
  weight). The margin is our write + the grace period − that answer: how long before the step
  counted as live the proxy served it.
- **sweep** — \`sweepDue\` over items written through the store: \`queryDue\` on dynalite's due-GSI
  shards and the resync window's range (one tick of the default 1-minute sweep over 1000 idle managed
  rollouts resyncs the fifth whose turn it is), then our SQS adapter over an in-process client (no
  network; moto's FIFO queue slows down with its depth, so it would time moto).
- **coldstart** — \`scripts/bundle-report.mjs --json\`: deployed esbuild options, median import
  time of each bundle in 10 fresh Node 22 processes.
- **peers** — opt-in: \`npm run bench -- --only peers\` (\`--reps N\`, default 5; \`--replicas 10,100\`, the
  default). The release controllers our users would pick instead, beside us on one control plane in
  one run: native RollingUpdate, Argo Rollouts (a Rollout whose \`workloadRef\` names the Deployment,
  \`scaleDown: onsuccess\`, so every contender gets the same patch of the same Deployment) and Kruise
  Rollout (v1beta1, partition style), each built from the Go module proxy on first use by
  \`scripts/build-peers.sh\` (it says so; cached under \`~/.cache/serverless-rollouts\`, never built by
  \`.ci/run\`) and run outside the cluster on loopback; and ours in each Deployment strategy, run by
  local mode's loop. Same Deployment, steps [10%, 50%, 100%] without pauses, pods Ready 2 s after
  scheduling; interleaved (each repetition releases every contender once, the order turned each
  time). Template change → done, where done is the contender's own word: our "Release Completed", the
  Argo Rollout Healthy on the new pods, the Kruise Rollout back to Healthy with Progressing
  Completed, the native Deployment rolled out; median and min–max, and each of ours ÷ Argo, ÷ Kruise,
  ÷ native and ÷ the bound (one pod-ready delay per batch), medians of the same run. Reaction: from
  kwok's Ready time of the pod that completes a batch to the first write asking the new ReplicaSet
  for the next batch, whoever sends it (ours in Partition, the deployment controller after our
  Deployment patch in MinReadySeconds, Argo, Kruise's own deployment controller); with the time from
  the template change to the first batch and from the last pod Ready to done, this says where each
  contender's time goes. Requests per release: every user's requests in the release's namespace
  (audit log), minus the benchmark's own, with the contender's own in brackets.
- **cost** — list prices (us-east-1, recorded with their sources in the JSON; no free tier) × the
  measured units, with the stack's memory sizes, timeouts and schedules read from the synthesized
  CDK template. Each line is marked measured, infra or modelled (assumptions stated in the JSON).
- **fleet** — \`rollouts serve --clusters 3\` (three sandbox control planes) as a child process, its
  DynamoDB a dynalite that counts every request and the capacity it reports, driven through the CLI:
  a FleetRollout of three one-cluster waves [c1] → [c2] → [c3] with no approval, bake or gate between
  them, released \`BENCH_FLEET_RELEASES\` times (default 10; two wave transitions each). Overhead: the
  last member of a wave's "Release Completed" → the next wave's first member's "Release Started",
  both from the members' own history, split by the fleet's history (member seen done, wave started,
  member permitted). Cost: the cost area's prices, function sizes and watcher model × the units of a
  fleet release (serve's pass and transition lines, dynalite's requests and capacity in the release's
  window, less the stack's rate at rest over a 30 s quiet window); each line marked measured or modelled.`;

export function updateReadme(file: string, opts: { generatedAt: string; machine: MachineInfo; durationSeconds: number; table: TableRow[]; measuredAt: Record<string, string> }): void {
  const text = readFileSync(file, 'utf8');
  const m = opts.machine;
  const section = [
    HEADING,
    '',
    '`npm run bench` runs every benchmark area (≤ 15 minutes on 2 cores), writes `bench/results/latest.json`',
    '(machine, Node version, date, git commit, every figure with its unit; dated copies stay out of git) and',
    'prints the table below. `npm run bench -- --only sweep,coldstart` re-runs some areas (reconcile,',
    'reaction, release, triggers, traffic, sweep, coldstart, cost, fleet, peers) and keeps the others from `latest.json`; every run',
    'rewrites this section from `latest.json`. The peers area runs only when named (below). Benchmarks are never assertions in `npm test`.',
    '',
    `Last run: ${opts.generatedAt.slice(0, 10)}, ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, commit \`${m.gitCommit?.slice(0, 12) ?? '?'}\`${m.gitDirty ? ' plus uncommitted changes' : ''}; the run took ${Math.round(opts.durationSeconds)} s.`,
    `Each area as last measured: ${Object.entries(opts.measuredAt).map(([area, at]) => `${area} ${at.slice(0, 10)}`).join(', ')}.`,
    '',
    renderTable(opts.table, true),
    '',
    METHOD,
    '',
  ].join('\n');
  const start = text.indexOf(`\n${HEADING}\n`);
  if (start < 0) {
    writeFileSync(file, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf('\n## ', start + HEADING.length + 1);
  writeFileSync(file, `${text.slice(0, start + 1)}${section}${next < 0 ? '' : `\n${text.slice(next + 1)}`}`);
}
