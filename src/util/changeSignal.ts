// "Something changed": a waiter resolves at the next change, or after its own timeout, whichever
// comes first. The task registry and the team use it so the session can wait for either.
export class ChangeSignal {
  private waiters: Array<() => void> = [];

  /** Resolves at the next `notify()`, or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.push(done);
    });
  }

  /** Wakes every waiter. */
  notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
