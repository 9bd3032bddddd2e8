// ScheduleWakeup: the model paces a /loop itself. Each iteration ends by asking to be woken after
// a delay it picks (or by stopping the loop); the wakeup fires the /loop prompt again as a user
// turn when the session is idle. Kept by the session's schedule (tools/cron.ts, src/tasks/scheduler.ts).
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { localTime, scheduleService } from './cron.js';
import { defineTool, ToolError } from './tool.js';

export const MIN_WAKEUP_SECONDS = 60;
export const MAX_WAKEUP_SECONDS = 3600;

export const scheduleWakeupInputSchema = lazySchema(() =>
  z.strictObject({
    delaySeconds: z
      .number()
      .optional()
      .describe(
        `How many seconds from now to wake up; kept within ${MIN_WAKEUP_SECONDS}–${MAX_WAKEUP_SECONDS}. Required unless stop is true.`,
      ),
    reason: z
      .string()
      .optional()
      .describe('One specific sentence on why this delay (shown to the user). Required unless stop is true.'),
    prompt: z
      .string()
      .optional()
      .describe(
        'The prompt to fire on waking: the /loop input, verbatim, starting with "/loop ". Required unless stop is true.',
      ),
    stop: z
      .boolean()
      .optional()
      .describe(
        'true: end the loop now; pending wakeups are cancelled and none is scheduled. Leave the other fields out.',
      ),
    noop: z
      .boolean()
      .optional()
      .describe(
        'true when this iteration changed nothing (checked, nothing new); false when it did something worth keeping. Hosts may collapse quiet iterations.',
      ),
  }),
);

export const ScheduleWakeupTool = defineTool({
  name: 'ScheduleWakeup',
  description: `Pace a self-paced /loop: schedule when the loop's next iteration runs, or end the loop. Use it only in a /loop that was started without an interval.

At the end of each iteration, either:
- call it with delaySeconds, reason and prompt (the same /loop input, starting with "/loop ", so the next iteration picks the loop up again), then end your turn; the prompt comes back as a user turn after the delay, once the session is idle; or
- call it with stop: true when the task is done, cannot progress, or the user asked to stop.

A new wakeup replaces a pending one: a loop has one next iteration at a time.

Choosing the delay:
- Work this session tracks itself (a background shell, a subagent, a Monitor) wakes you when it ends or reports: do not poll it with short wakeups. Set a long fallback (20–30 minutes) in case it never reports.
- For outside state this session cannot see change (a CI run, a deploy, a queue), wait about as long as that state takes to change.
- The prompt cache expires after about 5 minutes of quiet. A delay under 270 s keeps the conversation cached; beyond 5 minutes the next iteration reads it all again, so when you wait longer than that, wait much longer (20 minutes or more) rather than just over 5.
- The delay is kept within ${MIN_WAKEUP_SECONDS}–${MAX_WAKEUP_SECONDS} seconds.

The reason is shown to the user: say what you are waiting for ("CI run 4812 takes about 8 minutes"), not just "waiting".`,
  inputSchema: scheduleWakeupInputSchema,
  kind: 'think',
  // It changes only this session's own schedule (no file, no process): allowed as TodoWrite is.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  label: (input) => (input.stop ? 'Stop the loop' : `Wake up in ${input.delaySeconds ?? '?'} s`),
  async *call(input, ctx) {
    const schedule = scheduleService(ctx);
    if (input.stop) {
      const cancelled = schedule.stopWakeups();
      return {
        content: `The loop is stopped: ${cancelled} pending wakeup(s) cancelled, none scheduled. Stop any Monitor you started for it with TaskStop, then tell the user how the loop ended.`,
        data: {
          scheduledFor: 0,
          clampedDelaySeconds: 0,
          wasClamped: false,
          stopped: true,
          cancelledWakeups: cancelled,
        },
      };
    }
    if (input.delaySeconds === undefined || input.reason === undefined || input.prompt === undefined)
      throw new ToolError('`delaySeconds`, `reason` and `prompt` are required unless `stop` is true.');
    if (!Number.isFinite(input.delaySeconds)) throw new ToolError('`delaySeconds` must be a finite number of seconds.');
    if (!input.prompt.trim()) throw new ToolError('`prompt` is empty: pass the /loop input to run on waking.');
    const clamped = Math.min(MAX_WAKEUP_SECONDS, Math.max(MIN_WAKEUP_SECONDS, Math.round(input.delaySeconds)));
    const wasClamped = clamped !== input.delaySeconds;
    const replaced = schedule.stopWakeups();
    const at = Date.now() + clamped * 1000;
    const job = await schedule.wakeAt(at, input.prompt, input.reason);
    const note = wasClamped ? ` (${input.delaySeconds} s was outside ${MIN_WAKEUP_SECONDS}–${MAX_WAKEUP_SECONDS})` : '';
    return {
      content: `Next iteration at ${localTime(job.nextFireAt)}, in ${clamped} s${note}${replaced ? '; it replaces the wakeup that was pending' : ''}. Give the user any update now as ordinary text, then end your turn: the prompt comes back when the wakeup fires, or sooner if a background task reports.`,
      data: { scheduledFor: job.nextFireAt, clampedDelaySeconds: clamped, wasClamped },
    };
  },
});
