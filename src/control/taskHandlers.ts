// Control requests about background tasks: stop_task stops one (a background shell, subagent or
// teammate) and answers once it has reported `stopped`. background_tasks (moving a running
// foreground call to the background, Ctrl+B) is not built: the channel's error says so.
import { z } from 'zod';
import type { TaskRegistry } from '../tasks/registry.js';
import type { ControlChannel } from './channel.js';

const stopTaskSchema = z.object({ task_id: z.string({ error: 'stop_task: task_id must be a string' }).min(1, 'stop_task: task_id must not be empty') });

export function registerTaskControlHandlers(channel: ControlChannel, registry: TaskRegistry): void {
  channel.on('stop_task', async (req) => {
    const parsed = stopTaskSchema.safeParse(req);
    if (!parsed.success) throw new Error(parsed.error.issues[0].message);
    const id = parsed.data.task_id;
    const rec = registry.get(id);
    if (!rec) throw new Error(`stop_task: no task with id ${id}`);
    if (rec.status !== 'running') throw new Error(`stop_task: task ${id} is not running (it ${rec.status})`);
    await registry.stop(rec.id);
    return {};
  });
  channel.on('background_tasks', () => {
    throw new Error('background_tasks is not supported: a running foreground call cannot be moved to the background; start it with run_in_background instead');
  });
}
