// Last-resort cleanup for the control plane's daemons and temp dirs when the owning Node process ends
// without calling stop() (a crashed test, Ctrl-C, a forgotten after hook). Everything here runs
// synchronously because 'exit' listeners cannot await.

type Cleanup = () => void;

const cleanups = new Set<Cleanup>();
let hooksInstalled = false;

function runAll(): void {
  for (const cleanup of [...cleanups].reverse()) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Best effort: one failing cleanup must not keep the others from running.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll();
  // Restore the default disposition and re-raise, so the process still dies of the signal (exit
  // code 128+n) as it would have without our listener.
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', runAll);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Runs `cleanup` if the process exits or is interrupted first. Returns the function that cancels it. */
export function registerExitCleanup(cleanup: Cleanup): () => void {
  installHooks();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}
