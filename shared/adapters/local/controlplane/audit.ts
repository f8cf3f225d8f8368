// Opt-in apiserver audit log for the local control plane: what the product's own identity asked
// the apiserver to do, recorded by the server itself. Tests and benchmarks use it to prove the
// client-side Meter ("k8s.read"/"k8s.write") against the requests the apiserver actually served.
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { ROLLOUTS_USER } from './credentials.ts';

/** The fields of an audit.k8s.io/v1 Event (level Metadata) that we read. */
export interface AuditEvent {
  auditID: string;
  stage: string;
  /** get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  /** Which client sent it (the controllers, kwok and the scheduler all authenticate as admin here). */
  userAgent?: string;
  /** The request body, for rules at level Request or above. */
  requestObject?: unknown;
  /** The response body, for rules at level RequestResponse (e.g. a patched object's new generation). */
  responseObject?: unknown;
}

/** One rule of an audit.k8s.io/v1 Policy (the fields we use). */
export interface AuditPolicyRule {
  level: 'None' | 'Metadata' | 'Request' | 'RequestResponse';
  users?: string[];
  namespaces?: string[];
  verbs?: string[];
  resources?: { group?: string; resources?: string[] }[];
}

export interface AuditFiles {
  policyFile: string;
  logFile: string;
}

export function auditFiles(dataDir: string): AuditFiles {
  return { policyFile: path.join(dataDir, 'audit-policy.yaml'), logFile: path.join(dataDir, 'audit.log') };
}

/**
 * Metadata (who, verb, object, status; no bodies) for the product's user only, nothing for anyone
 * else: the controllers, kwok and the tests' admin client would otherwise fill the log with
 * thousands of lines a test never reads. One line per request (ResponseComplete; RequestReceived
 * is omitted). `extraRules` come first (the first matching rule wins): a benchmark adds every
 * user's requests in its own namespaces, or request bodies.
 */
export function writeAuditPolicy(file: string, extraRules: readonly AuditPolicyRule[] = []): void {
  const policy = {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [
      ...extraRules,
      { level: 'Metadata', users: [ROLLOUTS_USER] },
      { level: 'None' },
    ],
  };
  fs.writeFileSync(file, stringify(policy));
}

/**
 * Blocking mode: the apiserver writes the event in the request's own handler, before the handler
 * returns and the last bytes of the response leave the server, so when a client call has returned
 * its event is already in the file (the default batch mode would buffer it for up to seconds).
 */
export function auditArgs(files: AuditFiles): string[] {
  return [
    `--audit-policy-file=${files.policyFile}`,
    `--audit-log-path=${files.logFile}`,
    '--audit-log-format=json',
    '--audit-log-mode=blocking',
  ];
}

/** Completed requests in the log, oldest first. A line still being written (no newline yet) is skipped. */
export function readAuditEvents(logFile: string): AuditEvent[] {
  let text: string;
  try {
    text = fs.readFileSync(logFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // nothing logged yet
    throw err;
  }
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.stage === 'ResponseComplete');
}
