// Background Bash: the command runs in its own process group, its output goes to a file as it
// comes (capped), the file ends with `[exited with code N]`, and the registry reports the end.
import { exitCodeOf } from '../util/exitCode.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import { BG_DEFAULT_TIMEOUT_MS, type BackgroundShellService } from '../../tools/bash.js';
import { runBashCommand, violationNote, type BashRunResult } from '../../tools/bashRun.js';
import { stoppedSummary, type TaskRecord, type TaskRegistry } from './registry.js';

export const BG_MAX_TIMEOUT_MS = 2 * 60 * 60_000;
export const BG_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Appends to a file with synchronous writes (nothing sits in a buffer at a hard exit), capped. */
class CappedFile {
  private fd: number | undefined;
  private bytes = 0;
  dropped = 0;
  constructor(
    path: string,
    private readonly max: number,
  ) {
    this.fd = openSync(path, 'w', 0o600);
  }
  write(text: string): void {
    if (this.fd === undefined) return;
    const buf = Buffer.from(text, 'utf8');
    const room = this.max - this.bytes;
    const part = buf.length <= room ? buf : buf.subarray(0, Math.max(0, room));
    if (part.length) writeSync(this.fd, part);
    this.bytes += part.length;
    this.dropped += buf.length - part.length;
  }
  /** The trailer is written past the cap: the file always says how the command ended. */
  end(trailer: string): void {
    if (this.fd === undefined) return;
    if (this.dropped)
      writeSync(this.fd, `\n[output truncated: ${this.dropped} bytes past the ${this.max}-byte cap were discarded]`);
    writeSync(this.fd, trailer);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** How a background command ended, in its file's trailer and in the registry's notification. */
function settle(
  registry: TaskRegistry,
  rec: TaskRecord,
  file: CappedFile,
  r: BashRunResult,
  timeoutMs: number,
  timedOut = r.timedOut,
): void {
  const code = exitCodeOf(r.exitCode, r.signal);
  const sep = '\n';
  if (r.violations.length) file.write(violationNote(r.violations));
  if (timedOut) {
    file.end(`${sep}[timed out after ${timeoutMs} ms; exited with code ${code}]\n`);
    registry.finish(rec.id, {
      status: 'failed',
      summary: `Background command "${rec.description}" timed out after ${timeoutMs} ms`,
      exitCode: r.exitCode,
    });
  } else if (r.aborted) {
    file.end(`${sep}[stopped]\n`);
    registry.finish(rec.id, { status: 'stopped', summary: stoppedSummary(rec), exitCode: r.exitCode });
  } else {
    file.end(`${sep}[exited with code ${code}]\n`);
    registry.finish(rec.id, {
      status: code === 0 ? 'completed' : 'failed',
      summary: shellSummary(rec.description, code),
      exitCode: code,
    });
  }
}

function failed(registry: TaskRegistry, rec: TaskRecord, file: CappedFile, err: unknown): void {
  file.end(`\n[failed: ${err instanceof Error ? err.message : String(err)}]\n`);
  registry.finish(rec.id, { status: 'failed', summary: `Background command "${rec.description}" failed to start` });
}

export function createBackgroundShellService(
  registry: TaskRegistry,
  opts: { maxFileBytes?: number } = {},
): Required<BackgroundShellService> {
  return {
    async start(command, o) {
      const description = o.description?.trim() || command;
      const rec = registry.register('local_bash', { description, toolUseId: o.toolUseId, command });
      const file = new CappedFile(rec.outputFile, opts.maxFileBytes ?? BG_MAX_FILE_BYTES);
      const timeoutMs = Math.min(Math.max(1, o.timeoutMs ?? BG_DEFAULT_TIMEOUT_MS), BG_MAX_TIMEOUT_MS);
      void runBashCommand(command, {
        sandbox: o.sandbox,
        disableSandbox: o.disableSandbox,
        commandId: o.toolUseId || rec.id,
        cwd: o.cwd,
        signal: rec.abort.signal,
        timeoutMs,
        maxOutputChars: 4096,
        onOutput: (chunk) => file.write(chunk),
      }).then(
        (r) => settle(registry, rec, file, r, timeoutMs),
        (err: unknown) => failed(registry, rec, file, err),
      );
      return { taskId: rec.id, outputFile: rec.outputFile };
    },
    adopt(command, o) {
      const description = o.description?.trim() || command;
      const rec = registry.register('local_bash', { description, toolUseId: o.toolUseId, command });
      const file = new CappedFile(rec.outputFile, opts.maxFileBytes ?? BG_MAX_FILE_BYTES);
      file.write(o.outputSoFar);
      rec.abort.signal.addEventListener('abort', () => o.abort.abort(), { once: true });
      return {
        taskId: rec.id,
        outputFile: rec.outputFile,
        write: (chunk) => file.write(chunk),
        settle: (r, timedOut) => settle(registry, rec, file, r, o.timeoutMs, timedOut),
        fail: (err) => failed(registry, rec, file, err),
      };
    },
  };
}

export function shellSummary(description: string, code: number): string {
  return code === 0
    ? `Background command "${description}" completed (exit code 0)`
    : `Background command "${description}" failed with exit code ${code}`;
}
