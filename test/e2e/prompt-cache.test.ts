// Real-model economics against the fake API's prompt-cache simulation: every request carries
// breakpoints, turn N+1 reads what turn N wrote, a subagent's second turn reads its first, cache
// tokens are billed at their own rates; thinking and effort reach the request; thinking blocks go
// back exactly as received.
import { describe, expect, it } from 'vitest';
import { firstUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { runAgent, startAgent, startFakeApi, STREAM_ARGS, turns, userLine, type FakeApi, once } from './harness.js';

let api: FakeApi | undefined;

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions'];

function marks(req: RecordedRequest): number {
  return (JSON.stringify(req.body).match(/"cache_control"/g) ?? []).length;
}

async function session(args: string[], prompt: string, env: Record<string, string> = {}, on = api) {
  const r = await runAgent({ api: on, args: [...ARGS, ...args], input: prompt, env });
  const msgs = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const results = msgs.filter((m) => m.type === 'result');
  return { ...r, msgs, results, result: results[0] };
}

const isSub = (req: RecordedRequest) => firstUserText(req).startsWith('SUB:');

/**
 * One claude-sonnet-4-5 session for three tests, made by whichever asks first: its first turn runs
 * two Bash calls (the main thread's caching), its second has a subagent run one (the subagent's),
 * and its last three each follow a set_max_thinking_tokens (4000, 0, null). Each test reads its own
 * turns, told apart by the main thread's assistant turns before each request.
 */
const sonnet = once(runSonnetSession);

async function runSonnetSession() {
  const own = await startFakeApi((req): ScriptedReply => {
    if (isSub(req)) return turns(req) === 0 ? toolUse('Bash', { command: 'echo sub' }) : text('sub done');
    return [
      toolUse('Bash', { command: 'echo one' }),
      toolUse('Bash', { command: 'echo two' }),
      text('done'),
      toolUse('Task', { description: 'd', prompt: 'SUB: look', subagent_type: 'general-purpose' }),
      text('parent done'),
      text('a'),
      text('b'),
      text('c'),
    ][turns(req)]!;
  });
  try {
    const p = startAgent({ api: own, args: [...ARGS, '--model', 'claude-sonnet-4-5'] });
    const ask = async (id: string, tokens: number | null) => {
      p.send({
        type: 'control_request',
        request_id: id,
        request: { subtype: 'set_max_thinking_tokens', max_thinking_tokens: tokens },
      });
      await p.waitFor((m) => m.type === 'control_response' && m.response?.request_id === id);
    };
    const prompt = async (t: string, n: number) => {
      p.sendRaw(userLine(t));
      await p.waitFor(() => p.json().filter((m) => m.type === 'result').length === n);
    };
    await prompt('go', 1);
    await prompt('delegate', 2);
    await ask('r1', 4000);
    await prompt('one', 3);
    await ask('r2', 0);
    await prompt('two', 4);
    await ask('r3', null);
    await prompt('three', 5);
    p.endInput();
    const { code } = await p.exited;
    expect(code, p.stderr()).toBe(0);
    const results = p.json().filter((m) => m.type === 'result');
    return { results, result: results[0], requests: own.requests };
  } finally {
    await own.close();
  }
}

/**
 * One session on the default model for two tests, made by whichever asks first: its reply carries
 * thinking and redacted thinking blocks beside a Bash call.
 */
const thinking = once(runThinkingSession);

async function runThinkingSession() {
  const own = await startFakeApi([
    {
      content: [
        { type: 'thinking', thinking: 'I will list the files first.' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
        { type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } },
      ],
    },
    text('done'),
  ]);
  try {
    return { ...(await session([], userLine('go'), {}, own)), requests: own.requests };
  } finally {
    await own.close();
  }
}

describe('prompt caching (bin/agent against the cache-simulating fake)', () => {
  it('turn N+1 reads everything turn N wrote; usage, modelUsage and cost count reads and writes at their rates', async () => {
    const shared = await sonnet();
    const { result } = shared;
    // The first turn's requests: the main thread's, before its third assistant turn.
    const requests = shared.requests.filter((r) => !isSub(r) && turns(r) < 3);
    expect(requests).toHaveLength(3);
    expect(result.subtype).toBe('success');
    const [r1, r2, r3] = requests;
    for (const r of requests) expect(marks(r)).toBe(3);
    expect(r1.body.system.map((b: any) => b.cache_control)).toEqual([{ type: 'ephemeral' }, { type: 'ephemeral' }]);
    expect(r1.billed!.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(r2.billed!.cache_read_input_tokens).toBe(r1.billed!.cache_creation_input_tokens);
    expect(r3.billed!.cache_read_input_tokens).toBe(
      r2.billed!.cache_read_input_tokens + r2.billed!.cache_creation_input_tokens,
    );

    const sum = (k: 'input_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens') =>
      requests.reduce((a, r) => a + r.billed![k], 0);
    expect(result.usage).toMatchObject({
      input_tokens: sum('input_tokens'),
      cache_read_input_tokens: sum('cache_read_input_tokens'),
      cache_creation_input_tokens: sum('cache_creation_input_tokens'),
    });
    const mu = result.modelUsage['claude-sonnet-4-5'];
    expect(mu.cacheReadInputTokens).toBe(sum('cache_read_input_tokens'));
    // Sonnet: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
    const expected =
      (sum('input_tokens') * 3 +
        sum('cache_read_input_tokens') * 0.3 +
        sum('cache_creation_input_tokens') * 3.75 +
        result.usage.output_tokens * 15) /
      1e6;
    expect(result.total_cost_usd).toBeCloseTo(expected, 10);
  });

  it("a subagent's requests carry breakpoints too, and its second turn reads its first", async () => {
    const shared = await sonnet();
    // The second turn's result: the parent's, after its subagent ran.
    expect(shared.results[1]).toMatchObject({ subtype: 'success', result: 'parent done' });
    const subs = shared.requests.filter(isSub);
    expect(subs).toHaveLength(2);
    for (const r of subs) expect(marks(r)).toBeGreaterThanOrEqual(2);
    expect(subs[0].billed!.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(subs[1].billed!.cache_read_input_tokens).toBe(subs[0].billed!.cache_creation_input_tokens);
  });

  it('DISABLE_PROMPT_CACHING=1 sends no breakpoints and nothing is read from the cache', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo one' }), text('done')]);
    const { result } = await session([], userLine('go'), { DISABLE_PROMPT_CACHING: '1' });
    expect(api.requests.map(marks)).toEqual([0, 0]);
    expect(result.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});

describe('thinking and effort', () => {
  it('the default model (claude-opus-5-5, as the reference) gets adaptive thinking, effort medium and max_tokens 128000', async () => {
    // The thinking session's first request (the default model, no flags).
    const { requests } = await thinking();
    expect(requests[0].body).toMatchObject({
      model: 'claude-opus-5-5',
      max_tokens: 128000,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'medium' },
    });
  });

  it('--effort and --thinking (as the official SDK passes them) shape the request', async () => {
    api = await startFakeApi([text('a'), text('b'), text('c')]);
    await session(['--effort', 'high', '--thinking=adaptive'], userLine('go'));
    expect(api.requests[0].body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    await session(['--thinking', 'disabled'], userLine('go'));
    expect(api.requests[1].body.thinking).toBeUndefined();
    await session(
      ['--model', 'claude-sonnet-4-5', '--thinking', 'enabled', '--max-thinking-tokens', '3000'],
      userLine('go'),
    );
    expect(api.requests[2].body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 3000 },
      max_tokens: 32000,
    });
    expect(api.requests[2].body.output_config).toBeUndefined();
  });

  it('a bad --effort or --thinking value exits 2 with a line that names it', async () => {
    const bad = await runAgent({ args: ['-p', 'x', '--effort', 'huge'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--effort must be one of low, medium, high, xhigh, max/);
    const bad2 = await runAgent({ args: ['-p', 'x', '--thinking', 'sometimes'] });
    expect(bad2.code).toBe(2);
    expect(bad2.stderr).toMatch(/--thinking must be adaptive, enabled or disabled/);
  });

  it('set_max_thinking_tokens changes the next request: 0 turns thinking off, a budget turns it back on, null is the model default', async () => {
    const shared = await sonnet();
    // The last three turns' requests: each turn's one request, after the control request before it.
    const requests = shared.requests.filter((r) => !isSub(r) && turns(r) >= 5);
    expect(shared.results.slice(2).map((m) => m.result)).toEqual(['a', 'b', 'c']);
    // null goes back to the model's default: on claude-sonnet-4-5, a budget of max_tokens − 1 (as the reference sends).
    expect(requests.map((r) => r.body.thinking)).toEqual([
      { type: 'enabled', budget_tokens: 4000 },
      undefined,
      { type: 'enabled', budget_tokens: 31_999 },
    ]);
  });

  it('thinking and redacted thinking blocks go back exactly as received, signatures included', async () => {
    const { result, msgs, requests } = await thinking();
    expect(result.subtype).toBe('success');
    const first = msgs.find((m) => m.type === 'assistant' && m.message.content.some((b: any) => b.type === 'thinking'));
    const sent = requests[1].body.messages[1].content;
    expect(sent[0]).toEqual({
      type: 'thinking',
      thinking: 'I will list the files first.',
      signature: expect.stringMatching(/^sig_/),
    });
    expect(sent[0].signature).toBe(first.message.content.find((b: any) => b.type === 'thinking').signature);
    expect(sent[1]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' });
  });
});
