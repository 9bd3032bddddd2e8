// The task registry and background shells: announcements, notices for the model, stop, output files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBackgroundShellService } from '../../../src/tasks/backgroundShell.js';
import { backgroundTaskSummaries, noticeText, TaskRegistry, type TaskEvent } from '../../../src/tasks/registry.js';
import { Scheduler, sessionCronSummaries } from '../../../src/tasks/scheduler.js';
import { createTaskControlService } from '../../../src/tasks/service.js';
import { alive, waitUntil } from '../../processes.js';
import { tempDir } from '../tools/helpers.js';

function setup() {
  const emitted: TaskEvent[] = [];
  const registry = new TaskRegistry({ dir: join(tempDir('tasks-'), 'out'), emit: (m) => void emitted.push(m) });
  return { registry, emitted };
}

describe('TaskRegistry', () => {
  it('announces a task, reports its end once, and hands its notice to the model once', async () => {
    const { registry, emitted } = setup();
    const rec = registry.register('local_agent', {
      description: 'Research',
      toolUseId: 'toolu_1',
      subagentType: 'Explore',
    });
    expect(rec.id).toMatch(/^a[0-9a-f]{8}$/);
    // The live set first (background_tasks_changed: a level, replaced whole), then the edge.
    expect(emitted[0]).toEqual({
      kind: 'live',
      tasks: [{ taskId: rec.id, taskType: 'local_agent', subagentType: 'Explore', description: 'Research' }],
    });
    expect(emitted[1]).toEqual({
      kind: 'started',
      taskId: rec.id,
      toolUseId: 'toolu_1',
      description: 'Research',
      taskType: 'local_agent',
      subagentType: 'Explore',
      backgrounded: true,
    });
    expect(registry.hasRunning()).toBe(true);
    registry.finish(rec.id, {
      status: 'completed',
      summary: 'found it',
      usage: { totalTokens: 5, toolUses: 1, durationMs: 9 },
    });
    registry.finish(rec.id, { status: 'failed', summary: 'ignored' });
    await rec.done;
    expect(emitted.filter((m) => m.kind === 'notification')).toEqual([
      {
        kind: 'notification',
        taskId: rec.id,
        toolUseId: 'toolu_1',
        status: 'completed',
        outputFile: rec.outputFile,
        summary: 'found it',
        usage: { totalTokens: 5, toolUses: 1, durationMs: 9 },
      },
    ]);
    expect(registry.hasRunning()).toBe(false);
    // It leaves the live set after its notification.
    expect(emitted.at(-1)).toEqual({ kind: 'live', tasks: [] });
    expect(emitted.findIndex((m) => m.kind === 'notification')).toBeLessThan(emitted.length - 1);
    expect(registry.hasNotices()).toBe(true);
    const notices = registry.takeNotices();
    expect(notices.map((t) => t.id)).toEqual([rec.id]);
    expect(registry.takeNotices()).toEqual([]);
    const t = noticeText(notices);
    expect(t).toContain(`<task-id>${rec.id}</task-id>`);
    expect(t).toContain('<status>completed</status>');
    expect(t).toContain('<summary>found it</summary>');
  });

  it('a task the model already read (TaskOutput) or stopped gets no separate notice', async () => {
    const { registry } = setup();
    const rec = registry.register('local_bash', { description: 'x', toolUseId: 't', command: 'x' });
    registry.markSeen(rec.id);
    registry.finish(rec.id, { status: 'completed', summary: 'done' });
    await rec.done;
    expect(registry.hasNotices()).toBe(false);
    expect(registry.takeNotices()).toEqual([]);
  });

  it('a foreground task: task_started with is_backgrounded false and its prompt, never in the live set, ended with task_updated then task_notification, no notice for the model', async () => {
    const { registry, emitted } = setup();
    const rec = registry.register('local_agent', {
      id: 'a0000fore',
      description: 'Look around',
      toolUseId: 'toolu_f',
      subagentType: 'Explore',
      prompt: 'list the files',
      foreground: true,
      spawnDepth: 1,
      fileName: (id) => `agent-${id}.jsonl`,
    });
    expect(rec.id).toBe('a0000fore');
    expect(rec.outputFile).toMatch(/agent-a0000fore\.jsonl$/);
    expect(emitted).toEqual([
      {
        kind: 'started',
        taskId: 'a0000fore',
        toolUseId: 'toolu_f',
        description: 'Look around',
        taskType: 'local_agent',
        subagentType: 'Explore',
        backgrounded: false,
        spawnDepth: 1,
        prompt: 'list the files',
      },
    ]);
    // Not background work: the runner does not wait for it, stopAll leaves it to its turn.
    expect(registry.hasRunning()).toBe(false);
    await registry.stopAll(10);
    expect(rec.status).toBe('running');
    expect(rec.abort.signal.aborted).toBe(false);
    registry.progress(rec.id, { totalTokens: 3, toolUses: 1, durationMs: 4 }, 'Glob');
    registry.finish(rec.id, {
      status: 'completed',
      summary: 'three files',
      usage: { totalTokens: 9, toolUses: 1, durationMs: 8 },
    });
    await rec.done;
    expect(emitted.slice(1).map((m) => m.kind)).toEqual(['progress', 'ended', 'notification']);
    expect(emitted[1]).toMatchObject({ taskId: rec.id, usage: { totalTokens: 3 }, lastToolName: 'Glob' });
    expect(emitted[2]).toEqual({ kind: 'ended', taskId: rec.id, status: 'completed', endTime: expect.any(Number) });
    expect(emitted[3]).toMatchObject({
      kind: 'notification',
      taskId: rec.id,
      toolUseId: 'toolu_f',
      status: 'completed',
      summary: 'three files',
      outputFile: rec.outputFile,
    });
    // Its end is the Task call's result: nothing more for the model.
    expect(registry.hasNotices()).toBe(false);
    expect(emitted.some((m) => m.kind === 'live')).toBe(false);
    // An id cannot be registered twice.
    expect(() => registry.register('local_agent', { id: 'a0000fore', description: 'x', toolUseId: 't' })).toThrow(
      /already registered/,
    );
  });

  it('a foreground task moved to the background keeps its id: it joins the live set with task_updated {is_backgrounded: true}, and its end is a notice', async () => {
    const { registry, emitted } = setup();
    // Its lines go by its own route (through its Task call) while it is in the foreground.
    const routed: TaskEvent[] = [];
    const rec = registry.register('local_agent', {
      description: 'Slow',
      toolUseId: 'toolu_m',
      subagentType: 'general-purpose',
      foreground: true,
      route: (e) => void routed.push(e),
    });
    registry.progress(rec.id, { totalTokens: 1, toolUses: 0, durationMs: 1 });
    expect(emitted).toEqual([]);
    expect(registry.moveToBackground(rec.id)).toBe(rec);
    expect(routed.map((m) => m.kind)).toEqual(['started', 'progress', 'backgrounded']);
    expect(routed[2]).toEqual({ kind: 'backgrounded', taskId: rec.id });
    // The live set goes out directly; from the move on, so do its own lines.
    expect(emitted).toEqual([
      {
        kind: 'live',
        tasks: [{ taskId: rec.id, taskType: 'local_agent', subagentType: 'general-purpose', description: 'Slow' }],
      },
    ]);
    expect(rec.route).toBeUndefined();
    // Moving it again changes nothing; a task that is not running cannot be moved.
    registry.moveToBackground(rec.id);
    expect(emitted).toHaveLength(1);
    expect(routed).toHaveLength(3);
    expect(() => registry.moveToBackground('a-none')).toThrow(/not running/);
    expect(registry.hasRunning()).toBe(true);
    registry.finish(rec.id, { status: 'completed', summary: 'done late' });
    await rec.done;
    expect(emitted.map((m) => m.kind)).toEqual(['live', 'ended', 'notification', 'live']);
    expect(emitted.at(-1)).toEqual({ kind: 'live', tasks: [] });
    expect(registry.takeNotices().map((t) => t.id)).toEqual([rec.id]);
    expect([...routed, ...emitted].filter((m) => m.kind === 'started')).toHaveLength(1);
  });

  it('waitForChange resolves when a task ends, or after its timeout', async () => {
    const { registry } = setup();
    const rec = registry.register('local_agent', { description: 'x', toolUseId: 't' });
    const t0 = Date.now();
    await registry.waitForChange(60);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
    const waiting = registry.waitForChange(10_000);
    setTimeout(() => registry.finish(rec.id, { status: 'completed', summary: 's' }), 30);
    const t1 = Date.now();
    await waiting;
    expect(Date.now() - t1).toBeLessThan(5000); // woken by the end, not by its 10 s timeout
  });

  it('stopAll aborts every running task and reports it stopped, without waking the model', async () => {
    const { registry, emitted } = setup();
    const rec = registry.register('local_agent', { description: 'slow', toolUseId: 't' });
    rec.abort.signal.addEventListener('abort', () =>
      registry.finish(rec.id, { status: 'stopped', summary: 'stopped by abort' }),
    );
    await registry.stopAll();
    expect(rec.status).toBe('stopped');
    expect(emitted.find((m) => m.kind === 'notification')).toMatchObject({
      status: 'stopped',
      summary: 'stopped by abort',
    });
    expect(registry.hasNotices()).toBe(false);
  });

  it('a task that ignores its abort is reported stopped after the grace period', async () => {
    const { registry } = setup();
    const rec = registry.register('local_agent', { description: 'stubborn', toolUseId: 't' });
    await registry.stop(rec.id, 50);
    expect(rec.status).toBe('stopped');
    expect(rec.summary).toBe('Agent "stubborn" was stopped');
  });
});

describe('background shells', () => {
  it('output goes to the file as it comes; the file ends with [exited with code N]; the summary names the command', async () => {
    const { registry, emitted } = setup();
    const svc = createBackgroundShellService(registry);
    const cwd = tempDir();
    // The command holds between its two lines until the test says go: the first line must be in
    // the file while it still runs (an order, not a time window, so load cannot fail it).
    const { taskId, outputFile } = await svc.start(
      'echo one; until [ -e go ]; do sleep 0.02; done; echo two >&2; exit 0',
      { cwd, toolUseId: 't1', description: 'Two lines' },
    );
    const control = createTaskControlService(registry);
    expect(await waitUntil(() => readFileSync(outputFile, 'utf8') !== '', 5000, 10)).toBe(true);
    expect(readFileSync(outputFile, 'utf8')).toBe('one\n');
    expect(control.get(taskId)?.status).toBe('running');
    writeFileSync(join(cwd, 'go'), '');
    await control.wait(taskId, 5000, new AbortController().signal);
    expect(readFileSync(outputFile, 'utf8')).toBe('one\ntwo\n\n[exited with code 0]\n');
    expect(emitted.find((m) => m.kind === 'notification')).toMatchObject({
      status: 'completed',
      summary: 'Background command "Two lines" completed (exit code 0)',
    });
    expect(control.get(taskId)).toMatchObject({ status: 'completed', exitCode: 0 });
  });

  it('stop kills the whole process group and the file says so', async () => {
    const { registry } = setup();
    const svc = createBackgroundShellService(registry);
    const cwd = tempDir();
    const { taskId, outputFile } = await svc.start('sleep 30 & echo $! > kid.pid; echo started; wait', {
      cwd,
      toolUseId: 't2',
    });
    await waitUntil(() => readFileSync(outputFile, 'utf8').includes('started'), 5000, 20);
    const kid = Number(readFileSync(join(cwd, 'kid.pid'), 'utf8'));
    expect(alive(kid)).toBe(true);
    const view = await createTaskControlService(registry).stop(taskId);
    expect(view?.status).toBe('stopped');
    await waitUntil(() => !alive(kid), 3000, 20);
    expect(alive(kid)).toBe(false);
    expect(readFileSync(outputFile, 'utf8')).toBe('started\n\n[stopped]\n');
  });

  it('the output file is capped', async () => {
    const { registry } = setup();
    const svc = createBackgroundShellService(registry, { maxFileBytes: 1000 });
    const { taskId, outputFile } = await svc.start('head -c 5000 /dev/zero | tr "\\0" x', {
      cwd: tempDir(),
      toolUseId: 't3',
    });
    await registry.get(taskId)!.done;
    const content = readFileSync(outputFile, 'utf8');
    expect(content.startsWith(`${'x'.repeat(1000)}\n[output truncated: 4000 bytes`)).toBe(true);
    expect(content.endsWith('[exited with code 0]\n')).toBe(true);
  });

  it('TaskOutput-style reads return the tail of a long output', async () => {
    const { registry } = setup();
    const svc = createBackgroundShellService(registry);
    const { taskId } = await svc.start('seq 1 20000', { cwd: tempDir(), toolUseId: 't4' });
    await registry.get(taskId)!.done;
    const out = createTaskControlService(registry).readOutput(taskId, 200);
    expect(out).toContain('[earlier output omitted');
    expect(out).toContain('20000\n');
    expect(out).not.toContain('\n1\n');
  });
});

describe('Stop hooks: background_tasks and session_crons', () => {
  it('lists the running background tasks with their friendly types, and the pending jobs; long texts are capped', async () => {
    const { registry } = setup();
    const shell = registry.register('local_bash', { description: 'nap', toolUseId: 't1', command: 'sleep 9' });
    const watch = registry.register('local_bash', {
      description: 'log',
      toolUseId: 't2',
      command: 'tail -f x',
      monitor: true,
    });
    const agent = registry.register('local_agent', {
      description: 'Research',
      toolUseId: 't3',
      subagentType: 'Explore',
    });
    const flow = registry.register('local_workflow', { description: 'd', toolUseId: 't4', workflowName: 'spec' });
    registry.register('local_agent', { description: 'in the turn', toolUseId: 't5', foreground: true });
    const ended = registry.register('local_bash', { description: 'done', toolUseId: 't6', command: 'true' });
    registry.finish(ended.id, { status: 'completed', summary: 'ok' });
    expect(backgroundTaskSummaries(registry.list())).toEqual([
      { id: shell.id, type: 'shell', status: 'running', description: 'nap', command: 'sleep 9' },
      { id: watch.id, type: 'monitor', status: 'running', description: 'log' },
      { id: agent.id, type: 'subagent', status: 'running', description: 'Research', agent_type: 'Explore' },
      { id: flow.id, type: 'workflow', status: 'running', description: 'd', name: 'spec' },
    ]);
    const schedule = new Scheduler();
    const job = await schedule.create({ cron: '*/5 * * * *', prompt: 'x'.repeat(1200), recurring: true });
    expect(sessionCronSummaries(schedule.list())).toEqual([
      { id: job.id, schedule: '*/5 * * * *', recurring: true, prompt: `${'x'.repeat(1000)}… [+200 chars]` },
    ]);
    await registry.stopAll(100);
  });
});
