// What the fleet cases of the bad-input battery aim at (fleetCases.ts): three registered clusters with
// labels and time zones, and fleets of the workload battery/web in the states the command cases need.
// The battery runner (phase B of issue 24) registers the clusters and brings each fleet to its state
// through the API; the unit test (test/unit/fleet/battery.test.ts) builds the same states with the
// pure core. Pure: names, documents and state builders only.
import type { ClusterInfo } from '../../../shared/fleet/clusters.ts';
import type { FleetState } from '../../../shared/fleet/types.ts';
import { FleetSim, fleetCommand } from '../sim/fleetSim.ts';

export const FLEET_NAMESPACE = 'battery';

/** The registered clusters: labels as `PUT /v1/clusters/<name>` sets them. */
export const FLEET_CLUSTERS: readonly ClusterInfo[] = [
  { name: 'canary', labels: { env: 'prod', ring: 'canary', region: 'eu-west-1' }, timeZone: 'Europe/Paris' },
  { name: 'eu-1', labels: { env: 'prod', region: 'eu-west-1' }, timeZone: 'Europe/Paris' },
  { name: 'us-1', labels: { env: 'prod', region: 'us-east-1' }, timeZone: 'America/New_York' },
];

/**
 * The fleets the command cases aim at:
 *   idle     applied, never released
 *   running  release f1 at its canary wave, the canary member releasing (at its own step approval)
 *   waiting  release f1, the canary wave released and waiting for `fleet approve`
 *   paused   paused by `fleet pause`
 *   rolling  release f1 aborted, its members rolling back
 */
export const FLEET_FIXTURES = ['idle', 'running', 'waiting', 'paused', 'rolling'] as const;
export type FleetFixture = (typeof FLEET_FIXTURES)[number];

const STEPS = { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } };

/** A valid FleetRollout named `name` for the workload battery/web, with `spec` merged over its spec. */
export function fleetDoc(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name },
    spec: {
      workload: { namespace: FLEET_NAMESPACE, kind: 'Deployment', name: 'web' },
      clusterSelector: { matchLabels: { env: 'prod' } },
      template: { spec: STEPS },
      waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }, { name: 'rest' }],
      ...spec,
    },
  };
}

/** The fleet's state for a fixture, built by running the pure core over simulated members. */
export function fleetFixtureState(fixture: FleetFixture): FleetState {
  const f = FleetSim.of(fleetDoc(fixture), [...FLEET_CLUSTERS]);
  const release = () => fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'registry.invalid/app:v2' } } });
  switch (fixture) {
    case 'idle':
      f.settle();
      break;
    case 'running':
      f.settle([release()]);
      break;
    case 'waiting':
      f.settle([release()]);
      f.memberCommand('canary', { type: 'approve' });
      f.settle();
      break;
    case 'paused':
      f.settle([fleetCommand({ type: 'pause' })]);
      break;
    case 'rolling':
      f.settle([release()]);
      f.fleetStep([fleetCommand({ type: 'abort' })]);
      break;
  }
  return f.state;
}
