// Monitor and ReportFindings through bin/agent: a monitor's stdout lines reach the model as
// notification turns after the result, then its end; -p waits for it as for any background task.
// ReportFindings hands the host typed findings in tool_use_result.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { lastUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { resultsById, runAgent, startTestApi } from './harness.js';

const P = ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'];
const toolResult = (req: RecordedRequest, id: string) => resultsById(req)[id];

// The tests run side by side (describe.concurrent), each with its own API (and socket server).

describe.concurrent('Monitor', () => {
  it('-p: each stdout line comes back as a notification turn with its own result, then the end; the process waits for it', async ({
    onTestFinished,
  }) => {
    const seen: string[] = [];
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const said = lastUserText(req);
      if (toolResult(req, 'toolu_mon')) return text('watching');
      if (said.includes('<status>')) return text('monitor done');
      const events = [...said.matchAll(/<event>([\s\S]*?)<\/event>/g)].map((m) => m[1]);
      if (events.length) {
        seen.push(...events);
        return text(`seen ${events.join(' | ')}`);
      }
      return toolUse(
        'Monitor',
        {
          description: 'ticks',
          timeout_ms: 20_000,
          command: 'for i in 1 2 3; do echo tick $i; sleep 0.7; done; echo noise >&2',
        },
        'toolu_mon',
      );
    });
    try {
      const r = await runAgent({
        api,
        args: ['-p', 'watch the ticks', '--allowedTools', 'Monitor', ...P],
        timeoutMs: 40_000,
      });
      expect(r.code).toBe(0);
      const msgs = r.json();
      const results = msgs.filter((m) => m.type === 'result').map((m) => m.result);
      expect(results[0]).toBe('watching');
      expect(results.at(-1)).toBe('monitor done');
      expect(seen.join('\n').split('\n')).toEqual(['tick 1', 'tick 2', 'tick 3']);
      const started = msgs.find((m) => m.type === 'system' && m.subtype === 'task_started');
      expect(started).toMatchObject({ task_type: 'local_bash', description: 'ticks', tool_use_id: 'toolu_mon' });
      const note = msgs.find((m) => m.type === 'system' && m.subtype === 'task_notification');
      expect(note).toMatchObject({ status: 'completed', task_id: started!.task_id });
      expect(note!.summary).toBe('Monitor "ticks" ended: its command exited with code 0 after 3 events');
      const out = msgs.find((m) => m.type === 'user' && m.tool_use_result?.taskId);
      expect(out!.tool_use_result).toEqual({ taskId: started!.task_id, timeoutMs: 20_000, persistent: false });
      // Monitor is deferred (loaded by ToolSearch): not in the first request; called by name, it is
      // offered from the next one on, with the reference's fields.
      const names = (i: number) => api.requests[i].body.tools.map((t: { name: string }) => t.name);
      expect(names(0)).not.toContain('Monitor');
      expect(names(1)).toContain('Monitor');
      const tool = api.requests[1].body.tools.find((t: { name: string }) => t.name === 'Monitor');
      expect(Object.keys(tool.input_schema.properties).sort()).toEqual(['command', 'description', 'timeout_ms', 'ws']);
    } finally {
      await api.close();
    }
  });
});

describe.concurrent('Monitor ws source', () => {
  it('-p: each text frame of a WebSocket comes back as an event turn; the close ends the watch', async ({
    onTestFinished,
  }) => {
    const server = createServer();
    server.on('upgrade', (req, socket) => {
      const accept = createHash('sha1')
        .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      socket.on('error', () => {});
      const frame = (s: string) => Buffer.concat([Buffer.from([0x81, s.length]), Buffer.from(s)]);
      setTimeout(() => socket.write(frame('build green')), 300);
      setTimeout(() => socket.end(Buffer.from([0x88, 2, 0x03, 0xe8])), 900);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const events: string[] = [];
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const said = lastUserText(req);
      if (toolResult(req, 'toolu_ws')) return text('watching the socket');
      if (said.includes('<status>')) return text('socket closed');
      const got = [...said.matchAll(/<event>([\s\S]*?)<\/event>/g)].map((m) => m[1]);
      if (got.length) {
        events.push(...got);
        return text('noted');
      }
      return toolUse('Monitor', { description: 'ci', timeout_ms: 20_000, ws: { url } }, 'toolu_ws');
    });
    try {
      const r = await runAgent({ api, args: ['-p', 'watch ci', '--allowedTools', 'Monitor', ...P], timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      expect(events).toEqual(['build green']);
      const note = r.json().find((m) => m.type === 'system' && m.subtype === 'task_notification');
      expect(note!.summary).toBe('Monitor "ci" ended: the socket closed with code 1000 after 1 event');
      expect(
        r
          .json()
          .filter((m) => m.type === 'result')
          .at(-1)!.result,
      ).toBe('socket closed');
    } finally {
      server.close();
      await api.close();
    }
  });
});

describe.concurrent('ReportFindings', () => {
  it('the findings reach the host as tool_use_result ({count, level, findings}); the model gets a receipt', async ({
    onTestFinished,
  }) => {
    const finding = {
      file: 'src/a.ts',
      line: 12,
      summary: 'The loop skips the last element',
      short_summary: 'Off-by-one skips last element',
      failure_scenario: 'items = [1, 2] sums to 1',
      category: 'correctness',
      severity: 'important',
      verdict: 'CONFIRMED',
    };
    const api = await startTestApi(
      { onTestFinished },
      (req): ScriptedReply =>
        toolResult(req, 'toolu_rf')
          ? text(`host has it: ${toolResult(req, 'toolu_rf').text}`)
          : toolUse('ReportFindings', { level: 'medium', findings: [finding] }, 'toolu_rf'),
    );
    try {
      const r = await runAgent({ api, args: ['-p', 'review', ...P], timeoutMs: 20_000 });
      expect(r.code).toBe(0);
      const msgs = r.json();
      const reported = msgs.find((m) => m.type === 'user' && m.tool_use_result?.findings);
      expect(reported!.tool_use_result).toEqual({ count: 1, level: 'medium', findings: [finding] });
      expect(msgs.find((m) => m.type === 'result')!.result).toBe('host has it: 1 finding reported.');
    } finally {
      await api.close();
    }
  });
});
