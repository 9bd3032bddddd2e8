// "Finish within N ms": the one way the runtime bounds a wait it may give up on (closing MCP
// clients, stopping tasks and teammates, flushing stdout at exit).

/**
 * `work`'s value, or undefined when `ms` pass first. The work is not cancelled (pass it a signal
 * for that). The timer is cleared once the work settles and never keeps the process alive.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    t.unref();
    timer = t;
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
