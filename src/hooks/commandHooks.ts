// Command hooks from settings: the input JSON on stdin, the command in its own process group,
// killed with its children at the timeout. Exit 0 → output; 2 → block; else a warning.
import { runShellCommand } from '../util/processGroup.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type HookEvent, type HookResult } from './events.js';
import { resultFromStdout } from './parseOutput.js';

export interface CommandHookSpec {
  command: string;
  /** Seconds. */
  timeout?: number;
  async?: boolean;
  /** Set for this hook only (a plugin's CLAUDE_PLUGIN_ROOT). */
  env?: Record<string, string>;
}

export interface CommandHookRunOptions {
  event: HookEvent;
  input: object;
  cwd: string;
  signal: AbortSignal;
  warn: (msg: string) => void;
  defaultTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Sees the command's raw outcome (for --include-hook-events' hook_response). */
  observe?: (raw: {
    stdout: string;
    stderr: string;
    exitCode: number | null;
    outcome: 'success' | 'error' | 'cancelled';
  }) => void;
  /** Sees the command's output as it comes (for --include-hook-events' hook_progress). */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
}

const MAX_OUTPUT = 100_000;

function firstLine(s: string): string {
  const t = s.trim();
  const line = t.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

export async function runCommandHook(hook: CommandHookSpec, opts: CommandHookRunOptions): Promise<HookResult> {
  const timeoutMs =
    hook.timeout !== undefined ? hook.timeout * 1000 : (opts.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
  const who = `${opts.event} hook \`${hook.command}\``;
  const r = await runShellCommand(hook.command, {
    cwd: opts.cwd,
    env: { ...(opts.env ?? process.env), CLAUDE_PROJECT_DIR: opts.cwd, ...hook.env },
    stdin: JSON.stringify(opts.input),
    timeoutMs,
    signal: opts.signal,
    maxOutputChars: MAX_OUTPUT,
    onOutput: opts.onOutput,
  });
  opts.observe?.({
    stdout: r.stdout,
    stderr: r.stderr,
    exitCode: r.exitCode,
    outcome: r.aborted || r.timedOut ? 'cancelled' : r.exitCode === 0 ? 'success' : 'error',
  });
  if (r.aborted) return { kind: 'none' };
  if (r.timedOut) {
    opts.warn(`${who} timed out after ${timeoutMs / 1000}s and was killed; going on without it`);
    return { kind: 'none' };
  }
  if (r.exitCode === 0) return resultFromStdout(r.stdout, who, opts.warn);
  if (r.exitCode === 2) {
    const reason = r.stderr.trim() || `blocked by ${who} (exit code 2, no message on stderr)`;
    return { kind: 'block', reason };
  }
  const why = r.exitCode === null ? `was killed by ${r.signal}` : `failed with exit code ${r.exitCode}`;
  const detail = firstLine(r.stderr) || firstLine(r.stdout);
  opts.warn(`${who} ${why}${detail ? `: ${detail}` : ''} (non-blocking)`);
  return { kind: 'none' };
}
