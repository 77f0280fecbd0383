import { useCallback, useEffect, useState } from 'react';

/** Seconds left of a countdown (0 = idle); `start(n)` begins one. Calls `onDone` when it reaches 0. */
export function useCountdown(onDone?: () => void): [number, (seconds: number) => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = window.setTimeout(() => {
      setLeft(left - 1);
      if (left === 1) onDone?.();
    }, 1000);
    return () => window.clearTimeout(timer);
  }, [left, onDone]);
  const start = useCallback((seconds: number) => setLeft(seconds), []);
  return [left, start];
}
