// Monitor over a real TaskRegistry and real shell commands: events from stdout lines (batched),
// stderr kept out of them, how a watch ends (exit, expiry, flood, TaskStop), and ReportFindings.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A WebSocket server that sends `frames` (opcode, payload) once a client connects, then closes with `code`. */
async function wsServer(frames: Array<[number, Buffer]>, code: number): Promise<{ url: string; server: Server }> {
  const server = createServer();
  server.on('upgrade', (req, socket) => {
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    let i = 0;
    const next = () => {
      if (i < frames.length) {
        const [op, payload] = frames[i++];
        socket.write(Buffer.concat([Buffer.from([0x80 | op, payload.length]), payload]));
        setTimeout(next, 250);
      } else socket.end(Buffer.from([0x88, 2, code >> 8, code & 0xff]));
    };
    next();
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('Monitor ws source', () => {
  it('turns each text frame into an event (a multi-line frame stays one), names binary frames, and ends with the close code', async () => {
    const { url, server } = await wsServer(
      [
        [1, Buffer.from('deploy started')],
        [1, Buffer.from('step 1\nstep 2')],
        [2, Buffer.from([1, 2, 3])],
      ],
      1000,
    );
    try {
      const { registry, ctx, host } = setup();
      const r = await run(MonitorTool, { description: 'deploys', timeout_ms: 10_000, ws: { url } }, ctx);
      expect(r.isError).toBeFalsy();
      const task = await ended(registry, (r.data as { taskId: string }).taskId);
      expect(task.status).toBe('completed');
      expect(task.summary).toBe('Monitor "deploys" ended: the socket closed with code 1000 after 3 events');
      const notice = host.takeNotice()!;
      expect(notice).toContain('<event>deploy started</event>');
      expect(notice).toContain('<event>step 1\nstep 2</event>');
      expect(notice).toContain('<event>[binary frame, 3 bytes]</event>');
    } finally {
      server.close();
    }
  });

  it('refuses both sources at once, a URL that is not ws, and a socket under an active sandbox', async () => {
    const { ctx } = setup();
    const both = await run(MonitorTool, { description: 'd', command: 'true', ws: { url: 'ws://x' } }, ctx);
    expect(text(both)).toContain('Give either `command` or `ws`, not both.');
    const http = await run(MonitorTool, { description: 'd', ws: { url: 'http://x' } }, ctx);
    expect(text(http)).toContain('ws.url must be a ws:// or wss:// URL, not http:');
    const sandboxed = makeCtx('/tmp', {
      services: { ...ctx.services, sandbox: { status: { enabled: true, active: true } } as never },
    });
    const sb = await run(MonitorTool, { description: 'd', ws: { url: 'ws://x' } }, sandboxed);
    expect(text(sb)).toContain('not available while the Bash sandbox is on');
    const none = await run(MonitorTool, { description: 'd' }, ctx);
    expect(text(none)).toContain('Give `command`');
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
