/**
 * A signal that aborts when `parent` does, for one call on a long-lived parent (a run's signal).
 * The MCP client adds an abort listener to the signal it is given and never removes it; handing it
 * a per-call signal, and unlinking it with `release()` when the call settles, keeps the run's
 * listener list from growing with every call.
 */
export function linkedSignal(parent: AbortSignal): { signal: AbortSignal; release(): void } {
  const own = new AbortController();
  if (parent.aborted) {
    own.abort(parent.reason);
    return { signal: own.signal, release() {} };
  }
  const onAbort = () => own.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: own.signal, release: () => parent.removeEventListener('abort', onAbort) };
}

/** Runs `call` with a signal linked to `parent` for its duration only. */
export async function withLinkedSignal<T>(parent: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const link = linkedSignal(parent);
  try {
    return await call(link.signal);
  } finally {
    link.release();
  }
}
