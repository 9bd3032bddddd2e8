// Tools start while the reply streams: at each tool_use block's content_block_stop, through the
// whole pipeline (a host's can_use_tool is asked while the model still streams); a stream that
// fails after a tool started is never retried, so no tool runs twice, and the conversation stays valid.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastToolResults, text, type ScriptedReply } from '../fake-api/server.js';
import { runAgent, startAgent, startTestApi, STREAM_ARGS, tempDir, userLine } from './harness.js';

// The tests run side by side (describe.concurrent): each has its own API, closed when it ends.

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions'];
const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });

describe.concurrent('tools that start while the reply streams', () => {
  it('a tool runs as soon as its block is complete, long before the reply ends', async ({ onTestFinished }) => {
    const cwd = tempDir();
    const arrived: number[] = [];
    const replies: ScriptedReply[] = [
      // ~6 events a block, 150 ms apart: the reply ends ~2.5 s after the first block is complete.
      { content: [bash('t1', 'date +%s%3N > t1'), bash('t2', 'ls'), bash('t3', 'pwd')], chunkDelayMs: 150 },
      text('done'),
    ];
    const api = await startTestApi({ onTestFinished }, (_req, i) => {
      arrived.push(Date.now());
      return replies[i];
    });
    const r = await runAgent({ api, cwd, args: ARGS, input: userLine('go') });
    expect(r.code).toBe(0);
    const ranAt = Number(readFileSync(join(cwd, 't1'), 'utf8').trim());
    expect(arrived).toHaveLength(2);
    // The first call ran while blocks two and three were still streaming.
    expect(arrived[1] - ranAt).toBeGreaterThan(1000);
    expect(lastToolResults(api.requests[1]).map((b) => b.tool_use_id)).toEqual(['t1', 't2', 't3']);
  });

  it('ten read-only Bash calls in one reply run side by side, and stderr carries no listener warning', async ({
    onTestFinished,
  }) => {
    const calls = Array.from({ length: 10 }, (_, i) => bash(`s${i}`, 'sleep 1'));
    const replies: ScriptedReply[] = [{ content: calls }, text('all slept')];
    const arrived: number[] = [];
    const api = await startTestApi({ onTestFinished }, (_req, i) => {
      arrived.push(Date.now());
      return replies[i];
    });
    const r = await runAgent({ api, args: ARGS, input: userLine('sleep ten times') });
    expect(r.code).toBe(0);
    const results = lastToolResults(api.requests[1]);
    expect(results.map((b) => b.tool_use_id)).toEqual(calls.map((c) => c.id));
    expect(results.every((b) => !b.is_error)).toBe(true);
    // Side by side: about a second in all, not ten.
    expect(arrived[1] - arrived[0]).toBeLessThan(5_000);
    // Each call listens to the run's abort signal while it runs (Node warns past 10 listeners).
    expect(r.stderr).not.toMatch(/MaxListenersExceededWarning/);
  });

  for (const how of ['cut', 'error'] as const) {
    it(`a stream that fails (${how}) after a tool started: the tool runs once, the complete blocks and their results are kept, no retry`, async ({
      onTestFinished,
    }) => {
      const cwd = tempDir();
      const api = await startTestApi({ onTestFinished }, [
        {
          content: [
            { type: 'text', text: 'Running it.' },
            bash('t1', 'echo ran >> runs.txt'),
            bash('t2', 'echo never >> runs.txt'),
          ],
          failAfterBlocks: { blocks: 2, how },
        },
        text('done'),
      ]);
      const r = await runAgent({ api, cwd, args: ARGS, input: userLine('go') });
      expect(r.code).toBe(0);
      expect(readFileSync(join(cwd, 'runs.txt'), 'utf8')).toBe('ran\n');
      expect(api.requests).toHaveLength(2);
      const [, assistant, results] = api.requests[1].body.messages;
      expect(assistant.content.map((b: any) => b.type)).toEqual(['text', 'tool_use']);
      expect(assistant.content[1].id).toBe('t1');
      expect(results.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id)).toEqual([
        't1',
      ]);
      const result = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((m) => m.type === 'result');
      expect(result).toMatchObject({ subtype: 'success', result: 'done' });
    });
  }

  it("a host's can_use_tool is asked and answered while the reply still streams", async ({ onTestFinished }) => {
    const cwd = tempDir();
    const api = await startTestApi({ onTestFinished }, [
      {
        content: [bash('t1', 'touch asked'), { type: 'text', text: 'and a long tail of text after the call' }],
        chunkDelayMs: 300,
      },
      text('done'),
    ]);
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--permission-prompt-tool', 'stdio'] });
    p.sendRaw(userLine('go'));
    const ask = await p.waitFor((m) => m.type === 'control_request' && m.request?.subtype === 'can_use_tool', 15_000);
    // The reply is still streaming (its text block is not out yet), but the call's own block is.
    const shown = p.json().filter((m) => m.type === 'assistant');
    expect(shown.map((m) => m.message.content.map((b: any) => b.id ?? b.type))).toEqual([['t1']]);
    expect(shown[0].message.stop_reason).toBeNull();
    p.send({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: ask.request_id,
        response: { behavior: 'allow', updatedInput: ask.request.input },
      },
    });
    const result = await p.waitFor((m) => m.type === 'result', 15_000);
    p.endInput();
    await p.exited;
    expect(result.subtype).toBe('success');
    expect(readFileSync(join(cwd, 'asked'), 'utf8')).toBe('');
  });
});
