// TaskStop: stop a running background task — a shell's whole process group, or a subagent.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';
import { taskControl } from './taskOutput.js';

export const taskStopInputSchema = lazySchema(() =>
  z.object({
    task_id: z.string().optional().describe('The ID of the background task to stop'),
    shell_id: z.string().optional().describe('Deprecated: use task_id instead'),
  }),
);

export const TaskStopTool = defineTool({
  name: 'TaskStop',
  deferred: true,
  description: `Stops a running background task by its id (a shell started with Bash run_in_background, or an agent started with Agent run_in_background; a teammate by its id or its name). A shell is killed with every process it started. The task's notification then reports it as stopped.`,
  inputSchema: taskStopInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    const id = input.task_id ?? input.shell_id;
    if (!id) throw new ToolError('The required parameter `task_id` is missing');
    const svc = taskControl(ctx);
    const t = svc.get(id);
    if (!t) throw new ToolError(`No task found with ID: ${id}`);
    if (t.status !== 'running') throw new ToolError(`Task ${id} is not running (status: ${t.status})`);
    // A teammate may be named instead of its id: from here on, its id.
    await svc.stop(t.id);
    svc.markSeen(t.id);
    const label = t.command ?? t.description;
    const message = `Successfully stopped task: ${t.id} (${label})`;
    return { content: message, data: { message, task_id: t.id, task_type: t.kind, command: label } };
  },
});
