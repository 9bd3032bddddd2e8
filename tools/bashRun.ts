// The one way a Bash command of the model runs (foreground Bash, background shells and Monitor
// alike): inside the session's sandbox (the contract's CommandSandbox, tools/sandbox.ts) when it has
// one and the command is not exempt, else as is.
import { runShellCommand, type GroupRunOptions, type GroupRunResult } from '../src/util/processGroup.js';
import { isRunning } from '../src/util/taggedProcesses.js';
import type { CommandSandbox, WrappedCommand } from './sandbox.js';

export interface BashRunOptions extends GroupRunOptions {
  /** The session's sandbox; absent when `sandbox.enabled` is off. */
  sandbox?: CommandSandbox;
  /** The call's dangerouslyDisableSandbox (honoured only where allowUnsandboxedCommands allows). */
  disableSandbox?: boolean;
  /** A unique id (the tool_use id): violations are looked up by it. */
  commandId: string;
}

export interface BashRunResult extends GroupRunResult {
  /** Ran inside the sandbox. */
  sandboxed: boolean;
  /** What the sandbox blocked (`deny openat /etc/x`, `deny network-outbound host:443 …`). */
  violations: string[];
}

export async function runBashCommand(command: string, opts: BashRunOptions): Promise<BashRunResult> {
  const { sandbox, disableSandbox, commandId, ...run } = opts;
  if (!sandbox?.sandboxes(command, disableSandbox)) {
    return { ...(await runShellCommand(command, run)), sandboxed: false, violations: [] };
  }
  let wrapped;
  try {
    wrapped = await sandbox.wrap(command, { commandId, signal: run.signal });
  } catch (err) {
    // Never fall back to running it unsandboxed.
    const message = `The sandbox could not prepare this command, so it was not run: ${(err as Error).message}`;
    return {
      stdout: '',
      stderr: message,
      combined: message,
      exitCode: 1,
      signal: null,
      timedOut: false,
      aborted: run.signal?.aborted ?? false,
      truncatedChars: 0,
      sandboxed: true,
      violations: [],
    };
  }
  let result: GroupRunResult;
  let violations: string[] = [];
  const runWrapped = (w: WrappedCommand, onOutput = run.onOutput) =>
    runShellCommand(w.command, {
      ...run,
      onOutput,
      env: { ...(run.env ?? process.env), ...w.env },
      ...(w.argv ? { argv: w.argv } : {}),
    });
  try {
    if (wrapped.argv) {
      const gate = new EntryGate(run.onOutput);
      result = await runWrapped(wrapped, run.onOutput && gate.onOutput);
      if (enteredNothing(result)) {
        // The session's network namespace ended between the check and the start (its holder was
        // killed): nothing ran. Once more; the new wrap is the runtime's own.
        await wrapped.finish();
        wrapped = await sandbox.wrap(command, { commandId, signal: run.signal });
        result = await runWrapped(wrapped);
      } else {
        gate.release();
      }
    } else {
      result = await runWrapped(wrapped);
    }
    // What the command left running lives in the sandbox's PID namespace, which the kernel tears
    // down as the command ends, a few ms after it: report only what outlives that.
    if (result.leftRunning?.length) {
      const left = await stillAlive(result.leftRunning, 500);
      result = { ...result, leftRunning: left.length ? left : undefined };
    }
  } finally {
    // Once, also when the run threw: the runtime's per-command mount points must be released.
    violations = await wrapped.finish();
  }
  return { ...result, sandboxed: true, violations };
}

/**
 * Holds a run's first stderr output back while it may still be nsenter's one line saying it could
 * not enter (then the command never ran, and its retry's output is the only one the consumer sees);
 * passes everything through as soon as it cannot be.
 */
class EntryGate {
  private held: Array<[string, 'stdout' | 'stderr']> = [];
  private text = '';
  private open = false;

  constructor(private readonly sink?: (chunk: string, stream: 'stdout' | 'stderr') => void) {}

  onOutput = (chunk: string, stream: 'stdout' | 'stderr'): void => {
    if (this.open) {
      this.sink?.(chunk, stream);
      return;
    }
    this.held.push([chunk, stream]);
    this.text += chunk;
    const mayBeEntry =
      stream === 'stderr' &&
      (NSENTER.startsWith(this.text) || (this.text.startsWith(NSENTER) && !this.text.slice(0, -1).includes('\n')));
    if (!mayBeEntry) this.release();
  };

  /** Passes on what was held, and all that follows. */
  release(): void {
    if (this.open) return;
    this.open = true;
    for (const [chunk, stream] of this.held) this.sink?.(chunk, stream);
    this.held = [];
  }
}

const NSENTER = 'nsenter: ';

/** All the run printed is nsenter failing to enter the session's namespaces: the command never started. */
function enteredNothing(r: GroupRunResult): boolean {
  return (
    r.exitCode === 1 && /^nsenter: (cannot open \/proc\/\d+\/ns\/|reassociate to namespace )[^\n]*\n?$/.test(r.combined)
  );
}

async function stillAlive(pids: number[], withinMs: number): Promise<number[]> {
  // A zombie (dead, not yet reaped) has not outlived its sandbox: only a running process counts.
  const alive = (pid: number) => isRunning(pid);
  const deadline = Date.now() + withinMs;
  let left = pids.filter(alive);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    left = left.filter(alive);
  }
  return left;
}

/** The note a tool result carries when the sandbox blocked something, so the model can adapt. */
export function violationNote(violations: string[]): string {
  if (violations.length === 0) return '';
  const shown = violations.slice(0, 20);
  const more = violations.length > shown.length ? `\n… and ${violations.length - shown.length} more` : '';
  return `\n<sandbox_violations>\nThe sandbox blocked (writes outside the allowed folders, network outside the allowed domains):\n${shown.join('\n')}${more}\n</sandbox_violations>`;
}
