// Tool search end to end: a real stdio MCP server with 200 tools whose definitions pass the
// threshold (ENABLE_TOOL_SEARCH, default 10 % of the context window). The first request carries
// none of them, only their names in a system reminder; ToolSearch finds one, the next request
// offers it (after the unchanged stable list), and the model calls it through the permissions.
import { describe, expect, it } from 'vitest';
import { firstUserText, lastToolResults, text, toolUse, type RecordedRequest } from '../fake-api/server.js';
import {
  DEFERRED_BUILTINS,
  DEFERRED_REMINDER,
  resultText,
  runAgent,
  startFakeApi,
  STREAM_ARGS,
  userLine,
  type FakeApi,
} from './harness.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

let api: FakeApi | undefined;

const MANY = mcpFixture('mcp-many-tools-server');
const CALC = mcpFixture('mcp-calc-server');
const many = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [MANY], ...extra });
const config = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });
const toolNames = (req: RecordedRequest) => ((req.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
const stripMarks = (tools: Array<Record<string, unknown>>) => tools.map(({ cache_control: _c, ...t }) => t);
const init = (r: { json: () => Array<Record<string, any>> }) =>
  r.json().find((m) => m.type === 'system' && m.subtype === 'init')!;

describe('ToolSearch and deferred MCP tools', () => {
  it('200 MCP tools: the first request is small, ToolSearch finds one, the next request offers it, and it is called', async () => {
    api = await startFakeApi([
      toolUse('ToolSearch', { query: 'weather forecast city' }, 'toolu_search'),
      toolUse('mcp__many__weather_forecast', { city: 'Oslo' }, 'toolu_weather'),
      text('It will rain in Oslo.'),
    ]);
    const r = await runAgent({
      api,
      // A 200k-token window: auto defers MCP tools past 10 % of it (on a 1M-window model these fit).
      args: [
        ...STREAM_ARGS,
        '--model',
        'claude-sonnet-4-5',
        '--mcp-config',
        config({ many: many() }),
        '--allowedTools',
        'mcp__many',
      ],
      input: userLine('weather in Oslo?'),
    });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(3);
    const [first, second, third] = api.requests;

    // 1. Nothing of the 200 is sent; ToolSearch is; the names are in a system reminder.
    expect(toolNames(first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(first).at(-1)).toBe('ToolSearch');
    expect(JSON.stringify(first.body.tools).length).toBeLessThan(60_000);
    const reminder = firstUserText(first);
    // 200 MCP tools and the built-ins marked deferred (DEFERRED_BUILTINS).
    expect(reminder).toContain(`These ${200 + DEFERRED_BUILTINS.length} tools are deferred`);
    expect(reminder).toContain('mcp__many__weather_forecast');
    expect(reminder).toContain('mcp__many__billing_get_records_11');
    // init.tools names every tool the model can reach: the deferred ones and ToolSearch.
    const tools = init(r).tools as string[];
    expect(tools).toContain('ToolSearch');
    expect(tools.filter((n) => n.startsWith('mcp__many__'))).toHaveLength(200);

    // 2. The search's result holds the definition; the tool is offered after the stable prefix.
    const [found] = lastToolResults(second);
    expect(found.is_error).toBeFalsy();
    const shown = resultText(found.content);
    expect(shown).toContain('"name":"mcp__many__weather_forecast"');
    expect(shown).toContain('"city"');
    expect(toolNames(second).at(-1)).toBe('mcp__many__weather_forecast');
    expect(stripMarks(second.body.tools).slice(0, first.body.tools.length)).toEqual(stripMarks(first.body.tools));
    const searchResult = r.json().find((m) => m.type === 'user' && m.tool_use_result?.matches);
    expect(searchResult?.tool_use_result).toMatchObject({
      matches: expect.arrayContaining(['mcp__many__weather_forecast']),
      total_deferred_tools: 200 + DEFERRED_BUILTINS.length,
    });

    // 3. The loaded tool ran on the real server; the reminder is not sent again.
    const [called] = lastToolResults(third);
    expect(resultText(called.content)).toBe('called weather_forecast with {"city":"Oslo"}');
    expect(toolNames(third)).toEqual(toolNames(second));
    expect(JSON.stringify(third.body.messages).split('are deferred').length).toBe(2);
  }, 30_000);

  it('ENABLE_TOOL_SEARCH=false offers all 200 tools and no ToolSearch; a bad value stops the start', async () => {
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({
      api,
      env: { ENABLE_TOOL_SEARCH: 'false' },
      args: [...STREAM_ARGS, '--mcp-config', config({ many: many() })],
      input: userLine('hi'),
    });
    expect(r.code).toBe(0);
    expect(toolNames(api.requests[0]).filter((n) => n.startsWith('mcp__many__'))).toHaveLength(200);
    expect(toolNames(api.requests[0])).not.toContain('ToolSearch');
    expect(toolNames(api.requests[0])).toEqual(expect.arrayContaining(DEFERRED_BUILTINS));
    expect(init(r).tools).not.toContain('ToolSearch');
    expect(firstUserText(api.requests[0])).not.toContain('deferred');

    const bad = await runAgent({ api, env: { ENABLE_TOOL_SEARCH: 'sometimes' }, args: ['-p', 'hi'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ENABLE_TOOL_SEARCH="sometimes" is not valid: use auto, auto:N');
    expect(api.requests).toHaveLength(1);
  }, 30_000);

  it('ENABLE_TOOL_SEARCH=true defers even a small server; alwaysLoad keeps a server offered; select: loads by name and names what it did not find', async () => {
    api = await startFakeApi([
      toolUse('ToolSearch', { query: 'select:mcp__calc__add,mcp__calc__nope' }, 'toolu_sel'),
      toolUse('mcp__calc__add', { a: 2, b: 3 }, 'toolu_add'),
      text('5'),
    ]);
    const servers = {
      calc: { command: process.execPath, args: [CALC] },
      many: many({ env: { MCP_MANY_COUNT: '3' }, alwaysLoad: true }),
    };
    const r = await runAgent({
      api,
      env: { ENABLE_TOOL_SEARCH: 'true' },
      args: [...STREAM_ARGS, '--mcp-config', config(servers), '--allowedTools', 'mcp__calc'],
      input: userLine('add'),
    });
    expect(r.code).toBe(0);
    const [first, second, third] = api.requests;
    expect(toolNames(first).filter((n) => n.startsWith('mcp__'))).toEqual([
      'mcp__many__weather_forecast',
      'mcp__many__billing_list_records_1',
      'mcp__many__tickets_list_records_2',
    ]);
    expect(firstUserText(first)).toContain('mcp__calc__add');
    expect(firstUserText(first)).not.toContain('mcp__many__weather_forecast');
    const selected = resultText(lastToolResults(second)[0].content);
    expect(selected).toContain('"name":"mcp__calc__add"');
    expect(selected).toContain('No deferred tool is named "mcp__calc__nope"');
    expect(toolNames(second).at(-1)).toBe('mcp__calc__add');
    expect(resultText(lastToolResults(third)[0].content)).toBe('5');
  }, 30_000);

  it('a deferred tool called by name without a search runs, and is offered from then on', async () => {
    api = await startFakeApi([toolUse('mcp__calc__add', { a: 1, b: 2 }, 'toolu_direct'), text('3')]);
    const r = await runAgent({
      api,
      env: { ENABLE_TOOL_SEARCH: 'true' },
      args: [
        ...STREAM_ARGS,
        '--mcp-config',
        config({ calc: { command: process.execPath, args: [CALC] } }),
        '--allowedTools',
        'mcp__calc',
      ],
      input: userLine('add'),
    });
    expect(r.code).toBe(0);
    expect(toolNames(api.requests[0])).not.toContain('mcp__calc__add');
    expect(resultText(lastToolResults(api.requests[1])[0].content)).toBe('3');
    expect(toolNames(api.requests[1]).at(-1)).toBe('mcp__calc__add');
  }, 30_000);

  it('below the threshold (auto) no MCP tool is deferred, only the built-ins marked deferred', async () => {
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', config({ calc: { command: process.execPath, args: [CALC] } })],
      input: userLine('hi'),
    });
    expect(r.code).toBe(0);
    expect(toolNames(api.requests[0])).toContain('mcp__calc__add');
    expect(firstUserText(api.requests[0])).not.toContain('mcp__calc__add');
    expect(firstUserText(api.requests[0])).toBe(`hi\n${DEFERRED_REMINDER}`);
  }, 30_000);

  it('a built-in marked deferred (CronList) is not in the first request, is listed for ToolSearch, and runs once loaded', async () => {
    api = await startFakeApi([
      toolUse('ToolSearch', { query: 'select:CronList' }, 'toolu_sel'),
      toolUse('CronList', {}, 'toolu_list'),
      text('No jobs.'),
    ]);
    const r = await runAgent({ api, args: [...STREAM_ARGS], input: userLine('what is scheduled?') });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(3);
    const [first, second, third] = api.requests;
    for (const name of DEFERRED_BUILTINS) {
      expect(toolNames(first)).not.toContain(name);
      expect(firstUserText(first)).toContain(`\n${name}\n`);
    }
    expect(toolNames(first).at(-1)).toBe('ToolSearch');
    // The host still sees every tool the model can reach.
    expect(init(r).tools).toEqual(expect.arrayContaining(['CronList', 'ToolSearch']));
    const selected = resultText(lastToolResults(second)[0].content);
    expect(selected).toContain('"name":"CronList"');
    expect(toolNames(second).at(-1)).toBe('CronList');
    expect(stripMarks(second.body.tools).slice(0, first.body.tools.length)).toEqual(stripMarks(first.body.tools));
    const [listed] = lastToolResults(third);
    expect(listed.is_error).toBeFalsy();
    expect(toolNames(third)).toEqual(toolNames(second));
  }, 30_000);
});
