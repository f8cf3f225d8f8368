// One process per directory: a lock file holding the owner's pid, created exclusively. A lock whose
// process no longer runs (a crash, a SIGKILL) is taken over; a live owner is a clear ConfigError.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../../errors.ts';

/**
 * Takes the lock at `lockPath`; `inUse(owner)` words the error when a live owner holds it. With
 * `sameProcessMayRetake`, a lock held by this very process is taken over (a restart in-process);
 * without it, a second holder in the same process is refused too. Returns the release.
 */
export async function acquirePidLock(lockPath: string, inUse: (owner: number) => string, opts: { sameProcessMayRetake?: boolean } = {}): Promise<() => Promise<void>> {
  await mkdir(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockPath, String(process.pid), { flag: 'wx' });
      return () => rm(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(lockPath, 'utf8').catch(() => ''));
      const retake = opts.sameProcessMayRetake === true && owner === process.pid;
      if (Number.isInteger(owner) && owner > 0 && !retake && isRunning(owner)) throw new ConfigError(inUse(owner));
      await rm(lockPath, { force: true });
    }
  }
  throw new ConfigError(`cannot lock ${lockPath}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
