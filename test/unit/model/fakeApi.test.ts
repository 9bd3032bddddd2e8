// The fake must behave like the real API, or tests built on it prove nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  startFakeApi,
  systemText,
  type FakeApi,
  type RecordedRequest,
} from '../../fake-api/server.js';
import { makeTempDir } from '../../tempDirs.js';

const FAKE_API_CLI = fileURLToPath(new URL('../../../dist/test/fake-api/cli.js', import.meta.url));

const open: FakeApi[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});
async function start(...args: Parameters<typeof startFakeApi>) {
  const api = await startFakeApi(...args);
  open.push(api);
  return api;
}
const body = (extra: object = {}) =>
  JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...extra });
const post = (url: string, b: string, path = '/v1/messages') =>
  fetch(url + path, { method: 'POST', body: b, headers: { 'content-type': 'application/json' } });

function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((c) => c.trim())
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1];
      const data = JSON.parse(/^data: (.*)$/m.exec(chunk)![1]);
      return { event, data };
    });
}

describe('fake Messages API', () => {
  it('streams the real SSE sequence, with a ping, and echoes the model', async () => {
    const api = await start([
      { content: [{ type: 'text', text: 'hello world' }], usage: { input_tokens: 42, output_tokens: 7 } },
    ]);
    const res = await post(api.url, body({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events[0].data.message).toMatchObject({
      model: 'claude-haiku-4-5',
      role: 'assistant',
      usage: { input_tokens: 42 },
    });
    expect(events[7].data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } });
  });

  it('answers stream:false with one JSON message', async () => {
    const api = await start([{ content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.ts' } }] }]);
    const res = await post(api.url, body());
    const msg = await res.json();
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*.ts' } }],
      usage: { output_tokens: 5 },
    });
    // Billed for the prompt it was sent: about 4 characters a token.
    expect(msg.usage.input_tokens).toBe(
      Math.ceil(JSON.stringify({ role: 'user', type: 'text', text: 'hi' }).length / 4),
    );
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.content[0].id).toMatch(/^toolu_/);
  });

  it('errors have the API body shape and headers', async () => {
    const api = await start([
      { error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '3' } } },
    ]);
    const res = await post(api.url, body({ stream: true }));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
  });

  it('rejects a request without max_tokens (400), unknown paths (404), and an exhausted script (500)', async () => {
    const api = await start([]);
    const bad = await post(api.url, JSON.stringify({ model: 'm', messages: [] }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'max_tokens: Field required',
    });
    const nf = await post(api.url, body(), '/v1/complete');
    expect(nf.status).toBe(404);
    expect((await nf.json()).type).toBe('error');
    const ex = await post(api.url, body());
    expect(ex.status).toBe(500);
    expect((await ex.json()).error.message).toBe('fake API: script exhausted after 0 requests');
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/complete', '/v1/messages']);
  });

  it('a function script sees each request and its index', async () => {
    const seen: number[] = [];
    const api = await start((req, i) => {
      seen.push(i);
      return { content: [{ type: 'text', text: `echo ${lastUserText(req)}` }] };
    });
    const a = await (await post(api.url, body())).json();
    expect(a.content[0].text).toBe('echo hi');
    await post(api.url, body());
    expect(seen).toEqual([0, 1]);
  });

  it('close() ends hanging replies', async () => {
    const api = await startFakeApi([{ hang: true }]);
    const pending = post(api.url, body()).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((r) => setTimeout(r, 50));
    await api.close();
    expect(await pending).toBe('failed');
  });

  it('request matchers pick out user text, tool results and the system prompt', () => {
    const req: RecordedRequest = {
      path: '/v1/messages',
      headers: {},
      body: {
        system: [
          { type: 'text', text: 'You are a subagent.' },
          { type: 'text', text: 'Be brief.' },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'find the bug' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Grep', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'no matches' }] },
        ],
      },
    };
    expect(systemText(req)).toBe('You are a subagent.\nBe brief.');
    expect(lastUserText(req)).toBe('find the bug');
    expect(firstUserText(req)).toBe('find the bug');
    expect(lastToolResults(req)).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: 'no matches' }]);
    expect(systemText({ ...req, body: { system: 'plain' } })).toBe('plain');
  });

  it('the CLI serves a JSON script and prints its url on one line', async () => {
    const dir = makeTempDir('fake-api-');
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify([{ content: [{ type: 'text', text: 'from cli' }] }]));
    // The CLI as `npm run build` compiles it (dist/test/fake-api/cli.js), as the docs run it.
    const child = spawn(process.execPath, [FAKE_API_CLI, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line: string = await new Promise((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`cli exited ${code}`)));
      });
      const { url } = JSON.parse(line);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const msg = await (await post(url, body())).json();
      expect(msg.content).toEqual([{ type: 'text', text: 'from cli' }]);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
