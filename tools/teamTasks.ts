// TaskCreate, TaskGet, TaskUpdate, TaskList: the team's shared task list (the reference's tools of
// the same names and inputs, sdk-tools.d.ts). A lead or a program (claude-code-controller) creates
// and assigns tasks; a teammate claims one (owner + in_progress), does it, and marks it completed.
// The list itself lives in src/teams/taskList.ts; tools reach it through `ctx.services.taskList`.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export const TASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** One task file, in the reference's shape. */
export const teamTaskSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    subject: z.string(),
    description: z.string(),
    activeForm: z.string().optional(),
    owner: z.string().optional(),
    status: z.enum(TASK_STATUSES),
    blocks: z.array(z.string()).default([]),
    blockedBy: z.array(z.string()).default([]),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
);
export type TeamTask = z.infer<typeof teamTaskSchema>;

export const taskUpdateInputSchema = lazySchema(() =>
  z.object({
    taskId: z.string().min(1).describe('The ID of the task to change'),
    subject: z.string().optional().describe('A new title'),
    description: z.string().optional().describe('A new description'),
    activeForm: z.string().optional().describe('What is shown while it is in progress, e.g. "Running the tests"'),
    status: z
      .enum([...TASK_STATUSES, 'deleted'])
      .optional()
      .describe('The new status; "deleted" removes the task'),
    addBlocks: z.array(z.string()).optional().describe('IDs of tasks that cannot start until this one is done'),
    addBlockedBy: z.array(z.string()).optional().describe('IDs of tasks that must be done before this one'),
    owner: z.string().optional().describe('Who works on it (an agent name)'),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Keys to merge into its metadata; null removes a key'),
  }),
);
export type TaskUpdateInput = z.infer<typeof taskUpdateInputSchema>;

export interface TaskListService {
  create(input: {
    subject: string;
    description: string;
    activeForm?: string;
    metadata?: Record<string, unknown>;
  }): Promise<TeamTask>;
  get(id: string): TeamTask | null;
  list(): TeamTask[];
  update(
    input: TaskUpdateInput,
  ): Promise<{ task: TeamTask | null; updatedFields: string[]; statusChange?: { from: string; to: string } }>;
}

function taskList(ctx: ToolContext): TaskListService {
  const svc = ctx.services?.taskList;
  if (!svc) throw new ToolError('There is no team task list in this session');
  return svc;
}

export const TaskCreateTool = defineTool({
  name: 'TaskCreate',
  description: `Add a task to the team's shared task list. It starts as pending, with no owner.
- subject: a short title; description: what has to be done, with what a teammate needs to do it.
- activeForm (optional): what is shown while it is in progress ("Running the tests").
Returns the new task's id.`,
  inputSchema: lazySchema(() =>
    z.object({
      subject: z.string().min(1).describe('A short title'),
      description: z.string().describe('What has to be done'),
      activeForm: z.string().optional().describe('What is shown while it is in progress'),
      metadata: z.record(z.string(), z.unknown()).optional().describe('Any data to keep with the task'),
    }),
  ),
  isReadOnly: () => true, // the team's own state, not the user's files
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    const task = await taskList(ctx).create(input);
    return {
      content: `Task #${task.id} created: ${task.subject}`,
      data: { task: { id: task.id, subject: task.subject, description: task.description } },
    };
  },
});

export const TaskGetTool = defineTool({
  name: 'TaskGet',
  description: `Read one task of the team's task list in full: subject, description, status, owner, and the tasks it blocks or waits for.`,
  inputSchema: lazySchema(() => z.object({ taskId: z.string().min(1).describe('The ID of the task') })),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(input, ctx) {
    const task = taskList(ctx).get(input.taskId);
    if (!task) return { content: `Task #${input.taskId} not found`, data: { task: null } };
    const lines = [
      `Task #${task.id}: ${task.subject}`,
      `Status: ${task.status}${task.owner ? ` (owner: ${task.owner})` : ''}`,
      `Description: ${task.description}`,
      ...(task.blockedBy.length ? [`Blocked by: ${task.blockedBy.map((i) => `#${i}`).join(', ')}`] : []),
      ...(task.blocks.length ? [`Blocks: ${task.blocks.map((i) => `#${i}`).join(', ')}`] : []),
    ];
    const { id, subject, description, status, blocks, blockedBy } = task;
    return { content: lines.join('\n'), data: { task: { id, subject, description, status, blocks, blockedBy } } };
  },
});

export const TaskUpdateTool = defineTool({
  name: 'TaskUpdate',
  description: `Change a task of the team's task list.
- To take a task: set owner to your name and status to in_progress (only a pending task with no owner, or one you own).
- When it is done: status completed. Then tell whoever assigned it, and look for the next task with TaskList.
- status "deleted" removes a task; addBlocks / addBlockedBy record which tasks wait for which.`,
  inputSchema: taskUpdateInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    const out = await taskList(ctx).update(input);
    if (!out.task && input.status !== 'deleted') throw new ToolError(`Task #${input.taskId} not found`);
    const data = {
      success: true,
      taskId: input.taskId,
      updatedFields: out.updatedFields,
      ...(out.statusChange ? { statusChange: out.statusChange } : {}),
    };
    const what = out.updatedFields.length ? out.updatedFields.join(', ') : 'nothing';
    return { content: `Updated task #${input.taskId}: ${what}`, data };
  },
});

export const TaskListTool = defineTool({
  name: 'TaskList',
  description: `List the team's tasks: id, subject, status, owner, and what each waits for. A pending task with no owner and nothing blocking it can be taken.`,
  inputSchema: lazySchema(() => z.object({})),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(_input, ctx) {
    const tasks = taskList(ctx).list();
    const open = new Set(tasks.filter((t) => t.status !== 'completed').map((t) => t.id));
    const rows = tasks.map((t) => ({
      id: t.id,
      subject: t.subject,
      status: t.status,
      ...(t.owner ? { owner: t.owner } : {}),
      blockedBy: t.blockedBy.filter((b) => open.has(b)),
    }));
    const content = rows.length
      ? rows
          .map(
            (t) =>
              `#${t.id} [${t.status}] ${t.subject}${t.owner ? ` (owner: ${t.owner})` : ''}${t.blockedBy.length ? ` (blocked by ${t.blockedBy.map((b) => `#${b}`).join(', ')})` : ''}`,
          )
          .join('\n')
      : 'No tasks';
    return { content, data: { tasks: rows } };
  },
});

export const TEAM_TASK_TOOLS = [TaskCreateTool, TaskGetTool, TaskUpdateTool, TaskListTool];
