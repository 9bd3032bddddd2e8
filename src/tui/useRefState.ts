// State that key handlers read fresh: Ink can deliver several keys in one tick (text and Enter
// read in one chunk), before React re-renders, so a handler must not read a stale closure.
import { useReducer, useRef } from 'react';

export function useRefState<T>(initial: T): [() => T, (next: T) => void] {
  const ref = useRef(initial);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  return [
    () => ref.current,
    (next: T) => {
      ref.current = next;
      rerender();
    },
  ];
}
