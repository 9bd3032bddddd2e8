// WebFetch end to end: a real agent fetches from a local HTTP server the test starts, and the
// page question goes to the (fake) API as a haiku call, counted in modelUsage.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { text, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import {
  calls,
  sentFromInit,
  resultsById,
  runAgent,
  startFakeApi,
  STREAM_ARGS,
  userLine,
  type Call,
  type FakeApi,
} from './harness.js';

let api: FakeApi | undefined;
let site: http.Server | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  site = undefined;
});

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a6c1e5b80000000049454e44ae426082',
  'hex',
);
const BIG = `<html><body><main>${'<p>lorem ipsum dolor sit amet</p>\n'.repeat((5 * 1024 * 1024) / 35)}</main></body></html>`;

/** The site: pages, redirects (same host and to another), a 5 MB page, a 404, a PNG. */
async function startSite(): Promise<{ base: string; hits: string[] }> {
  const hits: string[] = [];
  site = http.createServer((req, res) => {
    hits.push(req.url!);
    const port = (site!.address() as AddressInfo).port;
    switch (req.url) {
      case '/page':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(
          '<html><head><title>T</title><script>var x = 1;</script></head><body><nav>menu</nav><h1>Hello</h1><p>The answer is <b>42</b>.</p><ul><li>one</li></ul></body></html>',
        );
      case '/moved':
        res.writeHead(301, { location: '/page' });
        return res.end();
      case '/away':
        res.writeHead(302, { location: `http://localhost:${port}/page` });
        return res.end();
      case '/big':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(BIG);
      case '/image.png':
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PNG);
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such page');
    }
  });
  await new Promise<void>((r) => site!.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, hits };
}

const isHaiku = (req: RecordedRequest) => String(req.body.model).includes('haiku');

/** The main model calls `toolCalls`, then ends; each haiku call answers with what it was shown. */
function script(toolCalls: Call[]) {
  let main = 0;
  return (req: RecordedRequest): ScriptedReply => {
    if (isHaiku(req)) {
      const prompt = String(req.body.messages[0].content[0].text);
      return text(
        `haiku saw ${prompt.length} chars${prompt.includes('The answer is **42**') ? ' incl. the answer' : ''}`,
        { usage: { input_tokens: 100, output_tokens: 10 } },
      );
    }
    return main++ === 0 ? calls(toolCalls) : text('done');
  };
}

describe('WebFetch', () => {
  it('pages, same-host and cross-host redirects, a 5 MB page, a 404 and binary content, under a domain rule', async () => {
    const { base, hits } = await startSite();
    api = await startFakeApi(
      script([
        ['WebFetch', { url: `${base}/page`, prompt: 'What is the answer?' }],
        ['WebFetch', { url: `${base}/moved`, prompt: 'What is the answer?' }],
        ['WebFetch', { url: `${base}/away`, prompt: 'What is the answer?' }],
        ['WebFetch', { url: `${base}/big`, prompt: 'Summarise' }],
        ['WebFetch', { url: `${base}/missing`, prompt: 'x' }],
        ['WebFetch', { url: `${base}/image.png`, prompt: 'x' }],
      ]),
    );
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--allowedTools', 'WebFetch(domain:127.0.0.1)'],
      input: userLine('fetch'),
    });
    expect(r.code).toBe(0);
    const last = api.requests.filter((q) => !isHaiku(q)).at(-1)!;
    const results = resultsById(last);

    // A page: HTML → Markdown (script and head left out), the haiku model answers.
    expect(results.t1).toEqual({
      text: expect.stringMatching(/^haiku saw \d+ chars incl\. the answer$/),
      isError: false,
    });
    const haiku = api.requests.filter(isHaiku);
    const pageAsk = haiku
      .map((q) => String(q.body.messages[0].content[0].text))
      .find((t) => t.includes('What is the answer?'))!;
    expect(pageAsk).toContain('# Hello');
    expect(pageAsk).toMatch(/^-\s+one$/m);
    expect(pageAsk).not.toMatch(/^T$/m);
    expect(pageAsk).not.toContain('var x');
    expect(haiku[0].body.model).toBe('claude-haiku-5-5');
    // Same host: followed. Another host: reported to the model, not fetched.
    expect(results.t2.text).toMatch(/incl\. the answer/);
    expect(results.t3).toEqual({
      text: expect.stringContaining(`REDIRECT DETECTED: ${base}/away redirects to a different host: http://localhost:`),
      isError: false,
    });
    // 5 MB: the model is shown the first 100 000 characters and told how to read on.
    expect(results.t4.text).toMatch(
      /^haiku saw \d+ chars\n\n\[The page has \d+ more characters: call WebFetch with offset 100000 to read on\.\]$/,
    );
    expect(Number(/saw (\d+)/.exec(results.t4.text)![1])).toBeLessThan(100_500);
    // 404: an error result naming the status; no model call for it.
    expect(results.t5).toEqual({
      text: expect.stringContaining(`Request failed: HTTP 404 Not Found for ${base}/missing`),
      isError: true,
    });
    // Binary: saved for Read, not sent to the model as text.
    expect(results.t6.isError, results.t6.text).toBe(false);
    const saved = /saved to (\S+\.png)\./.exec(results.t6.text)![1];
    expect(existsSync(saved) && readFileSync(saved).equals(PNG)).toBe(true);
    expect(haiku).toHaveLength(3);
    expect(hits.filter((h) => h === '/page')).toHaveLength(2);

    // Hosts see the SDK's WebFetchOutput; modelUsage counts the haiku calls.
    const out = r.json();
    const useResults = out.filter((m) => m.type === 'user' && m.tool_use_result).map((m) => m.tool_use_result);
    expect(useResults).toContainEqual(
      expect.objectContaining({
        code: 200,
        codeText: 'OK',
        url: `${base}/page`,
        bytes: expect.any(Number),
        durationMs: expect.any(Number),
        result: expect.stringContaining('incl. the answer'),
      }),
    );
    expect(useResults).toContainEqual(
      expect.objectContaining({ code: 200, url: `${base}/page`, result: expect.stringContaining('incl. the answer') }),
    );
    const init = out.find((m) => m.type === 'system' && m.subtype === 'init')!;
    expect(init.tools).toContain('WebFetch');
    expect(api.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual(sentFromInit(init.tools));
    const result = out.find((m) => m.type === 'result')!;
    expect(result.modelUsage['claude-haiku-5-5']).toMatchObject({ inputTokens: 300, outputTokens: 30 });
  }, 30_000);

  it('a deny rule on the domain refuses before any request; with no rule and no one to ask it is not run', async () => {
    const { base, hits } = await startSite();
    api = await startFakeApi(script([['WebFetch', { url: `${base}/page`, prompt: 'x' }]]));
    const denied = await runAgent({ api, args: ['-p', 'go', '--disallowedTools', 'WebFetch(domain:127.0.0.1)'] });
    expect(denied.code).toBe(0);
    expect(resultsById(api.requests[1]).t1.isError).toBe(true);
    await api.close();
    api = await startFakeApi(script([['WebFetch', { url: `${base}/page`, prompt: 'x' }]]));
    await runAgent({ api, args: ['-p', 'go'] });
    expect(resultsById(api.requests[1]).t1.isError).toBe(true);
    expect(hits).toEqual([]);
  });
});
