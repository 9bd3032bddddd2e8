import { describe, expect, it } from 'vitest';
import {
  ModelError,
  hasCredentials,
  maxRetriesFromEnv,
  parseRetryAfter,
  retryDelayMs,
  streamModel,
} from '../../../src/loop/modelClient.js';
import { badRequest, overloaded, rateLimited, serverError, unauthorized } from '../../fake-api/server.js';
import { fakeApi, finalMessage, request, run } from './helpers.js';

describe('streamModel: assembling streamed replies', () => {
  it('assembles a text reply and passes every raw event through in order', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'Hello there, how are you today?' }] }]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const msg = finalMessage(events);
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello there, how are you today?' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.model).toBe('claude-sonnet-4-5-20250929');
    expect(msg.id).toMatch(/^msg_/);
    // The fake bills the prompt it was sent (about 4 characters a token); too short to cache.
    expect(msg.usage.input_tokens).toBeGreaterThan(5);
    expect(msg.usage.cache_creation_input_tokens).toBe(0);
    expect(msg.usage.output_tokens).toBe(5);

    const kinds = events.filter((e) => e.type === 'stream_event').map((e) => (e as any).event.type);
    expect(kinds[0]).toBe('message_start');
    expect(kinds[1]).toBe('content_block_start');
    expect(kinds.filter((k) => k === 'content_block_delta').length).toBeGreaterThan(1);
    expect(kinds.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    // The message comes after all its stream events.
    expect(events[events.length - 1].type).toBe('message');

    expect(api.requests).toHaveLength(1);
    const body = api.requests[0].body;
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 1024, stream: true });
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    expect(body.tools).toBeUndefined();
    // SDK 1.x sends an API key as a bearer token; older ones used x-api-key. Either reaches the API.
    const h = api.requests[0].headers;
    expect([h['x-api-key'], h.authorization]).toContain(h['x-api-key'] ? 'sk-test' : 'Bearer sk-test');
  });

  it('assembles tool_use input from JSON split across several deltas, with thinking and text', async () => {
    const input = {
      command: 'ls -la /tmp',
      description: 'List files',
      nested: { a: [1, 2, 3], s: 'ünïcode "quoted"' },
    };
    await fakeApi([
      {
        content: [
          { type: 'thinking', thinking: 'I should list the files.' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input },
          { type: 'tool_use', name: 'Read', input: { file_path: '/etc/hosts' } },
        ],
      },
    ]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const jsonDeltas = events.filter(
      (e) =>
        e.type === 'stream_event' &&
        e.event.type === 'content_block_delta' &&
        (e.event.delta as { type: string }).type === 'input_json_delta' &&
        e.event.index === 2,
    );
    expect(jsonDeltas.length).toBeGreaterThanOrEqual(3);

    const msg = finalMessage(events);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.content[0]).toMatchObject({ type: 'thinking', thinking: 'I should list the files.' });
    expect((msg.content[0] as any).signature).toMatch(/^sig_/);
    expect(msg.content[1]).toEqual({ type: 'text', text: 'Let me look.' });
    expect(msg.content[2]).toEqual({ type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input });
    expect(msg.content[3]).toMatchObject({ type: 'tool_use', name: 'Read', input: { file_path: '/etc/hosts' } });
    expect((msg.content[3] as any).id).toMatch(/^toolu_/);
  });

  it('sends tools, thinking and betas the way the API expects them', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'ok' }] }]);
    const tools = [
      {
        name: 'Read',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
      },
    ];
    const { error } = await run(
      request({
        tools,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        effort: 'high',
        betas: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'],
        system: [{ type: 'text', text: 'sys' }],
      }),
    );
    expect(error).toBeUndefined();
    const r = api.requests[0];
    expect(r.body.tools).toEqual(tools);
    expect(r.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(r.body.output_config).toEqual({ effort: 'high' });
    expect(r.body.system).toEqual([{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }]);
    expect(r.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,context-1m-2025-08-07');
  });

  it('uses ANTHROPIC_AUTH_TOKEN as a bearer token when there is no API key', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'ok' }] }], {
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_AUTH_TOKEN: 'tok-123',
    });
    const { error } = await run(request());
    expect(error).toBeUndefined();
    expect(api.requests[0].headers.authorization).toBe('Bearer tok-123');
    expect(api.requests[0].headers['x-api-key']).toBeUndefined();
    expect(api.requests[0].headers['anthropic-version']).toBeTruthy();
  });
});

describe('streamModel: retries', () => {
  it('429 with retry-after: 0 → one api_retry event (before the retry), then the message', async () => {
    const api = await fakeApi([rateLimited(0), { content: [{ type: 'text', text: 'after retry' }] }]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const retries = events.filter((e) => e.type === 'api_retry');
    expect(retries).toEqual([
      { type: 'api_retry', attempt: 1, max_retries: 2, retry_delay_ms: 0, error_status: 429, error: 'rate_limit' },
    ]);
    expect(events[0].type).toBe('api_retry');
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'after retry' }]);
    expect(api.requests).toHaveLength(2);
  });

  it.each([
    ['529 overloaded', overloaded(), 529, 'overloaded'],
    ['500 api_error', serverError(), 500, 'server_error'],
  ] as const)('%s is retried', async (_name, fault, status, category) => {
    // retry-after-ms keeps the test fast without relying on the default backoff.
    const withHeader = { error: { ...(fault as any).error, headers: { 'retry-after-ms': '5' } } };
    const api = await fakeApi([withHeader, { content: [{ type: 'text', text: 'fine' }] }]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const retries = events.filter((e) => e.type === 'api_retry') as any[];
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error_status: status, error: category, retry_delay_ms: 5 });
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'fine' }]);
    expect(api.requests).toHaveLength(2);
  });

  it('without retry-after, backs off about 0.5 s (jittered) before the first retry', async () => {
    await fakeApi([overloaded(), { content: [{ type: 'text', text: 'ok' }] }]);
    const t0 = Date.now();
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const retry = events.find((e) => e.type === 'api_retry') as any;
    expect(retry.retry_delay_ms).toBeGreaterThanOrEqual(500);
    expect(retry.retry_delay_ms).toBeLessThanOrEqual(625);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(480);
  });

  it('gives up after max retries with a retryable ModelError', async () => {
    const api = await fakeApi([
      rateLimited(0),
      rateLimited(0),
      rateLimited(0),
      { content: [{ type: 'text', text: 'never' }] },
    ]);
    const { events, error } = await run(request());
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'rate_limit', status: 429, retryable: true });
    expect(error.message).toBe('API Error: 429 Number of request tokens has exceeded your per-minute rate limit');
    expect(events.filter((e) => e.type === 'api_retry').map((e: any) => e.attempt)).toEqual([1, 2]);
    expect(api.requests).toHaveLength(3); // 1 + AGENT_MAX_RETRIES=2
  });

  it('opts.maxRetries overrides the environment', async () => {
    const api = await fakeApi([rateLimited(0), rateLimited(0)]);
    const { error } = await run(request(), { maxRetries: 0 });
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true });
    expect(api.requests).toHaveLength(1);
  });

  it('a stream cut mid-reply is retried and the second attempt is the message', async () => {
    const api = await fakeApi([
      { cut: { afterText: 'partial answ' } },
      { content: [{ type: 'text', text: 'complete answer' }] },
    ]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    const retries = events.filter((e) => e.type === 'api_retry') as any[];
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error_status: null, error: 'unknown' });
    // The cut attempt's deltas were streamed before the fault…
    const texts = events
      .filter(
        (e) =>
          e.type === 'stream_event' &&
          e.event.type === 'content_block_delta' &&
          (e.event.delta as { type: string }).type === 'text_delta',
      )
      .map((e: any) => e.event.delta.text)
      .join('');
    expect(texts).toBe('partial answcomplete answer');
    // …but only the complete reply becomes a message.
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'complete answer' }]);
    expect(api.requests).toHaveLength(2);
  }, 10_000);

  it('an `event: error` (overloaded) mid-stream is retried', async () => {
    const api = await fakeApi([
      { streamError: { afterText: 'so', type: 'overloaded_error', message: 'Overloaded' } },
      { content: [{ type: 'text', text: 'done' }] },
    ]);
    const { events, error } = await run(request());
    expect(error).toBeUndefined();
    expect(events.find((e) => e.type === 'api_retry')).toMatchObject({ error: 'overloaded', error_status: null });
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(api.requests).toHaveLength(2);
  }, 10_000);

  it('connection refused is a retryable connection error', async () => {
    const api = await fakeApi([]);
    await api.close();
    const { events, error } = await run(request(), { maxRetries: 1 });
    expect(error).toMatchObject({ kind: 'connection', retryable: true, status: null });
    expect(events.filter((e) => e.type === 'api_retry')).toHaveLength(1);
  }, 10_000);

  it('an exhausted script fails loudly and is not retried (x-should-retry: false)', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'one' }] }]);
    expect((await run(request())).error).toBeUndefined();
    const { error } = await run(request());
    expect(error).toMatchObject({ kind: 'server', status: 500, retryable: false });
    expect(error.message).toBe('API Error: 500 fake API: script exhausted after 1 requests');
    expect(api.requests).toHaveLength(2);
  });
});

describe('streamModel: errors that are not retried', () => {
  it('a stream with malformed JSON gets one non-streaming attempt, which answers; no retry, no backoff', async () => {
    const malformed = { malformed: { afterText: 'Hel' } } as const;
    const api = await fakeApi([malformed, { content: [{ type: 'text', text: 'Hello from the fallback' }] }]);
    const started = Date.now();
    const { events, error } = await run(request(), { maxRetries: 10 });
    expect(error).toBeUndefined();
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'Hello from the fallback' }]);
    expect(events.filter((e) => e.type === 'api_retry')).toEqual([]);
    expect(api.requests.map((r) => r.body.stream)).toEqual([true, false]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('malformed every time: the stream and then the non-streaming answer → one clear error after two requests', async () => {
    const malformed = { malformed: {} } as const;
    const api = await fakeApi([malformed, malformed, malformed, malformed]);
    const { error } = await run(request(), { maxRetries: 10 });
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'malformed_response', retryable: false, category: 'server_error' });
    expect(error.message).toMatch(/^API Error: the API's reply was not valid JSON \(/);
    expect(api.requests).toHaveLength(2);
  });

  it('a request that cannot be serialised (content nested 100,000 deep) fails at once, locally, and is not retried', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'x' }] }]);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const started = Date.now();
    const { events, error } = await run(
      request({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', extra: deep } as any] }] }),
      { maxRetries: 10 },
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'local', retryable: false });
    expect(error.message).toMatch(/^The request could not be built: /);
    expect(events).toEqual([]);
    expect(api.requests).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('400 → ModelError at once with the API message; exactly one request', async () => {
    const api = await fakeApi([
      badRequest('messages.1.content: tool_use ids must be unique'),
      { content: [{ type: 'text', text: 'x' }] },
    ]);
    const { events, error } = await run(request());
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: 'invalid_request',
      status: 400,
      retryable: false,
      category: 'invalid_request',
    });
    expect(error.message).toBe('API Error: 400 messages.1.content: tool_use ids must be unique');
    expect(events).toEqual([]);
    expect(api.requests).toHaveLength(1);
  });

  it('401 → auth error, not retried', async () => {
    const api = await fakeApi([unauthorized(), { content: [{ type: 'text', text: 'x' }] }]);
    const { error } = await run(request());
    expect(error).toMatchObject({ kind: 'auth', status: 401, retryable: false, category: 'authentication_failed' });
    expect(error.message).toBe('API Error: 401 invalid x-api-key');
    expect(api.requests).toHaveLength(1);
  });

  it('the fake validates requests like the API: a missing max_tokens is a 400', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'x' }] }]);
    const { error } = await run(request({ maxTokens: undefined as any }));
    expect(error).toMatchObject({ kind: 'invalid_request', status: 400 });
    expect(error.message).toContain('max_tokens');
    expect(api.requests).toHaveLength(1);
  });

  it('no credentials → no_credentials before any request', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'x' }] }], {
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
    });
    const { events, error } = await run(request());
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: 'no_credentials', retryable: false });
    expect(error.message).toBe('Not logged in · Please set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)');
    expect(events).toEqual([]);
    expect(api.requests).toHaveLength(0);
  });
});

describe('streamModel: abort', () => {
  it('abort while the API hangs rejects with kind aborted at once (the API never answers)', async () => {
    const api = await fakeApi([{ hang: true }]);
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 150);
    const { error } = await run(request({ signal: ac.signal }));
    const elapsed = Date.now() - t0;
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(elapsed).toBeLessThan(5000);
    expect(api.requests).toHaveLength(1);
  });

  it('abort mid-stream stops reading and does not return a message', async () => {
    await fakeApi([{ content: [{ type: 'text', text: 'a long reply in many small pieces' }], chunkDelayMs: 200 }]);
    const ac = new AbortController();
    const events: any[] = [];
    const t0 = Date.now();
    let error: any;
    try {
      for await (const ev of streamModel(request({ signal: ac.signal }))) {
        events.push(ev);
        if (ev.type === 'stream_event' && ev.event.type === 'content_block_delta') ac.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(events.some((e) => e.type === 'message')).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('abort during a retry backoff ends the wait at once', async () => {
    const api = await fakeApi([rateLimited(30), { content: [{ type: 'text', text: 'x' }] }]);
    const ac = new AbortController();
    const t0 = Date.now();
    const events: any[] = [];
    let error: any;
    try {
      for await (const ev of streamModel(request({ signal: ac.signal }))) {
        events.push(ev);
        if (ev.type === 'api_retry') setTimeout(() => ac.abort(), 50);
      }
    } catch (e) {
      error = e;
    }
    expect(events).toEqual([expect.objectContaining({ type: 'api_retry', retry_delay_ms: 30_000 })]);
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(Date.now() - t0).toBeLessThan(5000); // the backoff was 30 s
    expect(api.requests).toHaveLength(1);
  });

  it('an already-aborted signal makes no request', async () => {
    const api = await fakeApi([{ content: [{ type: 'text', text: 'x' }] }]);
    const ac = new AbortController();
    ac.abort();
    const { error } = await run(request({ signal: ac.signal }));
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(api.requests).toHaveLength(0);
  });
});

describe('retry helpers', () => {
  it('backoff grows from ~0.5 s with up to 25% jitter and caps at 32 s', () => {
    for (let i = 0; i < 50; i++) {
      const d1 = retryDelayMs(1);
      expect(d1).toBeGreaterThanOrEqual(500);
      expect(d1).toBeLessThanOrEqual(625);
      const d2 = retryDelayMs(2);
      expect(d2).toBeGreaterThanOrEqual(1000);
      expect(d2).toBeLessThanOrEqual(1250);
      expect(retryDelayMs(20)).toBeLessThanOrEqual(40_000);
      expect(retryDelayMs(20)).toBeGreaterThanOrEqual(32_000);
    }
    expect(retryDelayMs(3, 1234)).toBe(1234);
  });

  it('parses retry-after-ms, retry-after seconds and HTTP dates', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250' }))).toBe(250);
    expect(parseRetryAfter(h({ 'retry-after': '2' }))).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after-ms': '10', 'retry-after': '2' }))).toBe(10);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(h({}))).toBeNull();
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }))).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('reads max retries from AGENT_MAX_RETRIES, defaulting to 10', () => {
    expect(maxRetriesFromEnv({})).toBe(10);
    expect(maxRetriesFromEnv({ AGENT_MAX_RETRIES: '3' })).toBe(3);
    expect(maxRetriesFromEnv({ AGENT_MAX_RETRIES: '0' })).toBe(0);
    expect(maxRetriesFromEnv({ AGENT_MAX_RETRIES: 'lots' })).toBe(10);
    expect(maxRetriesFromEnv({ CLAUDE_CODE_MAX_RETRIES: '4' })).toBe(4);
  });

  it('hasCredentials needs a non-empty key or token', () => {
    expect(hasCredentials({})).toBe(false);
    expect(hasCredentials({ ANTHROPIC_API_KEY: '  ' })).toBe(false);
    expect(hasCredentials({ ANTHROPIC_API_KEY: 'k' })).toBe(true);
    expect(hasCredentials({ ANTHROPIC_AUTH_TOKEN: 't' })).toBe(true);
  });
});
