// `get --watch`: poll the API, redraw the screen in place (ANSI: home, rewrite, clear the rest) at
// most every 200 ms, and at least every second so ages keep counting, like kubectl-argo-rollouts'
// watch. Ends on Ctrl-C, at the timeout, or when a release that was running has ended.
import type { CliIO } from './io.ts';
import type { CliRuntime } from './runtime.ts';

export interface WatchScreenOptions<S> {
  /** First call failing ends the watch with that error; later failures are shown and retried. */
  poll(): Promise<S>;
  render(snapshot: S, now: Date): string;
  /** A release is running (or a command is waiting): the watch ends once this turns false. */
  active(snapshot: S): boolean;
  pollMs: number;
  timeoutMs: number | null;
}

export type WatchEnd = 'release ended' | 'interrupted' | 'timeout';

const FRAME_MS = 200;
const TICK_MS = 1000;
const HOME = '\x1b[H';
const CLEAR_LINE_END = '\x1b[K';
const CLEAR_BELOW = '\x1b[J';

export async function watchScreen<S>(io: CliIO, rt: CliRuntime, opts: WatchScreenOptions<S>): Promise<WatchEnd> {
  let snapshot: S = await opts.poll();
  let problem: string | null = null;
  let sawActive = opts.active(snapshot);
  let dirty = true;
  let lastPoll = rt.now().getTime();
  let lastDraw = 0;
  let lastText = '';
  let polling: Promise<void> | null = null;
  const started = lastPoll;
  const stop = new AbortController();
  const stopListening = rt.onInterrupt(() => stop.abort());
  if (rt.isTTY) io.out('\x1b[2J');

  const draw = (now: Date): void => {
    const text = opts.render(snapshot, now) + (problem ? `\n⚠ last refresh failed: ${problem}\n` : '');
    if (rt.isTTY) io.out(`${HOME}${text.split('\n').join(`${CLEAR_LINE_END}\n`)}${CLEAR_BELOW}`);
    // Not a terminal (a pipe, a log): print a frame only when it says something new.
    else if (text !== lastText) io.out(`${lastText ? '\n' : ''}${text}`);
    lastText = text;
  };

  try {
    for (;;) {
      const now = rt.now();
      const t = now.getTime();
      if (polling === null && t - lastPoll >= opts.pollMs) {
        lastPoll = t;
        polling = opts.poll().then(
          (s) => {
            snapshot = s as S;
            problem = null;
          },
          (err: unknown) => {
            problem = err instanceof Error ? err.message : String(err);
          },
        ).finally(() => {
          polling = null;
          dirty = true;
        });
      }
      if (dirty || t - lastDraw >= TICK_MS) {
        draw(now);
        lastDraw = t;
        dirty = false;
      }
      const active = opts.active(snapshot);
      sawActive ||= active;
      if (sawActive && !active && polling === null) return 'release ended';
      if (stop.signal.aborted) return 'interrupted';
      if (opts.timeoutMs !== null && t - started >= opts.timeoutMs) return 'timeout';
      await rt.sleep(FRAME_MS, stop.signal);
    }
  } finally {
    stopListening();
    await polling;
  }
}
