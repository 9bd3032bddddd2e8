// The fields hosts read, on the wire (what the reference sends, measured: docs/protocol.md):
// the result's terminal_reason and timing fields, system/status on a permission-mode change and
// before each request with partial messages, and an error told once (the result line, not stderr).
// Every stdout line must parse with the strict protocol schemas.
import { describe, expect, it } from 'vitest';
import { outboundSchema } from '../../src/protocol/outbound.js';
import { badRequest, text, toolUse } from '../fake-api/server.js';
import { join } from 'node:path';
import {
  calls,
  runAgent,
  STREAM_ARGS,
  startAgent,
  startFakeApi,
  tempDir,
  turns,
  userLine,
  type FakeApi,
  once,
} from './harness.js';

let api: FakeApi | undefined;

type Line = Record<string, any>;
function checked(lines: Line[]): Line[] {
  for (const l of lines) {
    const parsed = outboundSchema.safeParse(l);
    if (!parsed.success) throw new Error(`not a protocol line: ${JSON.stringify(l)}: ${parsed.error.message}`);
  }
  return lines;
}
const resultOf = (lines: Line[]) => lines.filter((m) => m.type === 'result').pop()!;

/**
 * One stream-json session (no other flags) for three tests, made by whichever asks first: its
 * first turn ('hi') is answered, its second ('go') is a 400 from the API.
 */
const plainSession = once(runPlainSession);

async function runPlainSession() {
  const own = await startFakeApi((req) =>
    turns(req) === 0 ? { ...text('hello there'), delayMs: 50, chunkDelayMs: 20 } : badRequest('bad thing X'),
  );
  try {
    const r = await runAgent({ api: own, args: [...STREAM_ARGS], input: userLine('hi') + userLine('go') });
    const results = checked(r.json()).filter((m) => m.type === 'result');
    expect(results, `the shared session's results; stderr: ${r.stderr}`).toHaveLength(2);
    return { r, completed: results[0]!, failed: results[1]! };
  } finally {
    await own.close();
  }
}

describe('the result line', () => {
  it('carries terminal_reason completed and the timing fields, in order', async () => {
    const result = (await plainSession()).completed;
    expect(result.terminal_reason).toBe('completed');
    const { time_to_request_ms: req, ttft_stream_ms: stream, ttft_ms: token, first_content_frame_ms: frame } = result;
    for (const v of [req, stream, token, frame]) expect(v).toEqual(expect.any(Number));
    expect(req).toBeLessThanOrEqual(stream);
    // The reply starts 50 ms after its request.
    expect(stream - req).toBeGreaterThanOrEqual(40);
    expect(stream).toBeLessThanOrEqual(token);
    expect(token).toBeLessThanOrEqual(frame);
    expect(frame).toBeLessThanOrEqual(result.duration_ms);
  });

  it.each([
    ['max_turns', () => toolUse('Bash', { command: 'true' }), ['--max-turns', '1', '--allowedTools', 'Bash']],
    [
      'budget_exhausted',
      () => ({ ...toolUse('Bash', { command: 'true' }), usage: { input_tokens: 1_000_000, output_tokens: 1 } }),
      ['--max-budget-usd', '0.5', '--allowedTools', 'Bash'],
    ],
  ])('terminal_reason %s (as the reference reports it)', async (reason, reply, args) => {
    api = await startFakeApi(reply as never);
    const r = await runAgent({ api, args: [...STREAM_ARGS, ...(args as string[])], input: userLine('go') });
    expect(resultOf(checked(r.json())).terminal_reason).toBe(reason);
  });

  it('terminal_reason api_error (as the reference reports it)', async () => {
    // The shared session's second turn.
    expect((await plainSession()).failed.terminal_reason).toBe('api_error');
  });

  it('in stream-json mode an API error is in the result line only, not repeated on stderr', async () => {
    const { r, failed } = await plainSession();
    expect(failed).toMatchObject({ is_error: true, errors: ['API Error: 400 bad thing X'] });
    expect(r.stderr).not.toContain('bad thing X');
    // In text mode stderr is where the error goes.
    api = await startFakeApi(() => badRequest('bad thing X'));
    const plain = await runAgent({ api, args: ['-p', 'go'] });
    expect(plain.stderr).toContain('API Error: 400 bad thing X');
  });
});

describe('system/status', () => {
  it('tells a permission-mode change (set_permission_mode) and, with partial messages, each request going out', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'true' }), text('one'), text('two')]);
    const p = startAgent({ api, args: [...STREAM_ARGS, '--include-partial-messages', '--allowedTools', 'Bash'] });
    p.sendRaw(userLine('first'));
    await p.waitFor((m) => m.type === 'result');
    p.send({
      type: 'control_request',
      request_id: 'm1',
      request: { subtype: 'set_permission_mode', mode: 'acceptEdits' },
    });
    await p.waitFor((m) => m.type === 'control_response' && m.response?.request_id === 'm1');
    p.sendRaw(userLine('second'));
    await p.waitFor(() => p.json().filter((m) => m.type === 'result').length === 2);
    p.endInput();
    await p.exited;
    const lines = checked(p.json());
    const statuses = lines.filter((m) => m.type === 'system' && m.subtype === 'status');
    expect(statuses.map((s) => [s.status, s.permissionMode])).toEqual([
      ['requesting', undefined],
      ['requesting', undefined],
      [null, 'acceptEdits'],
      ['requesting', undefined],
    ]);
    // Each `requesting` comes before that request's first stream event.
    const first = lines.findIndex((m) => m.type === 'stream_event');
    expect(lines.findIndex((m) => m.subtype === 'status')).toBeLessThan(first);
  });

  it('tells the mode after plan mode is left (ExitPlanMode approved by the host)', async () => {
    api = await startFakeApi([toolUse('ExitPlanMode', { plan: 'Do it' }), text('planned')]);
    const p = startAgent({
      api,
      args: [...STREAM_ARGS, '--permission-mode', 'plan', '--permission-prompt-tool', 'stdio'],
    });
    p.sendRaw(userLine('plan it'));
    const ask = await p.waitFor((m) => m.type === 'control_request' && m.request?.subtype === 'can_use_tool');
    p.send({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: ask.request_id,
        response: { behavior: 'allow', updatedInput: ask.request.input },
      },
    });
    await p.waitFor((m) => m.type === 'result');
    p.endInput();
    await p.exited;
    const statuses = checked(p.json()).filter((m) => m.type === 'system' && m.subtype === 'status');
    expect(statuses).toEqual([expect.objectContaining({ status: null, permissionMode: 'default' })]);
  });
});

describe('can_use_tool', () => {
  it('names why it asks (decision_reason_type) where the reference does: ask rule, hook, a file outside the working directories', async () => {
    const cwd = tempDir();
    const hook = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: 'hook wants a look',
      },
    });
    const settings = {
      permissions: { ask: ['Bash(rm:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: `echo '${hook}'` }] }] },
    };
    api = await startFakeApi([
      calls([
        ['Read', { file_path: '/etc/hostname' }],
        ['Bash', { command: 'rm -f gone.txt' }],
        ['Write', { file_path: join(cwd, 'w.txt'), content: 'w' }],
        ['Bash', { command: 'touch plain.txt' }],
      ]),
      text('done'),
    ]);
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-prompt-tool', 'stdio', '--settings', JSON.stringify(settings)],
    });
    const asks: Line[] = [];
    const timer = setInterval(() => {
      for (const m of p.json().slice(0)) {
        if (m.type !== 'control_request' || m.request.subtype !== 'can_use_tool') continue;
        if (asks.some((a) => a.request_id === m.request_id)) continue;
        asks.push(m);
        p.send({
          type: 'control_response',
          response: { subtype: 'success', request_id: m.request_id, response: { behavior: 'deny', message: 'no' } },
        });
      }
    }, 20);
    p.sendRaw(userLine('go'));
    await p.waitFor((m) => m.type === 'result');
    clearInterval(timer);
    p.endInput();
    await p.exited;
    checked(p.json());
    expect(asks.map((a) => [a.request.tool_name, a.request.decision_reason_type])).toEqual([
      ['Read', 'workingDir'],
      ['Bash', 'rule'],
      ['Write', 'hook'],
      ['Bash', undefined],
    ]);
    expect(asks[2].request.decision_reason).toBe('hook wants a look');
  });
});

describe('a model id the table does not know', () => {
  it('is sent as given, sized and priced like the default model, and named once on stderr (as the reference does)', async () => {
    const usage = { input_tokens: 1000, output_tokens: 100 };
    api = await startFakeApi([{ ...toolUse('Bash', { command: 'true' }), usage }, text('ok', { usage })]);
    const r = await runAgent({
      api,
      args: [
        '-p',
        'go',
        '--model',
        'claude-unknown-9',
        '--allowedTools',
        'Bash',
        '--output-format',
        'stream-json',
        '--verbose',
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(api.requests.map((q) => q.body.model)).toEqual(['claude-unknown-9', 'claude-unknown-9']);
    const result = resultOf(checked(r.json()));
    // Measured from the reference: $4 / $20 per million input / output tokens, a 1M window.
    expect(result.total_cost_usd).toBeCloseTo(0.012, 10);
    expect(result.modelUsage['claude-unknown-9']).toMatchObject({ contextWindow: 1_000_000, maxOutputTokens: 32_000 });
    expect(r.stderr.match(/the model "claude-unknown-9" is not in the model table/g)).toHaveLength(1);

    await api.close();
    api = await startFakeApi([text('ok')]);
    const known = await runAgent({ api, args: ['-p', 'go', '--model', 'sonnet'] });
    expect(known.stderr).not.toContain('not in the model table');
  });
});
