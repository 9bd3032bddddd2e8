// Monitor over a real TaskRegistry and real shell commands: events from stdout lines (batched),
// stderr kept out of them, how a watch ends (exit, expiry, flood, TaskStop), and ReportFindings.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MonitorTool } from '../../../tools/monitor.js';
import { ReportFindingsTool } from '../../../tools/reportFindings.js';
import { createMonitorService } from '../../../src/tasks/monitor.js';
import { createBackgroundHost } from '../../../src/tasks/host.js';
import { TaskRegistry, type TaskEvent } from '../../../src/tasks/registry.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});

function setup(maxPendingEvents?: number) {
  const dir = tempDir('monitor-');
  dirs.push(dir);
  const lines: TaskEvent[] = [];
  const registry = new TaskRegistry({ dir, emit: (e) => void lines.push(e) });
  const monitor = createMonitorService(registry, { maxPendingEvents });
  const ctx = makeCtx(dir, { services: { monitor } });
  return { registry, ctx, lines, host: createBackgroundHost(registry) };
}

async function ended(registry: TaskRegistry, id: string) {
  await registry.get(id)!.done;
  return registry.get(id)!;
}

describe('Monitor', () => {
  it('turns stdout lines into events (lines close together batched), keeps stderr out of them, and reports the exit', async () => {
    const { registry, ctx, lines, host } = setup();
    const r = await run(
      MonitorTool,
      { description: 'ticks', timeout_ms: 10_000, command: 'echo one; echo two; sleep 0.6; echo oops >&2; echo three' },
      ctx,
    );
    expect(r.isError).toBeFalsy();
    const data = r.data as { taskId: string; timeoutMs: number; persistent: boolean };
    expect(data).toMatchObject({ timeoutMs: 10_000, persistent: false });
    expect(text(r)).toContain(`Monitor started as task ${data.taskId}`);
    expect(lines[1]).toMatchObject({ kind: 'started', taskType: 'local_bash', description: 'ticks' });
    const task = await ended(registry, data.taskId);
    expect(task.status).toBe('completed');
    expect(task.summary).toBe('Monitor "ticks" ended: its command exited with code 0 after 2 events');
    const notice = host.takeNotice()!;
    expect(notice).toContain(
      `<task-id>${data.taskId}</task-id>\n<summary>Monitor "ticks" event</summary>\n<event>one\ntwo</event>`,
    );
    expect(notice).toContain('<event>three</event>');
    expect(notice).not.toContain('<event>oops');
    // The events come before the end's notice.
    expect(notice.indexOf('<event>three</event>')).toBeLessThan(notice.indexOf('<status>completed</status>'));
    expect(host.takeNotice()).toBeNull();
    const file = readFileSync(task.outputFile, 'utf8');
    expect(file).toContain('oops');
    expect(file).toContain('[exited with code 0]');
  });

  it('expires after timeout_ms and says how many events there were; a deadline past 10 minutes is cut', async () => {
    const { registry, ctx } = setup();
    const r = await run(
      MonitorTool,
      { description: 'quiet', timeout_ms: 1000, command: 'echo first; while true; do sleep 0.1; done' },
      ctx,
    );
    const task = await ended(registry, (r.data as { taskId: string }).taskId);
    expect(task.status).toBe('completed');
    expect(task.summary).toBe(
      'Monitor "quiet" expired after 1 s with 1 event; start it again if the watch is still needed',
    );
    const long = await run(MonitorTool, { description: 'long', timeout_ms: 3_000_000, command: 'true' }, ctx);
    expect(long.data).toMatchObject({ timeoutMs: 600_000 });
    await ended(registry, (long.data as { taskId: string }).taskId);
  });

  it('stops a monitor whose events pile up unread', async () => {
    const { registry, ctx } = setup(3);
    const r = await run(
      MonitorTool,
      { description: 'firehose', timeout_ms: 20_000, command: 'while true; do echo x; sleep 0.25; done' },
      ctx,
    );
    const task = await ended(registry, (r.data as { taskId: string }).taskId);
    expect(task.status).toBe('stopped');
    expect(task.summary).toMatch(/^Monitor "firehose" was stopped: it printed more events than can be read/);
  });

  it('TaskStop-style stop ends it as stopped; a failing command is failed with its exit code', async () => {
    const { registry, ctx } = setup();
    const r = await run(MonitorTool, { description: 'tail', timeout_ms: 20_000, command: 'sleep 30' }, ctx);
    const id = (r.data as { taskId: string }).taskId;
    await registry.stop(id);
    expect(registry.get(id)!.status).toBe('stopped');
    const bad = await run(MonitorTool, { description: 'bad', timeout_ms: 20_000, command: 'echo before; exit 3' }, ctx);
    const task = await ended(registry, (bad.data as { taskId: string }).taskId);
    expect(task.status).toBe('failed');
    expect(task.summary).toBe('Monitor "bad" ended: its command exited with code 3 after 1 event');
  });

  it('fails clearly where there is no monitor service (a subagent)', async () => {
    const r = await run(MonitorTool, { description: 'd', command: 'true' }, makeCtx('/tmp'));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('only the main conversation can start a monitor');
  });
});

describe('ReportFindings', () => {
  const finding = {
    file: 'src/a.ts',
    line: 3,
    summary: 'off by one',
    failure_scenario: 'n = 0 reads past the end',
    severity: 'important',
    category: 'correctness',
  };

  it('echoes the findings for the host (the SDK ReportFindingsOutput) and gives the model a receipt', async () => {
    const r = await run(ReportFindingsTool, { level: 'high', findings: [finding] }, makeCtx('/tmp'));
    expect(text(r)).toBe('1 finding reported.');
    expect(r.data).toEqual({ count: 1, level: 'high', findings: [finding] });
    const none = await run(ReportFindingsTool, { findings: [] }, makeCtx('/tmp'));
    expect(text(none)).toBe('No findings reported.');
    expect(none.data).toEqual({ count: 0, findings: [] });
  });

  it('refuses a finding without its failure scenario, an unknown severity or an unknown field', async () => {
    const { failure_scenario: _, ...noScenario } = finding;
    for (const bad of [noScenario, { ...finding, severity: 'huge' }, { ...finding, extra: 1 }]) {
      const r = await run(ReportFindingsTool, { findings: [bad] }, makeCtx('/tmp'));
      expect(r.isError).toBe(true);
      expect(text(r)).toContain('InputValidationError');
    }
  });
});
