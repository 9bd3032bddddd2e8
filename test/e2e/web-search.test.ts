// WebSearch end to end: the tool's model call carries the API's web_search server tool, the fake
// API answers with server_tool_use and web_search_tool_result blocks, and the host sees them (an
// assistant message under the WebSearch call), the results, and the searches priced in modelUsage.
import { describe, expect, it } from 'vitest';
import { text, webSearch, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import {
  calls,
  sentFromInit,
  resultsById,
  runAgent,
  startFakeApi,
  STREAM_ARGS,
  userLine,
  type FakeApi,
} from './harness.js';

let api: FakeApi | undefined;

const offersSearch = (req: RecordedRequest) =>
  (req.body.tools ?? []).some((t: { type?: string }) => t.type === 'web_search_20250305');
const HITS = [
  { title: 'Vitest 4 is out', url: 'https://vitest.dev/blog/vitest-4' },
  { title: 'Release notes', url: 'https://vitest.dev/releases' },
];

describe('WebSearch', () => {
  it('searches through the server tool; blocks shown to the host; results to the model; searches priced', async () => {
    let main = 0;
    api = await startFakeApi((req): ScriptedReply => {
      if (offersSearch(req))
        return webSearch('vitest 4 release', HITS, 'Vitest 4 was released recently.', 'srvtoolu_1');
      return main++ === 0
        ? calls([['WebSearch', { query: 'vitest 4 release', allowed_domains: ['vitest.dev'] }]])
        : text('Vitest 4 is out. Sources: …');
    });
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--allowedTools', 'WebSearch'],
      input: userLine('what is new in vitest?'),
    });
    expect(r.code).toBe(0);

    const inner = api.requests.find(offersSearch)!;
    expect(inner.body.tools).toEqual([
      expect.objectContaining({
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 8,
        allowed_domains: ['vitest.dev'],
      }),
    ]);
    expect(inner.body.model).toBe(api.requests[0].body.model);
    expect(inner.body.messages[0].content[0].text).toBe('Perform a web search for the query: vitest 4 release');

    const last = api.requests.at(-1)!;
    const seen = resultsById(last).t1;
    expect(seen.isError).toBe(false);
    expect(seen.text).toContain('Web search results for query: "vitest 4 release"');
    expect(seen.text).toContain(`Links: ${JSON.stringify(HITS)}`);
    expect(seen.text).toContain('Vitest 4 was released recently.');

    const out = r.json();
    // The host sees the search reply itself, under the WebSearch call…
    const searchMsg = out.find((m) => m.type === 'assistant' && m.parent_tool_use_id === 't1')!;
    expect(searchMsg.message.content.map((b: { type: string }) => b.type)).toEqual([
      'server_tool_use',
      'web_search_tool_result',
      'text',
    ]);
    expect(searchMsg.message.content[0]).toMatchObject({
      id: 'srvtoolu_1',
      name: 'web_search',
      input: { query: 'vitest 4 release' },
    });
    expect(searchMsg.message.content[1]).toMatchObject({
      tool_use_id: 'srvtoolu_1',
      content: HITS.map((h) =>
        expect.objectContaining({ ...h, type: 'web_search_result', encrypted_content: expect.any(String) }),
      ),
    });
    // …and the SDK's WebSearchOutput.
    const useResult = out.find((m) => m.type === 'user' && m.tool_use_result)!.tool_use_result;
    expect(useResult).toEqual({
      query: 'vitest 4 release',
      results: [{ tool_use_id: 'srvtoolu_1', content: HITS }, 'Vitest 4 was released recently.'],
      durationSeconds: expect.any(Number),
    });

    const init = out.find((m) => m.type === 'system' && m.subtype === 'init')!;
    expect(init.tools).toContain('WebSearch');
    expect(api.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual(sentFromInit(init.tools));
    const result = out.find((m) => m.type === 'result')!;
    const usage = result.modelUsage[api.requests[0].body.model];
    expect(usage.webSearchRequests).toBe(1);
    // $10 per 1000 searches on top of the tokens.
    const tokensOnly = out.find((m) => m.type === 'result')!;
    expect(usage.costUSD).toBeGreaterThan(0.01);
    expect(tokensOnly.total_cost_usd).toBeCloseTo(usage.costUSD, 6);
  });

  it('a search error comes back as a clear error result; both domain lists at once are refused; a deny rule holds', async () => {
    let main = 0;
    api = await startFakeApi((req): ScriptedReply => {
      if (offersSearch(req))
        return {
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_9', name: 'web_search', input: { query: 'x' } },
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srvtoolu_9',
              content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
            },
          ],
        };
      return main++ === 0
        ? calls([
            ['WebSearch', { query: 'anything' }],
            ['WebSearch', { query: 'both', allowed_domains: ['a.com'], blocked_domains: ['b.com'] }],
          ])
        : text('ok');
    });
    const r = await runAgent({ api, args: ['-p', 'go', '--allowedTools', 'WebSearch'] });
    expect(r.code).toBe(0);
    const res = resultsById(api.requests.at(-1)!);
    expect(res.t1).toEqual({
      text: expect.stringContaining('Web search failed: max_uses_exceeded (query: "anything")'),
      isError: true,
    });
    expect(res.t2).toEqual({
      text: expect.stringContaining('give allowed_domains or blocked_domains, not both'),
      isError: true,
    });
    expect(api.requests.filter(offersSearch)).toHaveLength(1);

    await api.close();
    api = await startFakeApi([calls([['WebSearch', { query: 'anything' }]]), text('ok')]);
    await runAgent({ api, args: ['-p', 'go', '--disallowedTools', 'WebSearch'] });
    expect(api.requests.filter(offersSearch)).toHaveLength(0);
    expect(api.requests[0].body.tools.map((t: { name: string }) => t.name)).not.toContain('WebSearch');
  });
});
