// The one writer of stdout. One line per message, backpressure honoured, drained before exit,
// EPIPE treated as "the host went away". Everything else that tries to write to stdout (a
// library's console.log) is sent to stderr by the guard, so stdout stays parseable forever.
import type { Outbound } from './outbound.js';
import { withTimeout } from '../util/withTimeout.js';
import { logWarning, writeStderr } from '../util/log.js';

type WriteFn = (chunk: string, cb?: (err?: Error | null) => void) => boolean;

export class StdoutWriter {
  private readonly rawWrite: WriteFn;
  private gone = false;
  private pendingDrain: Promise<void> | null = null;
  private lastWrite: Promise<void> = Promise.resolve();
  private readonly goneListeners: Array<() => void> = [];

  constructor(private readonly stream: NodeJS.WriteStream = process.stdout) {
    this.rawWrite = stream.write.bind(stream) as WriteFn;
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') this.markGone();
      else logWarning(`stdout error: ${err.message}`);
    });
  }

  /** Route every other write to stdout onto stderr. */
  guard(): void {
    (this.stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) =>
      writeStderr(chunk as string, ...rest);
  }

  get hostGone(): boolean {
    return this.gone;
  }

  onHostGone(listener: () => void): void {
    this.goneListeners.push(listener);
  }

  /**
   * Write one protocol line (a member of the outbound schemas' union, so a line the schemas do not
   * have fails to compile). Resolves when it may be followed without buffering.
   */
  send(message: Outbound): Promise<void> {
    return this.sendRaw(`${JSON.stringify(message)}\n`);
  }

  /** Write text as is: text output mode's answers, a teammate process's plain lines. */
  sendRaw(text: string): Promise<void> {
    if (this.gone) return Promise.resolve();
    this.lastWrite = new Promise<void>((resolve) => {
      const ok = this.rawWrite(text, (err) => {
        if (err) this.markGone();
        resolve();
      });
      if (!ok && !this.pendingDrain) {
        this.pendingDrain = new Promise<void>((r) => {
          const done = () => {
            this.pendingDrain = null;
            r();
          };
          this.stream.once('drain', done);
          this.stream.once('close', done);
        });
      }
    });
    return this.pendingDrain ?? Promise.resolve();
  }

  /** Resolves when everything written so far has reached the OS (or the host is gone). */
  async flush(timeoutMs = 5000): Promise<void> {
    if (this.gone) return;
    await withTimeout(this.lastWrite, timeoutMs);
  }

  private markGone(): void {
    if (this.gone) return;
    this.gone = true;
    for (const l of this.goneListeners) l();
  }
}
