// Finds the processes one test run left behind, for scripts/run-tests.mjs. Every process the run
// starts inherits ROLLOUTS_TEST_RUN_ID in its environment: the control plane (etcd, kube-apiserver,
// kwok, ...), kruise-manager, Prometheus, aws-lambda-rie and the Node runtime it starts, LocalStack's
// Python, moto, Chromium. Once the test runner has exited, any process still carrying the tag is a
// leftover, whatever its binary. Linux /proc only.
import fs from 'node:fs';

/** Processes whose environment carries `runId` (never this process). */
function scan(runId) {
  const tag = `ROLLOUTS_TEST_RUN_ID=${runId}`;
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environ.includes(tag)) continue;
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // A zombie (already dead, not yet reaped by its parent) has an empty cmdline and holds nothing.
      if (argv.length === 0) continue;
      found.push({ pid: Number(entry), cmdline: argv.join(' ').slice(0, 300) });
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
export async function findLeftovers(runId, graceMs = 2000) {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const found = scan(runId);
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
