// What a persistent control plane (local mode's sandbox) records about the processes it started,
// so that the next start can stop whatever a killed run left behind: by the process groups in its
// own records, never by a name. A recorded group is only signalled through processes that are
// still in it AND whose command line names this data directory, so a group id reused by some
// other process since is never touched. Linux (/proc); elsewhere nothing is found.
import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import path from 'node:path';

export interface ProcessRecord {
  name: string;
  /** Process group id: the supervisor's pid (shared/adapters/local/controlplane/daemon.ts). */
  pgid: number;
}

const RECORDS_FILE = 'processes.json';

export function recordsPath(dataDir: string): string {
  return path.join(dataDir, RECORDS_FILE);
}

export function writeProcessRecords(dataDir: string, records: readonly ProcessRecord[]): void {
  const file = recordsPath(dataDir);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(records, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

export function readProcessRecords(dataDir: string): ProcessRecord[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(recordsPath(dataDir), 'utf8')) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((r): r is ProcessRecord => typeof r?.name === 'string' && Number.isInteger(r?.pgid) && r.pgid > 1);
  } catch {
    return [];
  }
}

export interface LiveProcess {
  pid: number;
  pgid: number;
  cmdline: string;
}

/** Processes of the recorded groups that still run and name `dataDir` in their command line. */
export function liveRecordedProcesses(dataDir: string, records: readonly ProcessRecord[]): LiveProcess[] {
  const groups = new Set(records.map((r) => r.pgid));
  if (groups.size === 0 || !fs.existsSync('/proc')) return [];
  const found: LiveProcess[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgid = Number(fields[2]);
      if (!groups.has(pgid) || fields[0] === 'Z') continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(dataDir)) found.push({ pid: Number(entry), pgid, cmdline });
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found;
}

/**
 * Stops what a previous run of this data directory left running: SIGTERM to each recorded group
 * that still has a matching process, SIGKILL after `graceMs`. Returns what was found.
 */
export async function stopLeftovers(dataDir: string, graceMs = 5_000): Promise<LiveProcess[]> {
  const records = readProcessRecords(dataDir);
  const found = liveRecordedProcesses(dataDir, records);
  if (found.length === 0) return [];
  const signalGroups = (signal: NodeJS.Signals): void => {
    for (const pgid of new Set(liveRecordedProcesses(dataDir, records).map((p) => p.pgid))) {
      try {
        process.kill(-pgid, signal);
      } catch {
        // Gone meanwhile.
      }
    }
  };
  signalGroups('SIGTERM');
  const deadline = performance.now() + graceMs;
  while (liveRecordedProcesses(dataDir, records).length > 0 && performance.now() < deadline) await sleep(100);
  signalGroups('SIGKILL');
  while (liveRecordedProcesses(dataDir, records).length > 0 && performance.now() < deadline + 2_000) await sleep(50);
  return found;
}
