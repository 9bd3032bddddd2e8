// CronCreate, CronDelete, CronList: prompts this session schedules for itself. A job fires its
// prompt into the session as a user turn when the cron expression next matches and the session is
// idle; the schedule lives only as long as the session (src/tasks/scheduler.ts keeps it).
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

/** One scheduled job as the tools and hosts see it (the SDK's CronListOutput job, plus what it is). */
export interface ScheduledJobView {
  id: string;
  /** The 5-field cron expression; a wakeup's is pinned to the minute it fires in. */
  cron: string;
  humanSchedule: string;
  prompt: string;
  recurring: boolean;
  /** Epoch ms of its next run. */
  nextFireAt: number;
  /** `wakeup`: set by ScheduleWakeup (a /loop the model paces itself); `cron`: by CronCreate. */
  kind: 'cron' | 'wakeup';
}

/** The session's schedule, as the scheduling tools reach it (src/tasks/scheduler.ts implements it). */
export interface ScheduleService {
  /** Throws an Error whose message says what is wrong with the expression. */
  create(job: { cron: string; prompt: string; recurring: boolean }): Promise<ScheduledJobView>;
  delete(id: string): ScheduledJobView | undefined;
  list(): ScheduledJobView[];
  /** One wakeup at `at` (epoch ms) that fires `prompt`. */
  wakeAt(at: number, prompt: string, reason: string): Promise<ScheduledJobView>;
  /** Cancel every pending wakeup; how many there were. Cron jobs stay. */
  stopWakeups(): number;
  /** How long a recurring job lives (ms). */
  readonly maxAgeMs: number;
}

export function scheduleService(ctx: ToolContext): ScheduleService {
  const s = ctx.services?.schedule;
  if (!s) throw new ToolError('Scheduling is not available here: only the main conversation can schedule prompts.');
  return s;
}

/** "Nov 24, 9:19 PM" in the local time zone. */
export function localTime(ms: number): string {
  return new Date(ms).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `CLAUDE_CODE_DISABLE_CRON`: the session offers no scheduling tools (and /loop says so). */
export function cronDisabled(env: NodeJS.ProcessEnv): boolean {
  const v = env.CLAUDE_CODE_DISABLE_CRON;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export const cronCreateInputSchema = lazySchema(() =>
  z.strictObject({
    cron: z
      .string()
      .describe(
        'A standard 5-field cron expression in local time: minute hour day-of-month month day-of-week, e.g. "*/10 * * * *" for every ten minutes or "15 9 3 4 *" for 9:15 on April 3.',
      ),
    prompt: z.string().describe('What to send into this session, as a user message, each time the job fires.'),
    recurring: z
      .boolean()
      .optional()
      .describe(
        'true (the default): fire at every match until deleted or expired. false: fire once at the next match, then remove the job.',
      ),
    durable: z
      .boolean()
      .optional()
      .describe(
        'Ask for the job to outlive this session. This runtime keeps jobs in the session only; the result says so when you ask.',
      ),
  }),
);

export const CronCreateTool = defineTool({
  name: 'CronCreate',
  deferred: true,
  description: `Schedule a prompt to come back into this conversation later, once or on a repeating schedule.

The schedule is a 5-field cron expression in the user's local time zone: minute, hour, day of month, month, day of week. "20 8 * * 1-5" means 8:20 on weekdays, local time.

- For a reminder or a one-off ("at 4pm, check the release"), pin the minute, hour, day and month and pass recurring: false. The job fires once and is removed.
- For a repeating job ("every 10 minutes", "each morning"), leave recurring at its default (true): "*/10 * * * *", "40 7 * * *".
- When the user's time is approximate, prefer a minute other than :00 or :30, so that many scheduled jobs do not all start at the same instant.

How it runs:
- A job fires only while this session is idle: if a turn is running, the prompt waits for it to end. Several missed matches of one job fire once.
- A job lives only as long as this session. It never fires after the session ends, and nothing is written to disk.
- A recurring job expires 30 days after it is created: it fires a last time with a note saying so, then is removed. Mention the limit when you schedule one.
- The result gives the job's id (for CronDelete) and its next run time; tell the user that time.

To react the moment something happens (a log line, a file, a process exiting) rather than on a clock, use Monitor, or Bash with run_in_background, instead.`,
  inputSchema: cronCreateInputSchema,
  kind: 'think',
  // It changes only this session's own schedule (no file, no process): allowed as TodoWrite is.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  label: (input) => `Schedule "${input.cron}"`,
  async *call(input, ctx) {
    const schedule = scheduleService(ctx);
    const recurring = input.recurring ?? true;
    let job: ScheduledJobView;
    try {
      job = await schedule.create({ cron: input.cron, prompt: input.prompt, recurring });
    } catch (err) {
      throw new ToolError((err as Error).message);
    }
    const kind = recurring ? 'recurring job' : 'one-time job';
    const lines = [
      `Scheduled ${kind} ${job.id} (${job.humanSchedule}). Next run: ${localTime(job.nextFireAt)}.`,
      'It lives in this session only: it stops when the session ends.',
      recurring
        ? `It expires ${Math.round(schedule.maxAgeMs / DAY_MS)} days from now. Cancel it sooner with CronDelete.`
        : 'It fires once, then is removed.',
    ];
    if (input.durable)
      lines.push(
        'Session-only: this runtime cannot keep a job across sessions, so tell the user it will not survive a restart.',
      );
    return {
      content: lines.join(' '),
      data: {
        id: job.id,
        humanSchedule: job.humanSchedule,
        recurring,
        durable: false,
        nextFireAt: job.nextFireAt,
        ...(recurring ? { maxAgeMs: schedule.maxAgeMs } : {}),
      },
    };
  },
});

export const cronDeleteInputSchema = lazySchema(() =>
  z.strictObject({
    id: z.string().describe('The job id CronCreate returned (CronList shows every job).'),
  }),
);

export const CronDeleteTool = defineTool({
  name: 'CronDelete',
  deferred: true,
  description:
    'Cancel a job scheduled in this session (with CronCreate, or a wakeup set with ScheduleWakeup), by the id CronCreate or CronList gave. It will not fire again.',
  inputSchema: cronDeleteInputSchema,
  kind: 'think',
  // It changes only this session's own schedule (no file, no process): allowed as TodoWrite is.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  label: (input) => `Cancel job ${input.id}`,
  async *call(input, ctx) {
    const job = scheduleService(ctx).delete(input.id);
    if (!job) throw new ToolError(`No scheduled job with id '${input.id}'. CronList shows the jobs of this session.`);
    const wakeup = job.kind === 'wakeup';
    return {
      content: `Cancelled ${wakeup ? 'wakeup' : 'job'} ${job.id} (${job.humanSchedule}): ${JSON.stringify(job.prompt)}.`,
      data: { id: job.id, ...(wakeup ? { endedLoopWakeup: true as const } : {}) },
    };
  },
});

export const cronListInputSchema = lazySchema(() => z.strictObject({}));

export const CronListTool = defineTool({
  name: 'CronList',
  deferred: true,
  description:
    "List the jobs scheduled in this session: each one's id, schedule, next run time and prompt, cron jobs and pending ScheduleWakeup wakeups alike.",
  inputSchema: cronListInputSchema,
  kind: 'think',
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(_input, ctx) {
    const jobs = scheduleService(ctx).list();
    const lines = jobs.map(
      (j) =>
        `${j.id} — ${j.humanSchedule} (${j.kind === 'wakeup' ? 'wakeup' : j.recurring ? 'recurring' : 'one-time'}), next run ${localTime(j.nextFireAt)}: ${j.prompt}`,
    );
    return {
      content: jobs.length ? lines.join('\n') : 'No jobs are scheduled in this session.',
      data: {
        jobs: jobs.map((j) => ({
          id: j.id,
          cron: j.cron,
          humanSchedule: j.humanSchedule,
          prompt: j.prompt,
          recurring: j.recurring,
          durable: false,
          nextFireAt: j.nextFireAt,
        })),
      },
    };
  },
});
