// "Finish within N ms": the one way the runtime bounds a wait it may give up on (closing MCP
// clients and connecting to them, host hook callbacks, waiting on a task, stopping tasks and
// teammates, flushing stdout at exit, the last telemetry export).

/**
 * `work`'s value, or undefined when `ms` pass first or `signal` aborts first. The work is not
 * cancelled (pass it a signal for that). The timer is cleared once the race is decided and never
 * keeps the process alive. A work that may itself yield undefined can be told apart by wrapping it.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  if (signal?.aborted) {
    work.catch(() => {}); // given up on: its failure is nobody's
    return undefined;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<undefined>((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    t.unref();
    timer = t;
    if (signal) {
      onAbort = () => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work, givenUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
