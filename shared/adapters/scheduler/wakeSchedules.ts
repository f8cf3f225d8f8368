// Wake-ups beyond SQS's 15-minute delay (a timed pause of an hour, a release window opening
// tomorrow) as EventBridge Scheduler one-off schedules: `at(<instant>)` in UTC, no flexible window,
// deleted by Scheduler once they have fired, delivering our reconcile message to the trigger queue.
// A schedule's name is derived from the rollout key and the instant, so scheduling is idempotent
// (a retried pass, or a redelivered message, finds its own schedule and updates it in place) and
// the schedules of two rollouts, or two wake-ups of one rollout, never collide. A wake-up that
// moves (an approval ended the wait early) deletes the superseded schedule; one missed delete
// only costs a no-op reconcile when it fires.
// No endpoint option: the SDK reads AWS_ENDPOINT_URL(_SCHEDULER) itself (emulators, LocalStack).
import { createHash } from 'node:crypto';
import {
  ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand,
  type CreateScheduleCommandInput, type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { NO_METER, type Meter } from '../../meter.ts';
import type { WakeScheduler } from '../../ports.ts';
import { queueKeyString, type QueueKey } from '../../fleet/key.ts';
import { encodeReconcileMessage } from '../sqs/messages.ts';

export interface SchedulerWakeupsOptions {
  client: SchedulerClient;
  /** The schedule group the functions may write (ROLLOUTS_WAKE_SCHEDULE_GROUP); IAM is scoped to it. */
  groupName: string;
  /** The standard trigger queue's ARN: the schedule's target. */
  targetArn: string;
  /** The role Scheduler assumes to send to the queue. */
  roleArn: string;
  meter?: Meter;
}

/** The reason in the message a fired schedule delivers. */
export const WAKE_REASON = 'wake';
/** Scheduler's limit on names (letters, digits, "-", "_", "."). */
const MAX_NAME_LENGTH = 64;

export class SchedulerWakeups implements WakeScheduler {
  private readonly meter: Meter;

  constructor(private readonly opts: SchedulerWakeupsOptions) {
    this.meter = opts.meter ?? NO_METER;
  }

  async schedule(key: QueueKey, at: Date): Promise<void> {
    const input = this.scheduleInput(key, at);
    this.meter.add('queue.send');
    try {
      await this.opts.client.send(new CreateScheduleCommand(input));
    } catch (err) {
      if (!(err instanceof ConflictException)) throw err;
      // Ours already (same key and instant): make it exactly what we would create now.
      this.meter.add('queue.send');
      await this.opts.client.send(new UpdateScheduleCommand(input));
    }
  }

  async cancel(key: QueueKey, at: Date): Promise<void> {
    this.meter.add('queue.send');
    try {
      await this.opts.client.send(new DeleteScheduleCommand({ Name: wakeScheduleName(key, at), GroupName: this.opts.groupName }));
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err; // fired (and deleted itself) or never made
    }
  }

  /** The whole schedule, as created (and as an update rewrites it). */
  scheduleInput(key: QueueKey, at: Date): CreateScheduleCommandInput {
    return {
      Name: wakeScheduleName(key, at),
      GroupName: this.opts.groupName,
      Description: `serverless-rollouts: reconcile ${queueKeyString(key)} at ${at.toISOString()}`,
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: this.opts.targetArn,
        RoleArn: this.opts.roleArn,
        Input: encodeReconcileMessage(key, WAKE_REASON),
        // A late wake-up is still worth delivering (the sweep would find it within a minute anyway).
        RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 },
      },
    };
  }
}

/** `wake-` + a hash of key and instant: deterministic, unique per wake-up, within Scheduler's name rules. */
export function wakeScheduleName(key: QueueKey, at: Date): string {
  const digest = createHash('sha256').update(`${queueKeyString(key)}\n${at.toISOString()}`).digest('hex');
  return `wake-${digest}`.slice(0, MAX_NAME_LENGTH);
}

/** `at(yyyy-mm-ddThh:mm:ss)`, rounded up to the whole second: never before the wake-up. */
export function atExpression(at: Date): string {
  const seconds = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `at(${seconds.toISOString().slice(0, 19)})`;
}
