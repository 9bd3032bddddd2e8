// Real-model economics against the fake API's prompt-cache simulation: every request carries
// breakpoints, turn N+1 reads what turn N wrote, a subagent's second turn reads its first, cache
// tokens are billed at their own rates; thinking and effort reach the request; thinking blocks go
// back exactly as received.
import { describe, expect, it } from 'vitest';
import { firstUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { runAgent, startAgent, startFakeApi, STREAM_ARGS, turns, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions'];

function marks(req: RecordedRequest): number {
  return (JSON.stringify(req.body).match(/"cache_control"/g) ?? []).length;
}

async function session(args: string[], prompt: string, env: Record<string, string> = {}) {
  const r = await runAgent({ api, args: [...ARGS, ...args], input: userLine(prompt), env });
  const msgs = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { ...r, msgs, result: msgs.find((m) => m.type === 'result') };
}

describe('prompt caching (bin/agent against the cache-simulating fake)', () => {
  it('turn N+1 reads everything turn N wrote; usage, modelUsage and cost count reads and writes at their rates', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'echo one' }),
      toolUse('Bash', { command: 'echo two' }),
      text('done'),
    ]);
    const { result } = await session(['--model', 'claude-sonnet-4-5'], 'go');
    expect(result.subtype).toBe('success');
    const [r1, r2, r3] = api.requests;
    for (const r of api.requests) expect(marks(r)).toBe(3);
    expect(r1.body.system.map((b: any) => b.cache_control)).toEqual([{ type: 'ephemeral' }, { type: 'ephemeral' }]);
    expect(r1.billed!.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(r2.billed!.cache_read_input_tokens).toBe(r1.billed!.cache_creation_input_tokens);
    expect(r3.billed!.cache_read_input_tokens).toBe(
      r2.billed!.cache_read_input_tokens + r2.billed!.cache_creation_input_tokens,
    );

    const sum = (k: 'input_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens') =>
      api!.requests.reduce((a, r) => a + r.billed![k], 0);
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
    const isSub = (req: RecordedRequest) => firstUserText(req).startsWith('SUB:');
    api = await startFakeApi((req): ScriptedReply => {
      if (isSub(req)) return turns(req) === 0 ? toolUse('Bash', { command: 'echo sub' }) : text('sub done');
      return turns(req) === 0
        ? toolUse('Task', { description: 'd', prompt: 'SUB: look', subagent_type: 'general-purpose' })
        : text('parent done');
    });
    const { result } = await session(['--model', 'claude-sonnet-4-5'], 'go');
    expect(result.subtype).toBe('success');
    const subs = api.requests.filter(isSub);
    expect(subs).toHaveLength(2);
    for (const r of subs) expect(marks(r)).toBeGreaterThanOrEqual(2);
    expect(subs[0].billed!.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(subs[1].billed!.cache_read_input_tokens).toBe(subs[0].billed!.cache_creation_input_tokens);
  });

  it('DISABLE_PROMPT_CACHING=1 sends no breakpoints and nothing is read from the cache', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo one' }), text('done')]);
    const { result } = await session([], 'go', { DISABLE_PROMPT_CACHING: '1' });
    expect(api.requests.map(marks)).toEqual([0, 0]);
    expect(result.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});

describe('thinking and effort', () => {
  it('the default model (claude-opus-5-5, as the reference) gets adaptive thinking, effort medium and max_tokens 128000', async () => {
    api = await startFakeApi([text('ok')]);
    await session([], 'go');
    expect(api.requests[0].body).toMatchObject({
      model: 'claude-opus-5-5',
      max_tokens: 128000,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'medium' },
    });
  });

  it('--effort and --thinking (as the official SDK passes them) shape the request', async () => {
    api = await startFakeApi([text('a'), text('b'), text('c')]);
    await session(['--effort', 'high', '--thinking=adaptive'], 'go');
    expect(api.requests[0].body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    await session(['--thinking', 'disabled'], 'go');
    expect(api.requests[1].body.thinking).toBeUndefined();
    await session(['--model', 'claude-sonnet-4-5', '--thinking', 'enabled', '--max-thinking-tokens', '3000'], 'go');
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
    api = await startFakeApi([text('a'), text('b'), text('c')]);
    const p = startAgent({ api, args: [...ARGS, '--model', 'claude-sonnet-4-5'] });
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
    await ask('r1', 4000);
    await prompt('one', 1);
    await ask('r2', 0);
    await prompt('two', 2);
    await ask('r3', null);
    await prompt('three', 3);
    p.endInput();
    await p.exited;
    // null goes back to the model's default: on claude-sonnet-4-5, a budget of max_tokens − 1 (as the reference sends).
    expect(api.requests.map((r) => r.body.thinking)).toEqual([
      { type: 'enabled', budget_tokens: 4000 },
      undefined,
      { type: 'enabled', budget_tokens: 31_999 },
    ]);
  });

  it('thinking and redacted thinking blocks go back exactly as received, signatures included', async () => {
    api = await startFakeApi([
      {
        content: [
          { type: 'thinking', thinking: 'I will list the files first.' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
          { type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } },
        ],
      },
      text('done'),
    ]);
    const { result, msgs } = await session([], 'go');
    expect(result.subtype).toBe('success');
    const first = msgs.find((m) => m.type === 'assistant' && m.message.content.some((b: any) => b.type === 'thinking'));
    const sent = api.requests[1].body.messages[1].content;
    expect(sent[0]).toEqual({
      type: 'thinking',
      thinking: 'I will list the files first.',
      signature: expect.stringMatching(/^sig_/),
    });
    expect(sent[0].signature).toBe(first.message.content.find((b: any) => b.type === 'thinking').signature);
    expect(sent[1]).toEqual({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' });
  });
});
