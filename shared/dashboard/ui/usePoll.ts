// Poll a loader every `ms` while the page shows it; `refresh()` polls at once (after a command).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { SYSTEM_CLOCK } from '../../clock.ts';

export interface Polled<T> {
  data: T | null;
  error: string | null;
  refresh: () => void;
}

export function usePoll<T>(load: () => Promise<T>, ms: number, deps: unknown[]): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const alive = useRef(true);
  const tick = useCallback(async () => {
    if (timer.current) clearTimeout(timer.current);
    try {
      const next = await load();
      if (!alive.current) return;
      setData(next);
      setError(null);
    } catch (err) {
      if (alive.current) setError(err instanceof Error ? err.message : String(err));
    }
    if (alive.current) timer.current = setTimeout(() => void tick(), ms);
  }, deps);
  useEffect(() => {
    alive.current = true;
    void tick();
    return () => {
      alive.current = false;
      if (timer.current) clearTimeout(timer.current);
    };
  }, [tick]);
  return { data, error, refresh: () => void tick() };
}

/** The current time, re-rendered every second (countdowns, ages). */
export function useNow(): Date {
  const [now, setNow] = useState(() => SYSTEM_CLOCK.now());
  useEffect(() => {
    const t = setInterval(() => setNow(SYSTEM_CLOCK.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}
