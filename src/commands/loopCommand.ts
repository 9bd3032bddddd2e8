// /loop [interval] <prompt>: run a prompt again and again. With an interval it becomes a recurring
// cron job (CronCreate); without one the model paces the iterations itself (ScheduleWakeup). The
// command only turns the input into instructions for the model: the model parses the interval and
// calls the tools, so "/loop check the deploy every 20 minutes" works as well as "/loop 20m …".

export const LOOP_USAGE = 'Usage: /loop [interval] <prompt>, e.g. /loop 10m check the build, or /loop check the build';

/** The turn's prompt for `/loop <input>`. */
export function loopPrompt(input: string): string {
  return `The user started /loop: run a prompt repeatedly in this session. Their input is at the end, after "Input:".

1. Find the interval.
   - If the input starts with a duration such as 45s, 10m, 2h or 1d, that is the interval and the rest is the prompt.
   - Otherwise, if it ends with "every <duration>" ("every 15m", "every 2 hours"), that is the interval; take it off the prompt. "every" followed by anything but a duration ("check every branch") is part of the prompt.
   - Otherwise there is no interval: you pace the loop yourself (step 3).
   If no prompt is left once the interval is taken off, reply with "${LOOP_USAGE}" and stop.

2. With an interval: schedule a recurring cron job with CronCreate (recurring: true, the prompt verbatim).
   - Minutes N under 60 → "*/N * * * *"; hours N under 24 → "0 */N * * *"; days N → "0 0 */N * *"; seconds round up to whole minutes (cron counts in minutes).
   - An interval that does not divide its unit evenly (7m, 90m) cannot repeat evenly in cron: take the nearest one that does and tell the user.
   - Tell the user the schedule, the job id, that the job stops when this session ends or after 30 days, and that CronDelete cancels it sooner.
   - Then do the task once now, without waiting for the first run. If the prompt is a slash command, run it as one (with the Skill tool for a skill).

3. Without an interval (you pace it):
   - Do the task now.
   - If the next iteration depends on an event this session can watch (a log line, a file, a process ending), start a Monitor for it (or a background Bash command that exits when it happens): its notice wakes you at once. Do not start a second one for the same thing on later iterations.
   - Then decide: if the task needs another iteration, call ScheduleWakeup with delaySeconds, a specific reason, and prompt set to "/loop " followed by the input below, verbatim, so that the next iteration comes back here. With a watcher running, the wakeup is only a fallback: make it long (20–30 minutes).
   - If the task is finished, cannot progress, or the user asked to stop, call ScheduleWakeup with stop: true instead, stop any watcher you started (TaskStop), and tell the user how the loop ended.
   - End each iteration with a short visible update for the user: what you did, and when the next iteration comes.

Input: ${input}`;
}
