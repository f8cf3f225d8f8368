// The deployed reaction while a release moves pods (pod Ready → the patch that starts the next
// batch), modelled from measured parts: what the apiserver and our reconcile take is measured here
// (reaction and reconcile areas, loopback); the AWS hops between them are modelled, each stated.
// The p95s of the parts are added, which overstates the p95 of their sum: a conservative figure.
import { DEFAULT_WINDOW_MS } from '../../shared/watch/watchProxy.ts';
import type { PerReconcileResult } from '../perReconcile.ts';
import type { ReactionLatencyResult } from '../reactionLatency.ts';
import { round } from './stats.ts';

/**
 * The watch-proxy's SendMessageBatch to the FIFO work queue (shared/watch/queueSink.ts): one in-region
 * request, whose p95 is a few tens of milliseconds; taken generously. (Before, a notice went
 * PutEvents → bus rule → trigger queue, modelled at 250 ms: no latency objective is published for it.)
 */
const SEND_TO_QUEUE_MS = 40;
/** While a queue is active the event source mapping holds long polls open: a sent message is received at once, then a warm invoke. */
const QUEUE_TO_HANDLER_MS = 50;
/** One in-region round trip to the EKS endpoint or DynamoDB, which loopback does not have. */
const ROUND_TRIP_MS = 10;
/** Issue 26: the deployed reaction while pods move, modelled p95. */
export const REACTION_GOAL_MS = 400;

export interface ReactionPart {
  what: string;
  ms: number;
  basis: 'measured' | 'modelled';
  how: string;
}

export interface DeployedReactionModel {
  windowMs: number;
  parts: ReactionPart[];
  p95Ms: number;
  goalMs: number;
  note: string;
}

export function deployedReactionModel(reaction: ReactionLatencyResult, reconcile: PerReconcileResult): DeployedReactionModel {
  const local = reaction.localMode;
  if ('error' in local) throw new Error(`the reaction area failed (${local.error}): the model needs its Kubernetes share`);
  const pass = reconcile.batchAdvancing;
  const requests = ['k8sReads', 'k8sWrites', 'ddbReadRequests', 'ddbWriteRequests'].reduce((n, k) => n + (pass.server[k]?.median ?? 0), 0);
  const parts: ReactionPart[] = [
    { what: 'pod Ready → workload status (the controllers)', ms: local.kubernetesShareMs.p95, basis: 'measured', how: `reaction area, p95 of ${local.kubernetesShareMs.n} batches (audit log)` },
    { what: 'coalescing in the watch-proxy', ms: DEFAULT_WINDOW_MS, basis: 'modelled', how: `the whole ${DEFAULT_WINDOW_MS} ms window (shared/watch/watchProxy.ts DEFAULT_WINDOW_MS): the last pod of a batch usually turns Ready in a window its siblings opened` },
    { what: 'SendMessageBatch → FIFO work queue', ms: SEND_TO_QUEUE_MS, basis: 'modelled', how: 'one in-region SQS request (shared/watch/queueSink.ts), taken generously' },
    { what: 'work queue → reconcile handler', ms: QUEUE_TO_HANDLER_MS, basis: 'modelled', how: 'open long polls of the event source mapping while the queue is active, a warm invoke' },
    { what: 'the pass that starts the next batch', ms: pass.wallMs.p95, basis: 'measured', how: `reconcile area, batch-advancing pass p95 of ${pass.wallMs.n} (loopback)` },
    { what: 'its requests over the network', ms: requests * ROUND_TRIP_MS, basis: 'modelled', how: `${requests} Kubernetes and DynamoDB requests (median, at the servers) × ${ROUND_TRIP_MS} ms in-region round trip` },
  ];
  return {
    windowMs: DEFAULT_WINDOW_MS,
    parts,
    p95Ms: round(parts.reduce((n, p) => n + p.ms, 0), 1),
    goalMs: REACTION_GOAL_MS,
    note: 'The watcher runs while pods move: the first pass of a release launches it (shared/watch/watcherDemand.ts); until its watches are open a batch waits at most for the pass\'s 5 s re-run.',
  };
}
