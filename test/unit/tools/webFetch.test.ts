// WebFetch's limits against a local HTTP server: a slow page times out, a body past the byte cap
// is refused mid-download, pages are cached 15 minutes per URL, bad URLs are named.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebFetchTool, normaliseUrl } from '../../../tools/webFetch.js';
import { loopHandle } from '../../../src/loop/childLoop.js';
import type { CallModel, ModelRequest } from '../../../src/loop/model.js';
import { loopConfig } from '../loop/loopHarness.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

let server: http.Server;
let base: string;
let hits = 0;
const dir = tempDir();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('start');
      return; // never ends
    }
    if (req.url === '/huge') {
      // No content-length: the cap has to hold while streaming.
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
      return res.end();
    }
    if (req.url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`page ${hits}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  removeDir(dir);
});

/** A ToolContext whose loop answers every model call with the page text it was shown. */
function ctxWithModel(asked: ModelRequest[]) {
  const callModel: CallModel = async function* (req) {
    asked.push(req);
    const shown = String((req.messages[0].content as unknown as Array<{ text: string }>)[0].text);
    const page = /---\n([\s\S]*?)\n---/.exec(shown)?.[1] ?? '';
    yield {
      type: 'message',
      durationMs: 1,
      message: {
        id: 'm',
        type: 'message',
        role: 'assistant',
        model: req.model,
        content: [{ type: 'text', text: `saw: ${page}` }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 2 },
      },
    };
  };
  const cfg = loopConfig([], { callModel });
  return { ctx: makeCtx(dir, { loop: loopHandle(cfg, []) }), usage: cfg.usage };
}

describe('WebFetch limits', () => {
  it('a page that does not finish in time is stopped with a clear error', async () => {
    const tool = createWebFetchTool({ limits: { timeoutMs: 300 } });
    const t0 = Date.now();
    const r = await run(tool, { url: `${base}/slow`, prompt: 'x' }, ctxWithModel([]).ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`Fetching ${base}/slow took longer than 300 ms and was stopped`);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a body past the byte cap is refused while it streams', async () => {
    const tool = createWebFetchTool({ limits: { maxBytes: 16 * 1024 } });
    const r = await run(tool, { url: `${base}/huge`, prompt: 'x' }, ctxWithModel([]).ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`${base}/huge sent more than WebFetch's limit of 16384 bytes; the download was stopped`);
  });

  it('a redirect loop on one host ends with an error', async () => {
    const r = await run(createWebFetchTool(), { url: `${base}/loop`, prompt: 'x' }, ctxWithModel([]).ctx);
    expect(text(r)).toContain('Too many redirects (more than 10)');
  });

  it('a URL is fetched once per 15 minutes; the prompt is asked every time; usage is counted', async () => {
    let now = 1_000_000;
    const tool = createWebFetchTool({ now: () => now });
    const asked: ModelRequest[] = [];
    const { ctx, usage } = ctxWithModel(asked);
    const first = await run(tool, { url: `${base}/cached`, prompt: 'a' }, ctx);
    now += 14 * 60_000;
    const second = await run(tool, { url: `${base}/cached`, prompt: 'b' }, ctx);
    expect(text(second)).toBe(text(first));
    now += 2 * 60_000;
    const third = await run(tool, { url: `${base}/cached`, prompt: 'c' }, ctx);
    expect(text(third)).not.toBe(text(first));
    expect(asked.map((q) => q.model)).toEqual(['claude-haiku-5-5', 'claude-haiku-5-5', 'claude-haiku-5-5']);
    expect(usage.modelUsage()['claude-haiku-5-5']).toMatchObject({ inputTokens: 30, outputTokens: 6 });
  });

  it('URLs: http upgraded to https except for localhost; other schemes and credentials refused; no model, no fetch', async () => {
    expect(normaliseUrl('http://example.com/a?b').href).toBe('https://example.com/a?b');
    expect(normaliseUrl('http://localhost:8080/').href).toBe('http://localhost:8080/');
    expect(normaliseUrl('http://127.0.0.1:1/').protocol).toBe('http:');
    const tool = createWebFetchTool();
    expect(text(await run(tool, { url: 'file:///etc/passwd', prompt: 'x' }, makeCtx(dir)))).toContain(
      'Unsupported URL scheme "file:"',
    );
    expect(text(await run(tool, { url: 'not a url', prompt: 'x' }, makeCtx(dir)))).toContain('Invalid URL "not a url"');
    expect(text(await run(tool, { url: 'https://u:p@example.com', prompt: 'x' }, makeCtx(dir)))).toContain(
      'user name or password',
    );
    expect(text(await run(tool, { url: `${base}/x`, prompt: 'x' }, makeCtx(dir)))).toContain('WebFetch needs a model');
    expect(text(await run(tool, { url: `${base}/x` }, makeCtx(dir)))).toContain(
      'The required parameter `prompt` is missing',
    );
  });
});
