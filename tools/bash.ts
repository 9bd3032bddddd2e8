// Bash: one shell command in its own process group, output capped in memory and spilled to a
// file when it is too big for the model.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { runBashCommand, violationNote, type BashRunResult } from './bashRun.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from './foreground.js';
import { exitCodeOf } from '../src/util/exitCode.js';
import { makeDirs } from '../src/util/makeDirs.js';
import { OutputSpill } from './outputSpill.js';
import { BASH_GIT_RULES } from './bashGitRules.js';
import type { CommandSandbox } from './sandbox.js';
import { defineTool, ToolError, type ToolContext, type ToolResult } from './tool.js';
import { isReadOnlyBashCommand } from './bashReadOnly.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** The model sees at most this many characters of output. */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** What the model sees of each end of an output too long to show whole (the rest is in the file). */
export const BASH_PREVIEW_CHARS = 2_000;
/** The full-output file stops growing here, so a runaway command cannot fill the disk... */
export const BASH_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** ...except for the output's last bytes, which it keeps after a marker. */
export const BASH_FILE_TAIL_BYTES = 64 * 1024;

export const BASH_DESCRIPTION = `Executes a given bash command and returns its output.

The working directory is the session's working directory; each command runs in a fresh shell, so \`cd\` does not carry over between calls. Prefer absolute paths.

Use the dedicated tools instead of shell equivalents where they exist: Glob to find files (not find/ls), Grep to search contents (not grep/rg), Read to read files (not cat/head/tail), Edit to change files (not sed/awk), Write to create files (not echo >/cat <<EOF).

Usage notes:
- command is required. Quote paths that contain spaces with double quotes.
- timeout is optional, in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS}). On timeout the command and every process it started are killed.
- description: a clear, concise description of what the command does, in 5-10 words.
- stdout and stderr are returned together. Output longer than ${BASH_MAX_OUTPUT_CHARS} characters is cut: you get a preview and the path of a file that holds all of it.
- A non-zero exit status is reported as an error, with "Exit code N" first.
- run_in_background: set to true to start the command in the background and return at once with a task id and an output file to read later. Do not use '&' at the end of the command for that.
- To run several independent commands, make several Bash calls in one message; to run dependent commands, chain them with '&&'.
- Stdin is closed: interactive commands (git rebase -i, editors, prompts) do not work.

${BASH_GIT_RULES}`;

/** A command as a label shows it: one line, at most 80 characters. */
function clip(command: string): string {
  const line = command.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export const bashInputSchema = lazySchema(() =>
  z.object({
    command: z.string().describe('The command to execute'),
    timeout: z.number().optional().describe(`Optional timeout in milliseconds (max ${BASH_MAX_TIMEOUT_MS})`),
    description: z
      .string()
      .optional()
      .describe('Clear, concise description of what this command does in 5-10 words, in active voice.'),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Set to true to run this command in the background. Read its output file later.'),
    dangerouslyDisableSandbox: z
      .boolean()
      .optional()
      .describe(
        'Set to true to run this command outside the sandbox (when one is on). Only where the settings allow it, and the user is always asked first; use it only when the sandbox blocked something the task needs.',
      ),
  }),
);
export type BashInput = z.infer<typeof bashInputSchema>;

/** The structured result (tool_use_result), as the SDK's BashOutput names its fields. */
export interface BashOutput {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  exitCode?: number;
  backgroundTaskId?: string;
  timedOutAfterMs?: number;
  persistedOutputPath?: string;
  persistedOutputSize?: number;
  /** The command ran outside an active sandbox because the call asked for it. */
  dangerouslyDisableSandbox?: boolean;
  /** Processes the command left running (`&`, setsid, daemons); they are killed when the session ends. */
  leftRunning?: number[];
}

/** How long a background shell may run when its call gives no timeout (the service caps longer ones). */
export const BG_DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** Background shells live beyond one call; the session provides this service (when it does). */
export interface BackgroundShellService {
  start(
    command: string,
    opts: {
      cwd: string;
      timeoutMs?: number;
      description?: string;
      toolUseId: string;
      sandbox?: CommandSandbox;
      disableSandbox?: boolean;
    },
  ): Promise<{ taskId: string; outputFile: string }>;
  /**
   * Take over a running foreground command (background_tasks): a task is registered, the output
   * so far opens its file, and stopping the task aborts `abort`. The caller feeds it the rest.
   */
  adopt?(
    command: string,
    opts: { description?: string; toolUseId: string; outputSoFar: string; abort: AbortController; timeoutMs: number },
  ): AdoptedShell;
}

/** A foreground command that now runs as a background task. */
export interface AdoptedShell {
  taskId: string;
  outputFile: string;
  /** Output from now on. */
  write(chunk: string): void;
  /** The run's end; `timedOut` when the caller's own timer stopped it. */
  settle(result: BashRunResult, timedOut: boolean): void;
  fail(err: unknown): void;
}

/** The session's sandbox (src/sandbox), when `sandbox.enabled` is on. */
function sandboxOf(ctx: ToolContext): CommandSandbox | undefined {
  const sb = ctx.services?.sandbox;
  return sb && typeof sb.wrap === 'function' ? sb : undefined;
}

/** Said in the result when the call asked to leave the sandbox and the settings do not allow it. */
function sandboxNotice(input: BashInput, sandbox: CommandSandbox | undefined): string {
  if (!input.dangerouslyDisableSandbox || !sandbox?.status.active || sandbox.allowUnsandboxedCommands) return '';
  return 'Note: dangerouslyDisableSandbox was not honoured (sandbox.allowUnsandboxedCommands is false); the command ran inside the sandbox.\n';
}

function backgroundShell(ctx: ToolContext): BackgroundShellService | undefined {
  const svc = ctx.services?.backgroundShell;
  return svc && typeof svc.start === 'function' ? svc : undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, '_') || 'bash';
}

async function startInBackground(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
  const svc = backgroundShell(ctx);
  if (!svc) throw new ToolError('run_in_background is not available in this context');
  if (backgroundTasksDisabled())
    throw new ToolError(`run_in_background: ${BACKGROUND_DISABLED_MESSAGE}; run the command without it`);
  const { taskId, outputFile } = await svc.start(input.command, {
    cwd: ctx.cwd,
    timeoutMs: input.timeout,
    description: input.description,
    toolUseId: ctx.toolUseId,
    sandbox: sandboxOf(ctx),
    disableSandbox: input.dangerouslyDisableSandbox,
  });
  const data: BashOutput = { stdout: '', stderr: '', interrupted: false, backgroundTaskId: taskId };
  return {
    content: `${sandboxNotice(input, sandboxOf(ctx))}Command running in background with ID: ${taskId}. Output is being written to: ${outputFile}`,
    data,
  };
}

export const BashTool = defineTool({
  name: 'Bash',
  description: BASH_DESCRIPTION,
  inputSchema: bashInputSchema,
  isReadOnly: () => false,
  // Read-only commands (ls, cat, grep, git status, sleep, …) run beside the turn's other such calls.
  isConcurrencySafe: (input) => !input.run_in_background && isReadOnlyBashCommand(input.command),
  kind: 'execute',
  describedBy: ['description', 'command'],
  access: (input) => ({ command: input.command, leavesSandbox: input.dangerouslyDisableSandbox === true }),
  label: (input) => `Run: ${clip(input.command)}`,
  // runShellCommand marks file activity around each command it runs.
  reportsFileActivity: true,
  async *call(input, ctx) {
    if (input.run_in_background) return await startInBackground(input, ctx);
    const timeoutMs = Math.min(Math.max(1, input.timeout ?? BASH_DEFAULT_TIMEOUT_MS), BASH_MAX_TIMEOUT_MS);

    // spawn() in a missing directory fails as "exit 127", which reads like a missing command.
    if (!isDirectory(ctx.cwd))
      throw new ToolError(
        `The working directory ${ctx.cwd} no longer exists (deleted or moved); the command was not run. Use absolute paths, or recreate the directory.`,
      );
    const spill = new OutputSpill(
      {
        inlineChars: BASH_MAX_OUTPUT_CHARS,
        previewChars: BASH_PREVIEW_CHARS,
        maxFileBytes: BASH_MAX_FILE_BYTES,
        tailBytes: BASH_FILE_TAIL_BYTES,
      },
      () => {
        makeDirs(ctx.scratchDir);
        return join(ctx.scratchDir, `bash-${safeFileName(ctx.toolUseId)}.txt`);
      },
    );
    const sandbox = sandboxOf(ctx);
    // Our own abort and timer (not the turn's signal): a host may move the command to the
    // background mid-run (background_tasks), after which the turn's end no longer stops it.
    const run = new AbortController();
    const onTurnAbort = () => run.abort();
    if (ctx.signal.aborted) run.abort();
    else ctx.signal.addEventListener('abort', onTurnAbort, { once: true });
    let timedOut = false;
    let timer = setTimeout(() => {
      timedOut = true;
      run.abort();
    }, timeoutMs);
    let adopted: AdoptedShell | undefined;
    let moved!: () => void;
    const movedToBackground = new Promise<'moved'>((r) => (moved = () => r('moved')));
    const shells = backgroundShell(ctx);
    const leave = shells?.adopt
      ? ctx.services?.foreground?.enter({
          toolUseId: ctx.toolUseId,
          kind: 'local_bash',
          background: () => {
            ctx.signal.removeEventListener('abort', onTurnAbort);
            clearTimeout(timer);
            adopted = shells.adopt!(input.command, {
              description: input.description,
              toolUseId: ctx.toolUseId,
              outputSoFar: spill.handOff(),
              abort: run,
              timeoutMs: BG_DEFAULT_TIMEOUT_MS,
            });
            spill.close();
            timer = setTimeout(() => {
              timedOut = true;
              run.abort();
            }, BG_DEFAULT_TIMEOUT_MS);
            moved();
          },
        })
      : undefined;
    const running = runBashCommand(input.command, {
      sandbox,
      disableSandbox: input.dangerouslyDisableSandbox,
      commandId: ctx.toolUseId,
      cwd: ctx.cwd,
      signal: run.signal,
      // stdout/stderr kept separately for `data` only need the preview's worth.
      maxOutputChars: BASH_MAX_OUTPUT_CHARS,
      onOutput: (chunk, stream) => (adopted ? adopted.write(chunk) : spill.push(chunk, stream)),
      findLeftovers: true,
    });
    let result: BashRunResult;
    try {
      const first = await Promise.race([running, movedToBackground]);
      if (first === 'moved') {
        const task = adopted!;
        void running.then(
          (r) => {
            clearTimeout(timer);
            task.settle(r, timedOut);
          },
          (err: unknown) => {
            clearTimeout(timer);
            task.fail(err);
          },
        );
        const data: BashOutput = { stdout: '', stderr: '', interrupted: false, backgroundTaskId: task.taskId };
        return {
          content: `${sandboxNotice(input, sandbox)}Command was moved to the background with ID: ${task.taskId}. It is still running; output is being written to: ${task.outputFile}. You will be notified when it completes.`,
          data,
        };
      }
      result = { ...first, timedOut, aborted: first.aborted && !timedOut };
    } finally {
      leave?.();
      if (!adopted) {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onTurnAbort);
        spill.close();
      }
    }

    const stdout = result.stdout.trimEnd();
    const stderr = result.stderr.trimEnd();
    let body = spill.text().replace(/\s+$/, '');
    const left = result.leftRunning ?? [];
    if (left.length) {
      const n = left.length === 1 ? '1 process' : `${left.length} processes`;
      body += `${body ? '\n\n' : ''}The command left ${n} running (pid${left.length === 1 ? '' : 's'} ${left.join(', ')}); they are killed when the session ends.`;
    }
    body = sandboxNotice(input, sandbox) + body + violationNote(result.violations);

    const data: BashOutput = {
      stdout,
      stderr,
      interrupted: result.aborted || result.timedOut,
      ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
      ...(result.timedOut ? { timedOutAfterMs: timeoutMs } : {}),
      ...(spill.spilled && spill.filePath
        ? { persistedOutputPath: spill.filePath, persistedOutputSize: spill.fileSize }
        : {}),
      ...(left.length ? { leftRunning: left } : {}),
      ...(input.dangerouslyDisableSandbox && sandbox?.status.active && !result.sandboxed
        ? { dangerouslyDisableSandbox: true }
        : {}),
    };

    if (result.aborted) {
      const text = body ? `${body}\n` : '';
      return { content: `${text}Command was interrupted (aborted); its processes were killed.`, isError: true, data };
    }
    if (result.timedOut) {
      const text = body ? `${body}\n` : '';
      return {
        content: `${text}Command timed out after ${timeoutMs} ms; its processes were killed.`,
        isError: true,
        data,
      };
    }
    const code = exitCodeOf(result.exitCode, result.signal);
    if (code !== 0) {
      const why = result.exitCode === null && result.signal ? ` (killed by ${result.signal})` : '';
      return { content: `Exit code ${code}${why}${body ? `\n${body}` : ''}`, isError: true, data };
    }
    return { content: body || '(Bash completed with no output)', data };
  },
});
