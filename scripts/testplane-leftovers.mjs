// Finds processes started from the test control plane's bin dir by one test run (tagged with
// ROLLOUTS_TEST_RUN_ID in their environment), for scripts/run-tests.mjs. Linux /proc only.
import fs from 'node:fs';

/** Processes whose executable (argv[0]) lies in `binDir` and whose environment carries `runId`. */
function scan(binDir, runId) {
  const prefix = `${binDir.replace(/\/+$/, '')}/`;
  const tag = `ROLLOUTS_TEST_RUN_ID=${runId}`;
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (!argv[0]?.startsWith(prefix)) continue;
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environ.includes(tag)) continue;
      found.push({ pid: Number(entry), cmdline: argv.join(' ') });
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

/**
 * Leftovers after a grace period: daemons killed by a test process's exit hook (SIGKILL) can take
 * a moment to disappear, and those were cleaned up, not left behind.
 */
export async function findLeftovers(binDir, runId, graceMs = 2000) {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const found = scan(binDir, runId);
    if (found.length === 0 || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGKILL each leftover's process group (daemons are group leaders) and the process itself. */
export function killLeftovers(leftovers) {
  for (const { pid } of leftovers) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Already gone, or not a group leader.
      }
    }
  }
}
