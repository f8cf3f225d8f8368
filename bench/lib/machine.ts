// What the figures were measured on: they mean little without the machine and the code version.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  platform: string;
  node: string;
  gitCommit: string | null;
  /** True when the working tree had uncommitted changes (the commit alone does not describe the code). */
  gitDirty: boolean | null;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.versions.node,
    gitCommit: git(['rev-parse', 'HEAD']),
    gitDirty: (() => {
      const status = git(['status', '--porcelain']);
      return status === null ? null : status.length > 0;
    })(),
  };
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}
