// Plan mode: EnterPlanMode puts the session in the `plan` permission mode (only read-only tools
// run); ExitPlanMode presents the plan for approval and, once the user approves, leaves it.
// The approval itself is the permission step (can_use_tool to the host, a question at the
// terminal): the tool only runs when the user said yes.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

/** What the plan-mode tools need of the session: its permission mode, and the plan-mode prompt. */
export interface PlanModeService {
  mode(): string;
  /** Switch to plan mode, remembering the mode to return to. */
  enter(): void;
  /** Leave plan mode (unless the user's answer already chose another mode); returns the new mode. */
  exit(): string;
  /** The reminder that tells the model how plan mode works (with the host's planModeInstructions). */
  reminder(): string;
}

function service(ctx: ToolContext): PlanModeService {
  const s = ctx.services?.planMode;
  if (!s) throw new ToolError('Plan mode is not available in this context.');
  return s;
}

const DEFAULT_PLAN_WORKFLOW = `1. Understand the request: read the relevant code with the read-only tools (Read, Glob, Grep, read-only Bash commands). Ask the user with AskUserQuestion when a choice is theirs to make.
2. Design the change: which files, in which order, what could break, how it will be tested.
3. Write the plan: concise and concrete, naming the files and the steps.`;

/** The system reminder of plan mode: read-only preamble, the workflow (the host's if given), the exit protocol. */
export function planModeReminder(instructions?: string): string {
  const body = instructions && instructions.trim() !== '' ? instructions.trim() : DEFAULT_PLAN_WORKFLOW;
  return `<system-reminder>
Plan mode is active. You MUST NOT make any changes yet: do not edit or write files, do not run commands that change anything, do not change configuration or make commits. Only read-only tools run; other calls are refused. This overrides any other instruction you have received.

${body}

When your plan is ready, call ExitPlanMode with the plan (Markdown) to ask the user to approve it. Do not ask for approval in any other way. If the user does not approve, stay in plan mode and revise the plan as they say.
</system-reminder>`;
}

export const ENTER_PLAN_MODE_DESCRIPTION = `Switches the session to plan mode, for a task that needs exploring and designing before any change: a new feature, a change across several files, a choice between approaches.

In plan mode only read-only tools run. Research the code, then present your plan with ExitPlanMode for the user's approval; after approval you can make the changes. Skip it for small, clear tasks.`;

export const enterPlanModeInputSchema = lazySchema(() => z.object({}));

export const EnterPlanModeTool = defineTool({
  name: 'EnterPlanMode',
  description: ENTER_PLAN_MODE_DESCRIPTION,
  inputSchema: enterPlanModeInputSchema,
  // It only restricts what the session may do: nothing to ask about.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  kind: 'think',
  async *call(_input, ctx) {
    const s = service(ctx);
    const already = s.mode() === 'plan';
    if (!already) s.enter();
    const message = already
      ? 'The session is already in plan mode.'
      : 'Entered plan mode. Explore the code and design your plan; make no changes yet.';
    return { content: `${message}\n\n${s.reminder()}`, data: { message } };
  },
});

export const EXIT_PLAN_MODE_DESCRIPTION = `Presents your plan to the user for approval and, once they approve, leaves plan mode so you can carry it out.

Usage:
- Only in plan mode, once the plan is complete; the plan parameter holds it in Markdown, concise and concrete.
- The user reads the plan and approves it or not. If not, you get their feedback: revise the plan and call ExitPlanMode again.
- Use it for tasks that need code changes, not for research questions. Do not ask "is this plan okay?" another way: this tool is how.`;

export const exitPlanModeInputSchema = lazySchema(() =>
  z.object({
    plan: z.string().min(1).describe('The plan to present to the user for approval, in Markdown.'),
    allowedPrompts: z
      .array(
        z.object({
          tool: z.literal('Bash').describe('The tool this prompt applies to'),
          prompt: z.string().describe('Semantic description of the action, e.g. "run tests", "install dependencies"'),
        }),
      )
      .optional()
      .describe('Deprecated: no longer used.'),
  }),
);

/** The SDK's ExitPlanModeOutput. */
export interface ExitPlanModeOutput {
  plan: string | null;
  isAgent: boolean;
}

export const ExitPlanModeTool = defineTool({
  name: 'ExitPlanMode',
  description: EXIT_PLAN_MODE_DESCRIPTION,
  inputSchema: exitPlanModeInputSchema,
  requiresUserInteraction: true,
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  kind: 'think',
  refuseInMode: (mode) =>
    mode === 'plan'
      ? undefined
      : {
          message:
            'ExitPlanMode is only for leaving plan mode, and the session is not in plan mode: go ahead with the task.',
          reason: 'not in plan mode',
        },
  async *call(input, ctx) {
    const mode = service(ctx).exit();
    const data: ExitPlanModeOutput = { plan: input.plan, isAgent: false };
    return {
      content: `User has approved your plan. The session left plan mode (permission mode now: ${mode}); you can now start making the changes. Start by updating your todo list if applicable.\n\n## Approved Plan:\n${input.plan}`,
      data,
    };
  },
});
