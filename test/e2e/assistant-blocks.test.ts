// A reply goes to the host one assistant line per content block, each as soon as its block is
// complete (same message id, stop_reason null, message_start usage), and a tool_use block's line
// is on stdout before any can_use_tool request or hook callback for that call, while tools still
// start as their blocks complete (measured from the reference: docs/protocol.md). The transcript
// keeps one entry per block, with the final stop reason, and a resume sends the reply whole.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, type ScriptedReply } from '../fake-api/server.js';
import { runAgent, STREAM_ARGS, startAgent, startFakeApi, tempDir, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

type Line = Record<string, any>;

/** Text, then two Bash calls, streamed slowly: the calls are asked about while the reply streams. */
function textAndTwoCalls(): ScriptedReply {
  return {
    chunkDelayMs: 25,
    content: [
      { type: 'text', text: 'Making two files.' },
      { type: 'tool_use', id: 'toolu_A', name: 'Bash', input: { command: 'touch a.txt', description: 'Make a' } },
      { type: 'tool_use', id: 'toolu_B', name: 'Bash', input: { command: 'touch b.txt', description: 'Make b' } },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 100, output_tokens: 50 },
  };
}

const holds = (l: Line, id: string) =>
  l.type === 'assistant' && l.message.content.some((b: any) => b.type === 'tool_use' && b.id === id);

/** Answers every can_use_tool (allow) and hook_callback (no opinion) as it arrives. */
function answerHost(p: ReturnType<typeof startAgent>): void {
  let cursor = 0;
  const timer = setInterval(() => {
    while (cursor < p.lines.length) {
      const m = JSON.parse(p.lines[cursor++]);
      if (m.type !== 'control_request') continue;
      const sub = m.request.subtype;
      if (sub !== 'can_use_tool' && sub !== 'hook_callback') continue;
      const response = sub === 'can_use_tool' ? { behavior: 'allow', updatedInput: m.request.input } : {};
      p.send({ type: 'control_response', response: { subtype: 'success', request_id: m.request_id, response } });
    }
  }, 10);
  p.exited.then(() => clearInterval(timer));
}

describe('one assistant line per content block', () => {
  it('each tool_use line comes before its can_use_tool and PreToolUse hook_callback; partial deltas interleave as the reference does', async () => {
    api = await startFakeApi([textAndTwoCalls(), text('done'), text('resumed')]);
    const config = tempDir('agent-config-');
    const cwd = tempDir();
    const p = startAgent({
      api,
      cwd,
      env: { CLAUDE_CONFIG_DIR: config },
      args: [...STREAM_ARGS, '--permission-prompt-tool', 'stdio', '--include-partial-messages'],
    });
    answerHost(p);
    p.send({
      type: 'control_request',
      request_id: 'init',
      request: { subtype: 'initialize', hooks: { PreToolUse: [{ matcher: 'Bash', hookCallbackIds: ['h1'] }] } },
    });
    p.sendRaw(userLine('make two files'));
    await p.waitFor((m) => m.type === 'result');
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const lines = p.json();

    // The first reply: three lines, one block each, same id, no stop reason yet, the start usage.
    const firstId = lines.find((x) => x.type === 'assistant')!.message.id;
    const first = lines.filter((l) => l.type === 'assistant' && l.message.id === firstId);
    expect(first.map((l) => l.message.content.map((b: any) => b.id ?? b.type))).toEqual([
      ['text'],
      ['toolu_A'],
      ['toolu_B'],
    ]);
    for (const l of first) {
      expect(l.message.stop_reason).toBeNull();
      expect(l.message.usage).toMatchObject({ input_tokens: 100 });
      expect(l.parent_tool_use_id).toBeNull();
    }
    expect(new Set(first.map((l) => l.uuid)).size).toBe(3);

    // Each call's line is out before anything asks about that call.
    for (const id of ['toolu_A', 'toolu_B']) {
      const shown = lines.findIndex((l) => holds(l, id));
      const asks = lines
        .map((l, i) => [l, i] as const)
        .filter(([l]) => l.type === 'control_request' && l.request.tool_use_id === id);
      expect(asks.map(([l]) => l.request.subtype).sort()).toEqual(['can_use_tool', 'hook_callback']);
      for (const [, i] of asks) expect(shown).toBeLessThan(i);
    }
    // Tools still start while the reply streams: A is asked about before the reply's message_stop.
    const askA = lines.findIndex((l) => l.type === 'control_request' && l.request.tool_use_id === 'toolu_A');
    const stop = lines.findIndex((l) => l.type === 'stream_event' && l.event.type === 'message_stop');
    expect(askA).toBeLessThan(stop);
    // With partial messages, a block's line comes after its last delta and before its content_block_stop.
    for (const [index, id] of [
      [1, 'toolu_A'],
      [2, 'toolu_B'],
    ] as const) {
      const shown = lines.findIndex((l) => holds(l, id));
      const blockStop = lines.findIndex(
        (l) => l.type === 'stream_event' && l.event.type === 'content_block_stop' && l.event.index === index,
      );
      expect(blockStop).toBe(shown + 1);
    }

    // The transcript: one entry per block, with the line's uuid and the reply's final stop reason.
    const sessionId = lines.find((l) => l.type === 'result')!.session_id;
    const path = join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
    const entries = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const kept = entries.filter((e) => e.type === 'assistant' && e.message.id === first[0].message.id);
    expect(kept.map((e) => e.uuid)).toEqual(first.map((l) => l.uuid));
    expect(kept.map((e) => [e.message.stop_reason, e.message.usage.output_tokens])).toEqual([
      ['tool_use', 50],
      ['tool_use', 50],
      ['tool_use', 50],
    ]);

    // A resume sends the reply as one message, its two calls' results right after it.
    const r = await runAgent({
      api,
      cwd,
      env: { CLAUDE_CONFIG_DIR: config },
      args: ['-p', 'and now?', '--resume', sessionId, '--output-format', 'stream-json', '--verbose'],
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = api.requests[api.requests.length - 1].body.messages;
    expect(
      sent.slice(1, 3).map((m: any) => [m.role, m.content.map((b: any) => b.id ?? b.tool_use_id ?? b.type)]),
    ).toEqual([
      ['assistant', ['text', 'toolu_A', 'toolu_B']],
      ['user', ['toolu_A', 'toolu_B']],
    ]);
  });

  it('-p with stream-json output: the same lines, each block as it completes', async () => {
    api = await startFakeApi([textAndTwoCalls(), text('done')]);
    const r = await runAgent({
      api,
      args: ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'],
    });
    expect(r.code, r.stderr).toBe(0);
    const shown = r
      .json()
      .filter((l) => l.type === 'assistant')
      .map((l) => [l.message.content.map((b: any) => b.id ?? b.text), l.message.stop_reason]);
    expect(shown).toEqual([
      [['Making two files.'], null],
      [['toolu_A'], null],
      [['toolu_B'], null],
      [['done'], null],
    ]);
  });
});

describe("a subagent's lines", () => {
  it("a subagent's tool_use line comes before its can_use_tool and hook_callback, even while the parent's reply still streams", async () => {
    const SUB = 'SUBX: make a file';
    api = await startFakeApi((req) => {
      const first = req.body.messages[0]?.content;
      const firstText = typeof first === 'string' ? first : (first?.find((b: any) => b.type === 'text')?.text ?? '');
      const sub = firstText.startsWith('SUBX:');
      const n = req.body.messages.filter((m: any) => m.role === 'assistant').length;
      if (sub)
        return n === 0
          ? {
              content: [{ type: 'tool_use', id: 'toolu_S', name: 'Bash', input: { command: 'touch s.txt' } }],
              stop_reason: 'tool_use',
              usage: { input_tokens: 10, output_tokens: 5 },
            }
          : text('sub done');
      if (n > 0) return text('parent done');
      // The Task call starts at its block's end; the long text after it keeps the reply streaming.
      return {
        chunkDelayMs: 40,
        content: [
          {
            type: 'tool_use',
            id: 'toolu_T',
            name: 'Task',
            input: { description: 'Make a file', prompt: SUB, subagent_type: 'general-purpose' },
          },
          { type: 'text', text: 'Waiting for the agent while it works on the file in the folder now.' },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 100, output_tokens: 50 },
      };
    });
    const cwd = tempDir();
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-prompt-tool', 'stdio', '--include-partial-messages'],
    });
    answerHost(p);
    p.send({
      type: 'control_request',
      request_id: 'init',
      request: { subtype: 'initialize', hooks: { PreToolUse: [{ matcher: 'Bash', hookCallbackIds: ['h1'] }] } },
    });
    p.sendRaw(userLine('delegate'));
    await p.waitFor((m) => m.type === 'result', 20_000);
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const lines = p.json();
    const shown = lines.findIndex((l) => holds(l, 'toolu_S'));
    expect(shown).toBeGreaterThan(-1);
    expect(lines[shown].parent_tool_use_id).toBe('toolu_T');
    const asks = lines
      .map((l, i) => [l, i] as const)
      .filter(([l]) => l.type === 'control_request' && l.request.tool_use_id === 'toolu_S');
    expect(asks.map(([l]) => l.request.subtype).sort()).toEqual(['can_use_tool', 'hook_callback']);
    for (const [, i] of asks) expect(shown).toBeLessThan(i);
  });
});
