// TaskOutput: the output and status of a background task (a shell or a subagent), optionally
// waiting until it ends or the timeout passes.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export type BackgroundTaskStatus = 'running' | 'completed' | 'failed' | 'stopped';

/** A background task as tools see it. */
export interface BackgroundTaskView {
  id: string;
  kind: 'local_bash' | 'local_agent' | 'in_process_teammate' | 'local_workflow';
  status: BackgroundTaskStatus;
  description: string;
  command?: string;
  outputFile: string;
  exitCode?: number | null;
  /** A subagent's final text (once it has ended). */
  resultText?: string;
}

/** What the session implements (src/tasks) and hands to tools as `ctx.services.tasks`. */
export interface TaskControlService {
  get(id: string): BackgroundTaskView | undefined;
  /** Resolves when the task has ended, the timeout passed or the signal fired. */
  wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** The task's output so far (the tail, capped). */
  readOutput(id: string, maxChars: number): string;
  /** Stop it (the whole process group for a shell, an abort for an agent); resolves once it ended. */
  stop(id: string): Promise<BackgroundTaskView | undefined>;
  /** The model has learned how the task ended: no separate notice needed. */
  markSeen(id: string): void;
}

export function taskControl(ctx: ToolContext): TaskControlService {
  const svc = ctx.services?.tasks;
  if (!svc) throw new ToolError('Background tasks are not available in this context');
  return svc;
}

export const TASK_OUTPUT_DEFAULT_TIMEOUT_MS = 30_000;
export const TASK_OUTPUT_MAX_TIMEOUT_MS = 600_000;
export const TASK_OUTPUT_MAX_CHARS = 30_000;

export const taskOutputInputSchema = lazySchema(() =>
  z.object({
    task_id: z.string().describe('The ID of the background task to read'),
    block: z.boolean().default(true).describe('Whether to wait for the task to finish (default true)'),
    timeout: z
      .number()
      .min(0)
      .max(TASK_OUTPUT_MAX_TIMEOUT_MS)
      .default(TASK_OUTPUT_DEFAULT_TIMEOUT_MS)
      .describe(
        `How long to wait, in ms (default ${TASK_OUTPUT_DEFAULT_TIMEOUT_MS}, at most ${TASK_OUTPUT_MAX_TIMEOUT_MS})`,
      ),
  }),
);

export const TaskOutputTool = defineTool({
  name: 'TaskOutput',
  description: `Reads the output and status of a background task: a shell started with Bash run_in_background, or an agent started with Agent run_in_background.

- task_id: the id the launching call returned.
- block (default true): wait until the task ends, at most \`timeout\` ms (default ${TASK_OUTPUT_DEFAULT_TIMEOUT_MS}, max ${TASK_OUTPUT_MAX_TIMEOUT_MS}); with block=false it answers at once.
- A shell's output is its combined stdout and stderr so far (the last ${TASK_OUTPUT_MAX_CHARS} characters); an agent's is its final report once done.
- You are also notified by yourself when a background task ends, so there is no need to poll.`,
  inputSchema: taskOutputInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(input, ctx) {
    const svc = taskControl(ctx);
    const before = svc.get(input.task_id);
    if (!before) throw new ToolError(`No task found with ID: ${input.task_id}`);
    if (input.block && before.status === 'running') await svc.wait(input.task_id, input.timeout, ctx.signal);
    const t = svc.get(input.task_id)!;
    const ended = t.status !== 'running';
    const retrieval = ended ? 'success' : input.block ? 'timeout' : 'not_ready';
    const output =
      t.kind === 'local_agent' && ended && t.resultText !== undefined
        ? t.resultText
        : svc.readOutput(t.id, TASK_OUTPUT_MAX_CHARS);
    if (ended) svc.markSeen(t.id);
    const lines = [
      `<retrieval_status>${retrieval}</retrieval_status>`,
      `<task_id>${t.id}</task_id>`,
      `<task_type>${t.kind}</task_type>`,
      `<status>${t.status}</status>`,
    ];
    if (t.exitCode !== undefined && t.exitCode !== null) lines.push(`<exit_code>${t.exitCode}</exit_code>`);
    lines.push(
      output.trim() ? `<output>\n${output.replace(/\s+$/, '')}\n</output>` : '<output>(no output yet)</output>',
    );
    return {
      content: lines.join('\n'),
      data: {
        retrieval_status: retrieval,
        task: {
          task_id: t.id,
          task_type: t.kind,
          status: t.status,
          description: t.description,
          output,
          ...(t.exitCode !== undefined ? { exitCode: t.exitCode } : {}),
          output_file: t.outputFile,
        },
      },
    };
  },
});
