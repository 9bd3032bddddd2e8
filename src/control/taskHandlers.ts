// Control requests about background tasks: stop_task stops one (a background shell, subagent or
// teammate) and answers once it has reported `stopped`; background_tasks moves the main thread's
// running blocking Bash calls and subagents to the background (Ctrl+B in the reference).
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { TaskRegistry } from '../tasks/registry.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from '../../tools/foreground.js';
import type { ForegroundTasks } from '../tasks/foreground.js';
import type { ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';

const stopTaskSchema = lazySchema(() =>
  z.object({
    task_id: z.string({ error: 'stop_task: task_id must be a string' }).min(1, 'stop_task: task_id must not be empty'),
  }),
);
const backgroundTasksSchema = lazySchema(() =>
  z.object({
    tool_use_id: z
      .string({ error: 'background_tasks: tool_use_id must be a string' })
      .min(1, 'background_tasks: tool_use_id must not be empty')
      .nullish(),
  }),
);

export function registerTaskControlHandlers(
  channel: ControlChannel,
  registry: TaskRegistry,
  foreground: ForegroundTasks,
  env: NodeJS.ProcessEnv = process.env,
): void {
  channel.on('stop_task', async (req) => {
    const id = parseControlRequest(stopTaskSchema, req, 'stop_task').task_id;
    const rec = registry.get(id);
    if (!rec) throw new Error(`stop_task: no task with id ${id}`);
    if (rec.status !== 'running') throw new Error(`stop_task: task ${id} is not running (it ${rec.status})`);
    await registry.stop(rec.id);
    return {};
  });
  // As sdk.d.ts documents: with tool_use_id, false when no foreground task has it; without,
  // everything in the foreground moves (true, also when nothing was running).
  channel.on('background_tasks', (req) => {
    const parsed = parseControlRequest(backgroundTasksSchema, req, 'background_tasks');
    if (backgroundTasksDisabled(env))
      throw new Error(`background_tasks: ${BACKGROUND_DISABLED_MESSAGE}; nothing was moved`);
    const id = parsed.tool_use_id ?? undefined;
    const moved = foreground.background(id);
    return { backgrounded: id === undefined ? true : moved > 0 };
  });
}
