// The stream-json protocol end to end: bin/agent against the fake Messages API.
import { describe, expect, it } from 'vitest';
import { outboundSchema } from '../../src/protocol/outbound.js';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import {
  runAgent,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type FakeApi,
  sharedSession,
} from './harness.js';
import { startFakeApi as startOwnFakeApi } from '../fake-api/server.js';

let api: FakeApi | undefined;

/** Every stdout line is one protocol message that our own schema accepts. */
function expectPureProtocol(lines: string[]) {
  for (const line of lines) {
    const parsed = outboundSchema.safeParse(JSON.parse(line));
    expect(parsed.success, `not a protocol line: ${line}`).toBe(true);
  }
}

const ODD = [
  '[1,2,3]',
  'null',
  '"just a string"',
  '{"type":"user","message":{"role":"user","content":5}}',
  '{"type":"control_request","request":{"subtype":"interrupt"}}',
  '{"type":"control_response","response":{"subtype":"success","request_id":"nobody"}}',
  '{"type":"mystery"}',
  `{"deeply":${'['.repeat(5000)}${']'.repeat(5000)}}`,
];

/**
 * What the session makes of odd stdin shares one plain STREAM_ARGS session, in three rounds, each
 * sent once the one before has its result: bad lines then a prompt (stdin lines 1–5), odd lines then
 * a prompt (lines 6–14), then a prompt split mid-character in CRLF (line 15). Each check reads its
 * round's stdout lines and request, and the session's stderr. Made once, by the first check that
 * reads it, with a fake API of its own.
 */

async function oddSession() {
  const own = await startOwnFakeApi([text('still here'), text('unshaken'), text('ok')]);
  try {
    const p = startAgent({ api: own, args: STREAM_ARGS });
    const rounds: Array<{ lines: string[]; requests: typeof own.requests }> = [];
    const round = async (name: string, send: () => Promise<void>) => {
      const [line0, req0] = [p.lines.length, own.requests.length];
      await send();
      let n = 0;
      await p
        .waitFor((m) => m.type === 'result' && ++n === rounds.length + 1)
        .catch((e: Error) => {
          p.child.kill('SIGKILL');
          throw new Error(`the shared odd-stdin session, round "${name}": ${e.message}`);
        });
      rounds.push({ lines: p.lines.slice(line0), requests: own.requests.slice(req0) });
    };
    await round('bad lines', async () => {
      p.sendRaw(`this is not json\n{"type":"user","message":{"role":"robot"}}\n\n   \n${userLine('hello')}`);
    });
    await round('odd lines', async () => {
      p.sendRaw(`${ODD.join('\n')}\n${userLine('still?')}`);
    });
    await round('framing', async () => {
      const line = Buffer.from(userLine('café \u2028 separator').replace(/\n$/, '\r\n'), 'utf8');
      const cut = line.indexOf(Buffer.from('é')) + 1; // inside the two bytes of é
      p.child.stdin!.write(line.subarray(0, cut));
      await new Promise((r) => setTimeout(r, 50));
      p.child.stdin!.write(line.subarray(cut));
    });
    p.endInput();
    const { code } = await p.exited;
    expect(own.requests, 'requests of the shared odd-stdin session').toHaveLength(3);
    const [bad, odd, framing] = rounds.map((r) => ({ ...r, json: () => r.lines.map((l) => JSON.parse(l)) }));
    return { code, stderr: p.stderr(), bad: bad!, odd: odd!, framing: framing! };
  } finally {
    await own.close();
  }
}
const oddRounds = sharedSession('odd-stdin', oddSession);

describe('stream-json session', () => {
  it('runs a tool call and answers: init, assistant, tool result, result', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo hello-from-bash' }), text('All done.')]);
    const cwd = tempDir();
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools=Bash(echo:*)'],
      input: userLine('say hello'),
    });
    expect(r.code).toBe(0);
    expectPureProtocol(r.lines);
    const msgs = r.json();
    expect(msgs[0]).toMatchObject({ type: 'system', subtype: 'init', cwd, permissionMode: 'default' });
    expect(msgs[0].tools).toEqual(expect.arrayContaining(['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep']));
    const sessionId = msgs[0].session_id;
    for (const m of msgs) {
      expect(m.session_id).toBe(sessionId);
      expect(typeof m.uuid).toBe('string');
    }
    const assistant = msgs.filter((m) => m.type === 'assistant');
    expect(assistant).toHaveLength(2);
    expect(assistant[0].parent_tool_use_id).toBeNull();
    expect(assistant[0].message.content[0]).toMatchObject({ type: 'tool_use', name: 'Bash' });
    const toolResult = msgs.find((m) => m.type === 'user');
    expect(toolResult!.message.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: assistant[0].message.content[0].id,
    });
    expect(JSON.stringify(toolResult!.message.content[0].content)).toContain('hello-from-bash');
    expect(toolResult!.tool_use_result).toMatchObject({ stdout: expect.stringContaining('hello-from-bash') });
    const result = msgs[msgs.length - 1];
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'All done.',
      num_turns: 2,
    });
    expect(result.total_cost_usd).toBeGreaterThan(0);
    expect(Object.keys(result.modelUsage)).toHaveLength(1);
    // The model saw the tool's output on its second call.
    expect(api.requests).toHaveLength(2);
    expect(JSON.stringify(lastToolResults(api.requests[1]))).toContain('hello-from-bash');
    expect(api.requests[0].body.tools.map((t: { name: string }) => t.name)).toContain('Bash');
  });

  it('answers prompts sent one after another, each with its own result, history growing', async () => {
    const usage = { input_tokens: 1_000, output_tokens: 10 };
    api = await startFakeApi(['first answer', 'second answer', 'third answer'].map((t) => ({ ...text(t), usage })));
    const p = startAgent({ api, args: STREAM_ARGS });
    for (const [i, prompt] of ['one', 'two', 'three'].entries()) {
      p.sendRaw(userLine(prompt));
      await p.waitFor(
        (m) =>
          m.type === 'result' &&
          m.num_turns !== undefined &&
          p.json().filter((x) => x.type === 'result').length === i + 1,
      );
    }
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const results = p.json().filter((m) => m.type === 'result');
    expect(results.map((m) => m.result)).toEqual(['first answer', 'second answer', 'third answer']);
    expect(new Set(results.map((m) => m.session_id)).size).toBe(1);
    // As on the reference: total_cost_usd and modelUsage run over the session, usage is the turn's.
    const model = Object.keys(results[0].modelUsage)[0];
    for (const [i, r] of results.entries()) {
      const turnCost = results[0].total_cost_usd;
      expect(r.total_cost_usd).toBeCloseTo(turnCost * (i + 1), 10);
      expect(r.modelUsage[model].costUSD).toBeCloseTo(r.total_cost_usd, 10);
      expect(r.usage).toMatchObject(usage);
      expect(r.modelUsage[model]).toMatchObject({ inputTokens: 1_000 * (i + 1), outputTokens: 10 * (i + 1) });
    }
    expect(api.requests[2].body.messages).toHaveLength(5);
    // The newest block carries the rolling prompt-cache mark.
    expect(api.requests[2].body.messages[4].content).toEqual([
      { type: 'text', text: 'three', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('queues a prompt that arrives while a run is going, and drops nothing', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'sleep 0.5; echo slept' }),
      text('after sleep'),
      text('second prompt answered'),
    ]);
    const p = startAgent({ api, args: [...STREAM_ARGS, '--allowedTools', 'Bash'] });
    p.sendRaw(userLine('first'));
    await p.waitFor((m) => m.type === 'assistant');
    p.sendRaw(userLine('second'));
    p.endInput();
    const { code } = await p.exited;
    expect(code).toBe(0);
    const results = p.json().filter((m) => m.type === 'result');
    expect(results.map((m) => m.result)).toEqual(['after sleep', 'second prompt answered']);
  });

  it('reports bad lines (not JSON, wrong shape) with their line numbers and goes on', async () => {
    const s = await oddRounds();
    const r = { ...s.bad, stderr: s.stderr };
    expectPureProtocol(r.lines);
    const errors = r.json().filter((m) => m.type === 'system' && m.subtype === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0].error).toMatch(/line 1: not valid JSON/);
    expect(errors[1].error).toMatch(/line 2: not a valid user message \(message.role: /);
    expect(r.stderr).toMatch(/stdin line 1: not valid JSON/);
    expect(r.stderr).toMatch(/stdin line 2/);
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'still here' });
  });

  it('survives odd lines: wrong JSON types, a control request without id, a response to nobody', async () => {
    const s = await oddRounds();
    // Stdin lines 6–13 (after the first round's five).
    const r = { ...s.odd, stderr: s.stderr };
    expectPureProtocol(r.lines);
    const errors = r.json().filter((m) => m.type === 'system' && m.subtype === 'error');
    expect(errors.map((e) => e.line)).toEqual([6, 7, 8, 9, 10, 12, 13]);
    // An unknown type is named, with the line and the types that would be understood.
    expect(errors[5].error).toBe(
      'stdin line 12: unknown message type "mystery" (expected one of: user, control_request, control_response, control_cancel_request, keep_alive); the line was skipped',
    );
    expect(errors[0].error).toMatch(
      /stdin line 6: not a message: expected a JSON object with a "type" field, got an array/,
    );
    expect(r.stderr).toMatch(/stdin line 12: unknown message type "mystery"/);
    expect(r.stderr).toMatch(/control_response for unknown request nobody/);
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({ result: 'unshaken' });
  });

  it('frames on \\n only: CRLF lines, U+2028 inside a string, a character split across chunks', async () => {
    const { framing } = await oddRounds();
    expect(framing.requests).toHaveLength(1);
    expect(framing.requests[0].body.messages.at(-1).content[0].text).toBe('café \u2028 separator');
    expect(framing.json().filter((m) => m.type === 'system' && m.subtype === 'error')).toEqual([]);
  });

  it('writes nothing and exits 0 when stdin closes before any message', async () => {
    const r = await runAgent({ args: STREAM_ARGS, input: '' });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([]);
  });

  it('emits stream_event lines with --include-partial-messages', async () => {
    api = await startFakeApi([text('streamed words')]);
    const r = await runAgent({ api, args: [...STREAM_ARGS, '--include-partial-messages'], input: userLine('hi') });
    expectPureProtocol(r.lines);
    const events = r.json().filter((m) => m.type === 'stream_event');
    expect(events.map((e) => e.event.type)).toEqual(
      expect.arrayContaining(['message_start', 'content_block_start', 'content_block_delta', 'message_stop']),
    );
    expect(events.every((e) => e.parent_tool_use_id === null)).toBe(true);
  });
});

describe('control requests', () => {
  it('refuses out loud an initialize it cannot use (a broken jsonSchema)', async () => {
    api = await startFakeApi([text('still answers')]);
    const p = startAgent({ api, args: STREAM_ARGS });
    p.send({
      type: 'control_request',
      request_id: 'j1',
      request: { subtype: 'initialize', jsonSchema: { type: 'nope' } },
    });
    await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'j1');
    p.sendRaw(userLine('hi'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const responses = Object.fromEntries(
      p
        .json()
        .filter((m) => m.type === 'control_response')
        .map((m) => [m.response.request_id, m.response]),
    );
    expect(responses.j1).toMatchObject({
      subtype: 'error',
      error: expect.stringMatching(/jsonSchema: the JSON schema must describe an object/),
    });
  });

  it('an in-process MCP server the host cannot serve (mcp_message answered with an error) is "failed"; the run goes on', async () => {
    api = await startFakeApi([text('still answers')]);
    const p = startAgent({ api, args: STREAM_ARGS });
    p.send({ type: 'control_request', request_id: 'm1', request: { subtype: 'initialize', sdkMcpServers: ['calc'] } });
    const ask = await p.waitFor((m) => m.type === 'control_request' && m.request.subtype === 'mcp_message');
    expect(ask.request).toMatchObject({ server_name: 'calc', message: { jsonrpc: '2.0', method: 'initialize' } });
    p.send({
      type: 'control_response',
      response: { subtype: 'error', request_id: ask.request_id, error: 'no such server: calc' },
    });
    p.sendRaw(userLine('hi'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const responses = Object.fromEntries(
      p
        .json()
        .filter((m) => m.type === 'control_response')
        .map((m) => [m.response.request_id, m.response]),
    );
    expect(responses.m1).toMatchObject({ subtype: 'success' });
    expect(p.json().find((m) => m.type === 'system' && m.subtype === 'init')!.mcp_servers).toEqual([
      { name: 'calc', status: 'failed' },
    ]);
    expect(p.stderr()).toMatch(/MCP server "calc" failed: .*no such server: calc/);
    expect(p.json().find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'still answers' });
  });

  it('answers initialize, set_model, set_permission_mode and errors on unknown or malformed requests', async () => {
    api = await startFakeApi([text('done')]);
    const p = startAgent({ api, args: STREAM_ARGS });
    const ask = (request_id: string, request: object) => p.send({ type: 'control_request', request_id, request });
    ask('r1', { subtype: 'initialize', hooks: null, systemPrompt: 'You are a test double.' });
    ask('r2', { subtype: 'no_such_thing' });
    ask('r3', { subtype: 'set_model', model: 42 });
    ask('r4', { subtype: 'set_model', model: 'claude-haiku-4-5' });
    ask('r5', { subtype: 'set_permission_mode', mode: 'acceptEdits' });
    ask('r6', { subtype: 'set_permission_mode', mode: 'yolo' });
    await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'r6');
    p.sendRaw(userLine('go'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const responses = Object.fromEntries(
      p
        .json()
        .filter((m) => m.type === 'control_response')
        .map((m) => [m.response.request_id, m.response]),
    );
    expect(responses.r1).toMatchObject({
      subtype: 'success',
      response: {
        commands: expect.arrayContaining([expect.objectContaining({ name: 'compact', builtin: true })]),
        output_style: 'default',
      },
    });
    expect(responses.r2).toMatchObject({
      subtype: 'error',
      error: 'Unsupported control request subtype: no_such_thing',
    });
    expect(responses.r3).toMatchObject({ subtype: 'error', error: 'set_model: model must be a string' });
    expect(responses.r4.subtype).toBe('success');
    expect(responses.r5.subtype).toBe('success');
    expect(responses.r6).toMatchObject({ subtype: 'error' });
    expect(api.requests[0].body.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(api.requests[0].body.system)).toContain('You are a test double.');
    expect(p.json().find((m) => m.subtype === 'init')!.permissionMode).toBe('acceptEdits');
  });

  it('set_model "default" goes back to the session default, which ANTHROPIC_MODEL sets (as a settings reload does); initialize\'s "Default" is that model', async () => {
    api = await startFakeApi([text('one'), text('two')]);
    const p = startAgent({ api, args: STREAM_ARGS, env: { ANTHROPIC_MODEL: 'claude-haiku-4-5' } });
    const ask = (request_id: string, request: object) => p.send({ type: 'control_request', request_id, request });
    ask('m1', { subtype: 'set_model', model: 'opus' });
    // The session runs opus now; "Default" still names where set_model "default" goes.
    ask('i1', { subtype: 'initialize' });
    const init = await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'i1');
    expect(init.response.response.models[0]).toMatchObject({ value: 'default', resolvedModel: 'claude-haiku-4-5' });
    ask('m2', { subtype: 'set_model', model: 'default' });
    await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'm2');
    p.sendRaw(userLine('first'));
    await p.waitFor((m) => m.type === 'result');
    ask('m3', { subtype: 'set_model', model: 'opus' });
    ask('m4', { subtype: 'apply_flag_settings', settings: { model: null } });
    await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'm4');
    p.sendRaw(userLine('second'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(api.requests.map((r) => r.body.model)).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5']);
  });
});
