// Workflow: run a script that orchestrates subagents, in the background. Offered only when the user
// opted in (src/workflows/optIn.ts); the session's workflow service (src/workflows) parses the
// script, registers the run as a task and runs it. The tool checks the input and reads a script
// file; the model hears of the end through the task's notification.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from './foreground.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export const WORKFLOW_TOOL_NAME = 'Workflow';

export interface WorkflowLaunch {
  taskId: string;
  runId: string;
  workflowName: string;
  summary: string;
  transcriptDir: string;
  scriptPath: string;
}

/** What the session implements (src/workflows/service.ts) and hands to tools as `ctx.services.workflows`. */
export interface WorkflowService {
  /**
   * Check the script and start it in the background. `inline`: the model wrote it in this call
   * (clock and chance are refused up front). Throws ToolError naming what is wrong with it.
   */
  launch(
    req: { script: string; args?: unknown; scriptPath?: string; inline: boolean },
    ctx: ToolContext,
  ): Promise<WorkflowLaunch>;
}

export const workflowInputSchema = lazySchema(() =>
  z
    .object({
      script: z
        .string()
        .optional()
        .describe(
          'The workflow script, whole: `export const meta = { name, description, phases }` first (a plain literal), then the JavaScript body that calls agent(), parallel(), pipeline(), phase() and log().',
        ),
      name: z
        .string()
        .optional()
        .describe('The name of a saved workflow. Saved workflows are not available in this runtime: pass `script`.'),
      description: z.string().optional().describe('Not used: the description is meta.description in the script.'),
      title: z.string().optional().describe('Not used: a title goes in the script’s meta.'),
      args: z
        .unknown()
        .optional()
        .describe(
          'A value the script reads as the global `args`, as given. Pass arrays and objects as JSON values, not as a string holding JSON.',
        ),
      scriptPath: z
        .string()
        .optional()
        .describe(
          'A script file to run instead of `script` (every run saves its script and the result names the file: edit it and run it again by path).',
        ),
      resumeFromRunId: z
        .string()
        .regex(/^wf_[a-z0-9-]{6,}$/)
        .optional()
        .describe('The run id of an earlier run to resume from. Resuming is not available in this runtime.'),
    })
    .refine((i) => i.script !== undefined || i.name !== undefined || i.scriptPath !== undefined, {
      message: 'Must provide script, name, or scriptPath',
    }),
);

export type WorkflowInput = z.infer<typeof workflowInputSchema>;

/** The description, with this machine's concurrency. */
export function workflowDescription(concurrency: number): string {
  return `Run a workflow: a short JavaScript program that starts subagents and combines their answers, with the control flow (loops, branches, fan-out, retries) in code rather than in your turns. It runs in the background: this call returns at once with a task id, and a <task-notification> brings the script's return value (or its error) when it ends. TaskStop stops it.

Use it only when the user asked for a workflow or for orchestrating many agents in their own words. When a task would merely gain from it, use the Agent tool, or describe the workflow you would run (what it fans out over, roughly how many agents) and ask first.

The script starts with its meta, a plain literal (no variables, calls or interpolation):
  export const meta = {
    name: 'review-diff',
    description: 'Review each changed file, then check every finding',
    phases: [{ title: 'Review' }, { title: 'Check' }],
  }
The body follows: plain JavaScript (not TypeScript) that runs inside an async function, so it may use await and return at its top level. What it returns is the result you are sent.

What the body can call:
- agent(prompt, opts?) → Promise: starts one subagent with \`prompt\` as its task and resolves to its final message (a string). opts: {label, phase, schema, model, agentType}. With \`schema\` (a JSON schema whose root is {type: 'object', properties}) the agent must answer through a StructuredOutput tool and agent() resolves to that object. It resolves to null when the agent fails; a wrong option rejects. \`label\` names the agent in progress lines, \`phase\` puts it under a phase, \`model\` picks another model, \`agentType\` a named agent type instead of the plain workflow agent.
- parallel(thunks) → Promise<array>: runs functions such as () => agent(...) at the same time and waits for all; one that throws gives null in its place (filter with .filter(Boolean)).
- pipeline(items, stage1, stage2, ...) → Promise<array>: runs each item through the stages on its own, without waiting for the other items between stages; each stage gets (previous result, item, index). A stage that throws gives null for that item. Prefer it to parallel() between stages unless a stage needs all results of the one before.
- phase(title): later agent() calls belong to this phase (use the titles of meta.phases). log(...values): a progress line for the user; console.log does the same.
- args: the Workflow call's \`args\` value. budget.spent(): output tokens the run's agents used so far (budget.total is null).

Rules: at most ${concurrency} agents run at once (more wait their turn), at most 1000 agent() calls per run, at most 1000 items per parallel() or pipeline() call. The script reaches nothing but these: no files, no network, no require or import. Date.now(), Math.random() and new Date() are not available (a run must not depend on the clock or on chance): pass a time in through args if you need one. Agents read the same project instructions you do; give each the specific task and the facts it needs, and ask for answers the script can use (JSON when it will parse them).

Example:
  export const meta = { name: 'todo-sweep', description: 'Find TODOs per package and rank them' }
  const found = await pipeline(args.packages,
    (pkg) => agent(\`List the TODO comments in \${pkg} as JSON [{file, line, text}]\`, { label: pkg }),
    (json, pkg) => ({ pkg, todos: JSON.parse(json) }))
  return found.filter(Boolean)`;
}

/** What the model reads when Workflow is not offered (tools/registry.ts's unknown-tool result). */
export const WORKFLOW_OFF_NOTE =
  'Workflows are off for this session: the user turns them on with "enableWorkflows": true in their settings, or CLAUDE_CODE_WORKFLOWS=1 in the environment.';

/** `args` sent as a string that holds JSON (a model's slip): the value it holds. */
function coerceArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const t = args.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

export function createWorkflowTool(concurrency: number) {
  return defineTool({
    name: WORKFLOW_TOOL_NAME,
    description: workflowDescription(concurrency),
    inputSchema: workflowInputSchema,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    label: (input) => {
      const m = /description\s*:\s*(['"`])(.*?)\1/.exec(input.script ?? '');
      return `Workflow: ${m?.[2] ?? input.scriptPath ?? input.name ?? 'script'}`;
    },
    async *call(input, ctx) {
      const svc = ctx.services?.workflows;
      if (!svc) throw new ToolError('Workflow is not available here: only the main conversation can start a workflow.');
      // A workflow only ever runs in the background, so it has no foreground form to fall back on.
      if (backgroundTasksDisabled()) throw new ToolError(`Workflow: ${BACKGROUND_DISABLED_MESSAGE}`);
      if (input.resumeFromRunId !== undefined)
        throw new ToolError(
          'resumeFromRunId: resuming a run is not available in this runtime. Start a new run (without resumeFromRunId).',
        );
      if (input.name !== undefined && input.scriptPath === undefined)
        throw new ToolError(
          `name: saved workflows are not available in this runtime, so "${input.name}" cannot be looked up. Pass the script itself in \`script\`.`,
        );
      if (input.script !== undefined && input.scriptPath !== undefined)
        throw new ToolError('Give either `script` or `scriptPath`, not both.');
      let script = input.script;
      let scriptPath: string | undefined;
      if (input.scriptPath !== undefined) {
        scriptPath = isAbsolute(input.scriptPath) ? input.scriptPath : resolve(ctx.cwd, input.scriptPath);
        try {
          script = await readFile(scriptPath, 'utf8');
        } catch (err) {
          throw new ToolError(
            `scriptPath: cannot read ${scriptPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          );
        }
        if (!script.trim()) throw new ToolError(`scriptPath: ${scriptPath} is empty`);
      }
      const run = await svc.launch(
        { script: script ?? '', args: coerceArgs(input.args), scriptPath, inline: input.scriptPath === undefined },
        ctx,
      );
      const content = [
        `Workflow started in the background as task ${run.taskId} (run ${run.runId}).`,
        `Summary: ${run.summary}`,
        `Script file: ${run.scriptPath} (to change the script, edit this file and call Workflow with {scriptPath} instead of sending it again).`,
        `Agent transcripts and journal: ${run.transcriptDir}`,
        '',
        'You will get a <task-notification> with its result when it ends: go on with other work meanwhile, and do not poll it. TaskStop with the task id stops it.',
      ].join('\n');
      return {
        content,
        data: {
          status: 'async_launched',
          taskId: run.taskId,
          taskType: 'local_workflow',
          workflowName: run.workflowName,
          runId: run.runId,
          summary: run.summary,
          transcriptDir: run.transcriptDir,
          scriptPath: run.scriptPath,
        },
      };
    },
  });
}
