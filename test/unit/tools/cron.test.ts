// CronCreate / CronDelete / CronList / ScheduleWakeup called directly over a real Scheduler, and
// the Scheduler's firing rules (what takeDue hands the runner, and when).
import { describe, expect, it } from 'vitest';
import { CronCreateTool, CronDeleteTool, CronListTool } from '../../../tools/cron.js';
import { ScheduleWakeupTool } from '../../../tools/scheduleWakeup.js';
import { Scheduler } from '../../../src/tasks/scheduler.js';
import { builtinTools } from '../../../tools/registry.js';
import { makeCtx, run, text } from './helpers.js';

function ctxWith(schedule = new Scheduler()) {
  return { schedule, ctx: makeCtx('/tmp', { services: { schedule } }) };
}

describe('CronCreate', () => {
  it('schedules a recurring job and reports its id, English schedule and next run (the SDK CronCreateOutput)', async () => {
    const { schedule, ctx } = ctxWith();
    const before = Date.now();
    const r = await run(CronCreateTool, { cron: '*/5 * * * *', prompt: 'check the build' }, ctx);
    expect(r.isError).toBeFalsy();
    const data = r.data as Record<string, unknown>;
    expect(data).toMatchObject({
      humanSchedule: 'Every 5 minutes',
      recurring: true,
      durable: false,
      maxAgeMs: 2592000000,
    });
    expect(data.id).toMatch(/^[0-9a-f]{8}$/);
    const next = data.nextFireAt as number;
    expect(next).toBeGreaterThan(before);
    expect(next - before).toBeLessThanOrEqual(5 * 60_000);
    expect(new Date(next).getMinutes() % 5).toBe(0);
    expect(text(r)).toContain(`Scheduled recurring job ${data.id} (Every 5 minutes)`);
    expect(schedule.list()).toHaveLength(1);
  });

  it('refuses an expression without 5 fields, a bad field and one that never matches, naming it', async () => {
    const { schedule, ctx } = ctxWith();
    const six = await run(CronCreateTool, { cron: '*/5 * * * * *', prompt: 'x' }, ctx);
    expect(six.isError).toBe(true);
    expect(text(six)).toContain("Invalid cron expression '*/5 * * * * *': it needs exactly 5 fields");
    const bad = await run(CronCreateTool, { cron: '61 * * * *', prompt: 'x' }, ctx);
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/Invalid cron expression '61 \* \* \* \*': .*minute/);
    const never = await run(CronCreateTool, { cron: '30 14 30 2 *', prompt: 'x' }, ctx);
    expect(never.isError).toBe(true);
    expect(text(never)).toContain("'30 14 30 2 *' matches no date within the next year");
    expect(schedule.list()).toEqual([]);
  });

  it('says a durable job is session-only instead of pretending to persist it', async () => {
    const { ctx } = ctxWith();
    const r = await run(
      CronCreateTool,
      { cron: '7 9 * * 1-5', prompt: 'standup', recurring: false, durable: true },
      ctx,
    );
    expect(r.data).toMatchObject({ recurring: false, durable: false });
    expect(text(r)).toContain('Session-only');
    expect(text(r)).toContain('fires once');
  });

  it('fails clearly where there is no schedule (a subagent)', async () => {
    const r = await run(CronCreateTool, { cron: '* * * * *', prompt: 'x' }, makeCtx('/tmp'));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('only the main conversation can schedule prompts');
  });
});

describe('CronList and CronDelete', () => {
  it('lists every job with its cron and prompt, and deletes one by id', async () => {
    const { ctx } = ctxWith();
    const a = (await run(CronCreateTool, { cron: '0 9 * * *', prompt: 'morning' }, ctx)).data as { id: string };
    await run(CronCreateTool, { cron: '*/10 * * * *', prompt: 'often' }, ctx);
    const list = await run(CronListTool, {}, ctx);
    const jobs = (list.data as { jobs: Array<Record<string, unknown>> }).jobs;
    expect(jobs.map((j) => j.prompt).sort()).toEqual(['morning', 'often']);
    expect(jobs.find((j) => j.prompt === 'morning')).toMatchObject({ cron: '0 9 * * *', recurring: true });
    expect(text(list)).toContain(`${a.id} — `);
    const del = await run(CronDeleteTool, { id: a.id }, ctx);
    expect(del.data).toEqual({ id: a.id });
    expect(((await run(CronListTool, {}, ctx)).data as { jobs: unknown[] }).jobs).toHaveLength(1);
    const again = await run(CronDeleteTool, { id: a.id }, ctx);
    expect(again.isError).toBe(true);
    expect(text(again)).toContain(`No scheduled job with id '${a.id}'`);
  });

  it('says when nothing is scheduled', async () => {
    const { ctx } = ctxWith();
    expect(text(await run(CronListTool, {}, ctx))).toBe('No jobs are scheduled in this session.');
  });
});

describe('Scheduler.takeDue', () => {
  it('fires a recurring job at its time once (missed matches coalesce) and moves it to the next match', async () => {
    const s = new Scheduler();
    const job = await s.create({ cron: '* * * * *', prompt: 'tick', recurring: true });
    expect(s.takeDue(job.nextFireAt - 1)).toEqual([]);
    // Three minutes late: one fire, and the next run is after "now".
    const late = job.nextFireAt + 3 * 60_000 + 5_000;
    expect(s.takeDue(late)).toEqual(['tick']);
    const next = s.list()[0].nextFireAt;
    expect(next).toBeGreaterThan(late);
    expect(next - late).toBeLessThanOrEqual(60_000);
    expect(s.takeDue(late)).toEqual([]);
  });

  it('removes a one-time job after it fires', async () => {
    const s = new Scheduler();
    const job = await s.create({ cron: '* * * * *', prompt: 'once', recurring: false });
    expect(s.takeDue(job.nextFireAt)).toEqual(['once']);
    expect(s.pending()).toBe(false);
  });

  it('ends a recurring job past its age with a last run that says so', async () => {
    const s = new Scheduler({ maxAgeMs: 1 });
    const job = await s.create({ cron: '* * * * *', prompt: 'tick', recurring: true });
    const [last] = s.takeDue(job.nextFireAt);
    expect(last).toMatch(/^tick\n\n\(This is the last run of recurring job [0-9a-f]{8}/);
    expect(s.pending()).toBe(false);
  });
});

describe('ScheduleWakeup', () => {
  it('clamps the delay to 60–3600 s, lists the wakeup, and a new one replaces it', async () => {
    const { schedule, ctx } = ctxWith();
    const before = Date.now();
    const r = await run(
      ScheduleWakeupTool,
      { delaySeconds: 5, reason: 'watching CI', prompt: '/loop check ci', noop: true },
      ctx,
    );
    expect(r.isError).toBeFalsy();
    const data = r.data as { scheduledFor: number; clampedDelaySeconds: number; wasClamped: boolean };
    expect(data).toMatchObject({ clampedDelaySeconds: 60, wasClamped: true });
    expect(data.scheduledFor - before).toBeGreaterThanOrEqual(60_000);
    expect(data.scheduledFor - before).toBeLessThan(62_000);
    const jobs = schedule.list();
    expect(jobs).toMatchObject([{ kind: 'wakeup', prompt: '/loop check ci', recurring: false }]);
    const r2 = await run(ScheduleWakeupTool, { delaySeconds: 99_999, reason: 'idle', prompt: '/loop check ci' }, ctx);
    expect(r2.data).toMatchObject({ clampedDelaySeconds: 3600, wasClamped: true });
    expect(text(r2)).toContain('replaces the wakeup that was pending');
    expect(schedule.list()).toHaveLength(1);
    expect(schedule.takeDue(schedule.list()[0].nextFireAt)).toEqual(['/loop check ci']);
  });

  it('stop: true cancels the pending wakeups but not the cron jobs', async () => {
    const { schedule, ctx } = ctxWith();
    await run(CronCreateTool, { cron: '*/5 * * * *', prompt: 'cron' }, ctx);
    await run(ScheduleWakeupTool, { delaySeconds: 120, reason: 'r', prompt: '/loop x' }, ctx);
    const r = await run(ScheduleWakeupTool, { stop: true }, ctx);
    expect(r.data).toEqual({
      scheduledFor: 0,
      clampedDelaySeconds: 0,
      wasClamped: false,
      stopped: true,
      cancelledWakeups: 1,
    });
    expect(schedule.list().map((j) => j.kind)).toEqual(['cron']);
  });

  it('needs delaySeconds, reason and prompt unless stopping', async () => {
    const { ctx } = ctxWith();
    const r = await run(ScheduleWakeupTool, { delaySeconds: 300 }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('`delaySeconds`, `reason` and `prompt` are required unless `stop` is true');
  });

  it('CronDelete of a wakeup ends the loop (endedLoopWakeup)', async () => {
    const { schedule, ctx } = ctxWith();
    await run(ScheduleWakeupTool, { delaySeconds: 120, reason: 'r', prompt: '/loop x' }, ctx);
    const id = schedule.list()[0].id;
    expect((await run(CronDeleteTool, { id }, ctx)).data).toEqual({ id, endedLoopWakeup: true });
  });
});

describe('CLAUDE_CODE_DISABLE_CRON', () => {
  it('leaves the scheduling tools out of the built-in tools', () => {
    const names = (env: NodeJS.ProcessEnv) => builtinTools({ env }).map((t) => t.name);
    expect(names({})).toEqual(expect.arrayContaining(['CronCreate', 'CronDelete', 'CronList', 'ScheduleWakeup']));
    const off = names({ CLAUDE_CODE_DISABLE_CRON: '1' });
    for (const n of ['CronCreate', 'CronDelete', 'CronList', 'ScheduleWakeup']) expect(off).not.toContain(n);
  });
});
