// The session's schedule: cron jobs (CronCreate) and /loop wakeups (ScheduleWakeup). It keeps no
// timer of its own: the session runner asks it for the prompts that are due each time it looks
// for work between turns (at least every 500 ms while the input is open), so a job fires only when
// the session is idle, and a schedule never holds the process or outlives the session.
// The cron library and the English descriptions load on the first job (dynamic import).
import { randomHex } from '../util/ids.js';
import { backgroundTaskSummaries, capText, type TaskRegistry } from './registry.js';
import { loadExternal } from '../util/loadExternal.js';
import type { ScheduledJobView, ScheduleService } from '../../tools/cron.js';

/** A recurring job's life: it fires a last time after this, then is removed (30 days, as the reference). */
export const MAX_JOB_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** A cron expression that matches nothing within this long is refused. */
const HORIZON_MS = 366 * 24 * 60 * 60 * 1000;

interface Job extends ScheduledJobView {
  createdAt: number;
}

interface CronLib {
  next(expr: string, after: number): number | undefined;
  describe(expr: string): string;
}

let cronLib: Promise<CronLib> | undefined;

function loadCronLib(): Promise<CronLib> {
  // Kept out of the bundle (scripts/bundle.mjs): loaded from node_modules.
  cronLib ??= Promise.resolve().then(() => {
    const croner = loadExternal<typeof import('croner')>('croner');
    const cronstrue = loadExternal<typeof import('cronstrue')>('cronstrue');
    const toText = (cronstrue.default ?? cronstrue).toString;
    return {
      next(expr, after) {
        const run = new croner.Cron(expr, { paused: true, mode: '5-part' }).nextRun(new Date(after));
        return run ? run.getTime() : undefined;
      },
      describe: (expr) => toText(expr, { use24HourTimeFormat: false, verbose: false }),
    };
  });
  return cronLib;
}

/** What the session runner asks of the schedule between turns. */
export interface ScheduleHost {
  /** The prompts whose time has come, in the order they fell due; each fires once. */
  takeDue(now?: number): string[];
  /** Whether any job is pending. */
  pending(): boolean;
}

export class Scheduler implements ScheduleService, ScheduleHost {
  private readonly jobs = new Map<string, Job>();
  /** Loaded with the first job; takeDue needs it synchronously. */
  private lib: CronLib | undefined;
  readonly maxAgeMs: number;

  constructor(opts: { maxAgeMs?: number } = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? MAX_JOB_AGE_MS;
  }

  private async cron(): Promise<CronLib> {
    this.lib ??= await loadCronLib();
    return this.lib;
  }

  async create(input: { cron: string; prompt: string; recurring: boolean }): Promise<ScheduledJobView> {
    const lib = await this.cron();
    const expr = input.cron.trim().split(/\s+/).join(' ');
    if (expr.split(' ').length !== 5)
      throw new Error(
        `Invalid cron expression '${input.cron}': it needs exactly 5 fields (minute hour day-of-month month day-of-week).`,
      );
    if (!input.prompt.trim()) throw new Error('The prompt is empty: give the text to send when the job fires.');
    const now = Date.now();
    let next: number | undefined;
    try {
      next = lib.next(expr, now);
    } catch (err) {
      throw new Error(
        `Invalid cron expression '${input.cron}': ${(err as Error).message.replace(/^CronPattern: /, '')}.`,
      );
    }
    if (next === undefined || next - now > HORIZON_MS)
      throw new Error(`The cron expression '${input.cron}' matches no date within the next year.`);
    const job: Job = {
      id: this.newId(),
      cron: expr,
      humanSchedule: lib.describe(expr),
      prompt: input.prompt,
      recurring: input.recurring,
      nextFireAt: next,
      kind: 'cron',
      createdAt: now,
    };
    this.jobs.set(job.id, job);
    return view(job);
  }

  async wakeAt(at: number, prompt: string, _reason: string): Promise<ScheduledJobView> {
    const d = new Date(at);
    const job: Job = {
      id: this.newId(),
      // The minute it fires in, as a cron expression (CronList shows every job with one).
      cron: `${d.getMinutes()} ${d.getHours()} ${d.getDate()} ${d.getMonth() + 1} *`,
      humanSchedule: `Once, at ${d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit' })}`,
      prompt,
      recurring: false,
      nextFireAt: at,
      kind: 'wakeup',
      createdAt: Date.now(),
    };
    this.jobs.set(job.id, job);
    return view(job);
  }

  delete(id: string): ScheduledJobView | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    this.jobs.delete(id);
    return view(job);
  }

  list(): ScheduledJobView[] {
    return [...this.jobs.values()].sort((a, b) => a.nextFireAt - b.nextFireAt).map(view);
  }

  stopWakeups(): number {
    let n = 0;
    for (const job of [...this.jobs.values()])
      if (job.kind === 'wakeup') {
        this.jobs.delete(job.id);
        n++;
      }
    return n;
  }

  pending(): boolean {
    return this.jobs.size > 0;
  }

  takeDue(now = Date.now()): string[] {
    const due = [...this.jobs.values()].filter((j) => j.nextFireAt <= now).sort((a, b) => a.nextFireAt - b.nextFireAt);
    const prompts: string[] = [];
    for (const job of due) {
      if (job.kind === 'wakeup' || !job.recurring) {
        this.jobs.delete(job.id);
        prompts.push(job.prompt);
        continue;
      }
      // Matches missed while a turn ran fire once: the next run is the first match after now.
      const next = this.lib?.next(job.cron, now);
      if (now - job.createdAt >= this.maxAgeMs || next === undefined) {
        this.jobs.delete(job.id);
        prompts.push(
          `${job.prompt}\n\n(This is the last run of recurring job ${job.id}: jobs expire ${Math.round(this.maxAgeMs / 86_400_000)} days after they are created. Schedule it again if it is still needed.)`,
        );
        continue;
      }
      job.nextFireAt = next;
      prompts.push(job.prompt);
    }
    return prompts;
  }

  private newId(): string {
    let id: string;
    do id = randomHex(4);
    while (this.jobs.has(id));
    return id;
  }
}

function view(job: Job): ScheduledJobView {
  const { createdAt: _, ...rest } = job;
  return { ...rest };
}

/** One pending job as Stop hooks read it (the SDK's SessionCronSummary). */
export interface SessionCronSummary {
  id: string;
  schedule: string;
  recurring: boolean;
  prompt: string;
}

/** Stop hooks' `session_crons`: the jobs and wakeups that will wake this session later. */
export function sessionCronSummaries(jobs: ScheduledJobView[]): SessionCronSummary[] {
  return jobs.map((j) => ({ id: j.id, schedule: j.cron, recurring: j.recurring, prompt: capText(j.prompt) }));
}

/** Stop and SubagentStop hooks' view of what will still wake the session (sdk.d.ts). */
export function stopHookState(
  registry: Pick<TaskRegistry, 'list'>,
  schedule: Pick<Scheduler, 'list'>,
): { background_tasks: ReturnType<typeof backgroundTaskSummaries>; session_crons: SessionCronSummary[] } {
  return {
    background_tasks: backgroundTaskSummaries(registry.list()),
    session_crons: sessionCronSummaries(schedule.list()),
  };
}
