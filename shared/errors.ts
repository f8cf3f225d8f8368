// Named error classes shared by every layer. Each carries `cause` when it wraps another error.

export class RolloutsError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem with user input: the field path (e.g. "spec.strategy.canary.steps[1].replicas") and why. */
export interface FieldIssue {
  path: string;
  reason: string;
}

/** Bad input. Nothing was changed. */
export class ValidationError extends RolloutsError {
  readonly issues: FieldIssue[];
  constructor(issues: FieldIssue[], options?: ErrorOptions) {
    super(issues.map((i) => `${i.path}: ${i.reason}`).join('; '), options);
    this.issues = issues;
  }
}

export class NotFoundError extends RolloutsError {}

/** Someone else wrote first (Kubernetes 409 or a failed DynamoDB condition); retry soon with fresh state. */
export class ConflictError extends RolloutsError {}

/** The STATE item changed since it was read. */
export class StaleStateError extends ConflictError {}

/** Invalid configuration at start-up (environment, flags). */
export class ConfigError extends RolloutsError {}

/** A command that is not allowed now (e.g. approve when not awaiting approval). */
export class CommandRejectedError extends RolloutsError {}
