// Every stop and continue condition of the agent loop, seen from outside the binary.
import { describe, expect, it } from 'vitest';
import { badRequest, lastUserText, overloaded, rateLimited, text, toolUse, unauthorized } from '../fake-api/server.js';
import { runAgent, runTurns, startFakeApi, STREAM_ARGS, userLine, type FakeApi, once } from './harness.js';

let api: FakeApi | undefined;

const resultOf = (r: { json: () => Array<Record<string, any>> }) =>
  r
    .json()
    .filter((m) => m.type === 'result')
    .pop()!;

/**
 * The checks of a run that ends in success with plain STREAM_ARGS share one stream-json session, one
 * prompt (one run) each: the max_tokens recoveries are counted per run. The fake answers the turns'
 * replies in order; each check reads only its own turn. Made once, by the first check that reads it.
 */
const TURNS = {
  recovers: [text('part one…', { stop_reason: 'max_tokens' }), text('…and part two.')],
  givesUp: Array.from({ length: 4 }, () => text('more…', { stop_reason: 'max_tokens' })),
  rateLimited: [rateLimited(0), text('after the rate limit')],
};
const PROMPTS = { recovers: 'write a lot', givesUp: 'write forever', rateLimited: 'hi' };
const shared = once(sharedSession);

async function sharedSession() {
  const own = await startFakeApi(Object.values(TURNS).flat());
  try {
    const r = await runTurns('the shared session', { api: own, args: STREAM_ARGS }, PROMPTS);
    // Nothing was asked after the last run's result.
    expect(own.requests, 'requests of the shared session').toHaveLength(
      Object.values(r.turns).reduce((n, t) => n + t.requests.length, 0),
    );
    return r;
  } finally {
    await own.close();
  }
}
async function turnOf(name: keyof typeof TURNS) {
  const s = await shared();
  expect(s.code, `the shared session exits 0; stderr: ${s.stderr}`).toBe(0);
  return s.turns[name];
}

describe('agent loop stop conditions', () => {
  it('stops with error_max_turns when the model keeps calling tools', async () => {
    api = await startFakeApi(() => toolUse('Bash', { command: 'echo again' }));
    const r = await runAgent({ api, args: [...STREAM_ARGS, '--max-turns', '2'], input: userLine('loop forever') });
    expect(r.code).toBe(1);
    expect(resultOf(r)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 2 });
    expect(api.requests).toHaveLength(2);
  });

  it('stops with error_max_budget_usd once the spend reaches the budget', async () => {
    // 1M input tokens on the default model (claude-opus-5-5) cost $4: the first turn alone passes a $1 budget.
    api = await startFakeApi(() => ({
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'true' } }],
      usage: { input_tokens: 1_000_000, output_tokens: 10 },
    }));
    const r = await runAgent({ api, args: [...STREAM_ARGS, '--max-budget-usd', '1'], input: userLine('spend') });
    expect(r.code).toBe(1);
    const result = resultOf(r);
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true });
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(1);
    expect(api.requests).toHaveLength(1);
  });

  it('recovers from max_tokens by asking the model to go on', async () => {
    const r = await turnOf('recovers');
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: '…and part two.' });
    expect(r.requests).toHaveLength(2);
    expect(lastUserText(r.requests[1])).toMatch(/Output token limit hit/);
  });

  it('gives up on max_tokens after three recoveries', async () => {
    const r = await turnOf('givesUp');
    expect(r.requests).toHaveLength(4);
    expect(r.requests.slice(1).map((q) => lastUserText(q))).toEqual(
      Array.from({ length: 3 }, () => expect.stringMatching(/Output token limit hit/)),
    );
    expect(resultOf(r).subtype).toBe('success');
  });

  it('retries a 429 honouring retry-after and tells the host with api_retry', async () => {
    const r = await turnOf('rateLimited');
    expect(r.requests).toHaveLength(2);
    const retry = r.json().find((m) => m.type === 'system' && m.subtype === 'api_retry');
    expect(retry).toMatchObject({ attempt: 1, error_status: 429 });
    expect(resultOf(r).result).toBe('after the rate limit');
  });

  it('switches once to --fallback-model when the main model keeps failing', async () => {
    api = await startFakeApi((req) =>
      req.body.model === 'claude-haiku-5-5' ? text('from the fallback') : overloaded(),
    );
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--model', 'claude-opus-4-5', '--fallback-model', 'haiku'],
      env: { AGENT_MAX_RETRIES: '1' },
      input: userLine('hi'),
    });
    expect(r.code).toBe(0);
    expect(resultOf(r).result).toBe('from the fallback');
    expect(api.requests.map((q) => q.body.model)).toEqual(['claude-opus-4-5', 'claude-opus-4-5', 'claude-haiku-5-5']);
    expect(resultOf(r).modelUsage).toHaveProperty('claude-haiku-5-5');
  });

  it('ends a 400 with the API message as an error result, without retrying or hanging', async () => {
    api = await startFakeApi([badRequest('messages: roles must alternate')]);
    const r = await runAgent({ api, args: STREAM_ARGS, input: userLine('hi') });
    expect(r.code).toBe(1);
    const assistant = r.json().find((m) => m.type === 'assistant');
    expect(assistant!.message.content[0].text).toMatch(/^API Error: 400 .*roles must alternate/);
    expect(resultOf(r)).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(resultOf(r).errors[0]).toMatch(/roles must alternate/);
    expect(api.requests).toHaveLength(1);
    // The result line reports it; in stream-json mode stderr does not repeat it (hosts append stderr to errors).
    expect(r.stderr).not.toMatch(/roles must alternate/);
  });

  it('ends an auth error (401) with an error result', async () => {
    api = await startFakeApi([unauthorized()]);
    const r = await runAgent({ api, args: STREAM_ARGS, input: userLine('hi') });
    expect(r.code).toBe(1);
    expect(resultOf(r).errors[0]).toMatch(/401/);
  });

  it('without any credentials: an error result (not repeated on stderr), exit 1, no request', async () => {
    api = await startFakeApi([text('never')]);
    const started = Date.now();
    const r = await runAgent({
      api,
      args: STREAM_ARGS,
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined },
      input: userLine('hi'),
    });
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(resultOf(r).result).toMatch(/Not logged in/);
    expect(r.stderr).not.toMatch(/Not logged in/);
    expect(api.requests).toHaveLength(0);
  });
});
