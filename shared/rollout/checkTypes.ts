// Pod hooks (seed 003's lifecycle.preUpdate / postUpdate) and step gates (Argo's AnalysisRun,
// Flagger's metric checks), as pure data. The planner never calls anything: it emits Invocations
// (what to call now, with everything the call needs) and is fed InvocationResults (what the call
// answered) on a later plan; the reconcile pipeline makes the calls through shared/adapters/checks.

/** How a gate compares each sample of a Prometheus query with its threshold. */
export const COMPARISON_OPS = ['<', '<=', '>', '>=', '==', '!='] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

/** An AWS Lambda function: a name, a partial or a full ARN; `qualifier` a version or alias. */
export interface LambdaTarget {
  functionName: string;
  qualifier: string | null;
  /** From a full ARN; null = the reconcile function's own region. */
  region: string | null;
}

export interface HttpTarget {
  url: string;
  headers: Record<string, string>;
}

export type GateProvider =
  | ({ kind: 'http' } & HttpTarget)
  | ({ kind: 'lambda' } & LambdaTarget)
  /** Every named alarm must be OK: ALARM fails the check, INSUFFICIENT_DATA is inconclusive. */
  | { kind: 'cloudwatchAlarm'; alarms: { name: string; region: string | null }[] }
  | {
    kind: 'prometheus';
    /** Base URL of the Prometheus HTTP API (…/api/v1/query is appended), e.g. an AMP workspace's. */
    url: string;
    query: string;
    condition: { op: ComparisonOp; value: number };
    /** Amazon Managed Prometheus: sign with SigV4 for service "aps" in this region; null = unsigned. */
    sigv4: { region: string } | null;
  };

export interface Gate {
  /** Unique within its step; names the gate in reasons, history and the cause (`gate/<name>`). */
  name: string;
  provider: GateProvider;
  /** Between two checks. */
  intervalSeconds: number;
  /** Before the first check, counted from the batch being ready. */
  initialDelaySeconds: number;
  /** Successful checks the gate needs. */
  count: number;
  /** Failed checks tolerated: one more fails the release (Argo's failureLimit). */
  failureLimit: number;
  /** Checks in a row that could not be made (5xx, timeouts, unreachable) tolerated: one more fails it (Argo's consecutiveErrorLimit). */
  consecutiveErrorLimit: number;
  /** Per check. */
  timeoutSeconds: number;
}

export type HookTarget =
  | { kind: 'exec'; command: string[]; container: string | null }
  | ({ kind: 'http' } & HttpTarget)
  | ({ kind: 'lambda' } & LambdaTarget);

export const HOOK_PHASES = ['preUpdate', 'postUpdate'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

export interface Hook {
  target: HookTarget;
  timeoutSeconds: number;
  /** Attempts after the first failed one. */
  retries: number;
  /** Wait before the first retry; doubled for each further one, up to MAX_BACKOFF_SECONDS. */
  backoffSeconds: number;
}

export interface Lifecycle {
  preUpdate: Hook | null;
  postUpdate: Hook | null;
}

// ---- What the planner asks the pipeline to call (actions) --------------------------------------

/** What a hook or gate call tells its target, as the JSON body of http and lambda calls. */
export interface CallContext {
  rollout: { cluster: string; namespace: string; name: string };
  releaseId: string;
  /** 1-based step the release is on. */
  step: number;
  /** The revision being rolled out. */
  revision: string;
}

export type Invocation =
  | {
    type: 'run-hook';
    phase: HookPhase;
    pod: string;
    /** The revision the pod runs now (the old one for preUpdate, the new one for postUpdate). */
    podRevision: string;
    /** exec: the container the command runs in (the hook's, else the pod's first). */
    container: string;
    /** 1-based; a call whose outcome was lost is delivered again with the same attempt. */
    attempt: number;
    /** (release, pod, hook, attempt): the same key for a redelivery, so the target can answer it once. */
    idempotencyKey: string;
    hook: Hook;
    context: CallContext;
  }
  | { type: 'check-gate'; gate: Gate; context: CallContext };

// ---- What the calls answered (observations) ----------------------------------------------------

export type HookOutcome =
  | { result: 'succeeded'; output: string }
  /** `retryable` false: the target said no for good (an HTTP 4xx), retrying cannot change it. */
  | { result: 'failed'; retryable: boolean; output: string };

/**
 * One gate check. `value` is what a person reads as the gate's last value: the query's samples,
 * the alarms' states, the HTTP status and body.
 */
export interface GateMeasurement {
  /** pass/fail: the condition held or not; inconclusive: no data; error: the check could not be made. */
  result: 'pass' | 'fail' | 'inconclusive' | 'error';
  value: string;
}

export type InvocationResult =
  | { type: 'run-hook'; phase: HookPhase; pod: string; attempt: number; outcome: HookOutcome; at: string }
  | { type: 'check-gate'; gate: string; stepIndex: number; measurement: GateMeasurement; at: string };

// ---- Their state on the release (persisted on STATE) -------------------------------------------

export interface HookRecord {
  attempt: number;
  /** Started: recorded before the call (a crash leaves it so); Waiting: failed, retried at `retryAt`. */
  status: 'Started' | 'Succeeded' | 'Waiting' | 'Failed';
  /** When the current attempt started (Started) or ended. */
  at: string;
  retryAt: string | null;
  /** The target's last words: output, status and body, error message (bounded). */
  output: string;
  /** Deliveries of the current attempt (a lost outcome is delivered again with the same key). */
  deliveries: number;
}

export interface GateRun {
  name: string;
  successes: number;
  failures: number;
  consecutiveErrors: number;
  lastResult: GateMeasurement['result'] | null;
  lastValue: string | null;
  lastAt: string | null;
  status: 'Running' | 'Passed' | 'Failed';
}

/** The longest wait between two attempts of a hook. */
export const MAX_BACKOFF_SECONDS = 300;
