// ToolSearch's ranking and select:, and the deferred-tools offer: the threshold, the order of the
// offered list (stable part first, loads after), the reminder, and resumed histories.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool } from '../../../tools/tool.js';
import { nameWords, searchTools, selectTools, ToolSearchTool } from '../../../tools/toolSearch.js';
import { DeferredTools, parseToolSearchSetting } from '../../../src/loop/deferredTools.js';
import { builtinTools } from '../../../tools/registry.js';
import { makeCtx, run, tempDir, text } from './helpers.js';

function fake(name: string, description: string, extra: Partial<Tool> = {}): Tool {
  return defineTool({
    name,
    description,
    inputSchema: z.object({ x: z.string().optional() }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call() {
      return { content: name };
    },
    ...extra,
  }) as Tool;
}

const defs = [
  { name: 'mcp__slack__send_message', description: 'Send a message to a Slack channel', input_schema: {} },
  { name: 'mcp__slack__list_channels', description: 'List the channels of the workspace', input_schema: {} },
  {
    name: 'mcp__github__create_pull_request',
    description: 'Open a pull request; message is its body',
    input_schema: {},
  },
  { name: 'mcp__github__getIssue', description: 'Read one issue', input_schema: {} },
];

describe('ToolSearch ranking', () => {
  it('splits names into words (snake, camel, server prefix)', () => {
    expect(nameWords('mcp__github__getIssue')).toEqual(['mcp', 'github', 'get', 'issue']);
  });

  it('ranks name matches over description matches; +term is required; nothing matching is nothing', () => {
    expect(searchTools(defs, 'message', 5).map((d) => d.name)).toEqual([
      'mcp__slack__send_message',
      'mcp__github__create_pull_request',
    ]);
    expect(searchTools(defs, '+github message', 5).map((d) => d.name)).toEqual([
      'mcp__github__create_pull_request',
      'mcp__github__getIssue',
    ]);
    expect(searchTools(defs, 'issue', 5).map((d) => d.name)).toEqual(['mcp__github__getIssue']);
    expect(searchTools(defs, 'slack', 1)).toHaveLength(1);
    expect(searchTools(defs, 'kubernetes', 5)).toEqual([]);
  });

  it('select: finds exact (then case-insensitive) names and reports the missing ones', () => {
    const r = selectTools(defs, 'mcp__slack__list_channels, MCP__GITHUB__GETISSUE,nope,mcp__slack__list_channels');
    expect(r.found.map((d) => d.name)).toEqual(['mcp__slack__list_channels', 'mcp__github__getIssue']);
    expect(r.missing).toEqual(['nope']);
  });

  it('without a loop that defers tools it is a clear tool error', async () => {
    const r = await run(ToolSearchTool, { query: 'x' }, makeCtx(tempDir()));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('ToolSearch is not available here');
  });
});

describe('deferred tools', () => {
  const search = builtinTools().find((t) => t.name === 'ToolSearch')!;
  const read = builtinTools().find((t) => t.name === 'Read')!;
  const mcp = (n: number, extra: Partial<Tool> = {}) =>
    Array.from({ length: n }, (_, i) => fake(`mcp__s__t${i}`, 'd'.repeat(400), extra));

  it('ENABLE_TOOL_SEARCH forms', () => {
    expect(parseToolSearchSetting(undefined)).toEqual({ mode: 'auto', percent: 10 });
    expect(parseToolSearchSetting('auto:5')).toEqual({ mode: 'auto', percent: 5 });
    expect(parseToolSearchSetting('TRUE')).toEqual({ mode: 'always' });
    expect(parseToolSearchSetting('false')).toEqual({ mode: 'never' });
    expect(() => parseToolSearchSetting('auto:200')).toThrow(/ENABLE_TOOL_SEARCH="auto:200" is not valid/);
  });

  it('auto defers the MCP tools only past N % of the context window', () => {
    // 20 tools of ~130 tokens: ~2,600 tokens; 1 % of 200k is 2,000, 2 % is 4,000.
    const one = new DeferredTools({ setting: parseToolSearchSetting('auto:1'), contextWindow: () => 200_000 });
    one.setTools([read, ...mcp(20), search]);
    expect(one.active).toBe(true);
    const two = new DeferredTools({ setting: parseToolSearchSetting('auto:2'), contextWindow: () => 200_000 });
    two.setTools([read, ...mcp(20), search]);
    expect(two.active).toBe(false);
    expect(two.apiTools().map((t) => t.name)).not.toContain('ToolSearch');
    expect(two.toolNames()).not.toContain('ToolSearch');
  });

  it('without ToolSearch among the tools nothing is deferred (nothing could load them); alwaysLoad tools stay', () => {
    const d = new DeferredTools({ setting: { mode: 'always' }, contextWindow: () => 200_000 });
    d.setTools([read, ...mcp(3)]);
    expect(d.active).toBe(false);
    d.setTools([read, ...mcp(2), fake('mcp__k__keep', 'kept', { alwaysLoad: true }), search]);
    expect(d.apiTools().map((t) => t.name)).toEqual(['Read', 'mcp__k__keep', 'ToolSearch']);
  });

  it('a built-in marked deferred is withheld whenever ToolSearch is offered, whatever the threshold; never with ENABLE_TOOL_SEARCH=false', () => {
    const cron = fake('CronList', 'List scheduled jobs', { deferred: true });
    const auto = new DeferredTools({ setting: parseToolSearchSetting('auto'), contextWindow: () => 200_000 });
    auto.setTools([read, cron, ...mcp(2), search]);
    expect(auto.apiTools().map((t) => t.name)).toEqual(['Read', 'mcp__s__t0', 'mcp__s__t1', 'ToolSearch']);
    expect(auto.takeAnnouncement()?.text).toContain('These 1 tools are deferred');
    auto.load(['CronList']);
    expect(
      auto
        .apiTools()
        .map((t) => t.name)
        .at(-1),
    ).toBe('CronList');
    const never = new DeferredTools({ setting: { mode: 'never' }, contextWindow: () => 200_000 });
    never.setTools([read, cron, search]);
    expect(never.active).toBe(false);
    expect(never.apiTools().map((t) => t.name)).toEqual(['Read', 'CronList']);
    const noSearch = new DeferredTools({ setting: { mode: 'always' }, contextWindow: () => 200_000 });
    noSearch.setTools([read, cron]);
    expect(noSearch.apiTools().map((t) => t.name)).toEqual(['Read', 'CronList']);
  });

  it('loads go after the stable part, in load order; the reminder is given once per change; a resumed history loads what it used', () => {
    const d = new DeferredTools({ setting: { mode: 'always' }, contextWindow: () => 200_000 });
    d.setTools([read, search, ...mcp(3)]);
    expect(d.apiTools().map((t) => t.name)).toEqual(['Read', 'ToolSearch']);
    const told = d.takeAnnouncement()!;
    expect(told.names).toEqual(['mcp__s__t0', 'mcp__s__t1', 'mcp__s__t2']);
    const note = told.text;
    expect(note).toContain('These 3 tools are deferred');
    expect(note).toContain('mcp__s__t2');
    expect(d.takeAnnouncement()).toBeUndefined();
    d.load(['mcp__s__t2', 'Read', 'nope', 'mcp__s__t0']);
    expect(d.apiTools().map((t) => t.name)).toEqual(['Read', 'ToolSearch', 'mcp__s__t2', 'mcp__s__t0']);
    expect(d.takeAnnouncement()).toBeUndefined();
    d.forgetAnnouncement();
    expect(d.takeAnnouncement()?.text).toContain('mcp__s__t1');
    const child = d.forTools([search, ...mcp(3)]);
    expect(child.apiTools().map((t) => t.name)).toEqual(['ToolSearch']);
    child.loadUsedIn([{ role: 'assistant', content: [{ type: 'tool_use', name: 'mcp__s__t1', id: 'x', input: {} }] }]);
    expect(child.apiTools().map((t) => t.name)).toEqual(['ToolSearch', 'mcp__s__t1']);
  });

  it('a resumed history that holds the current list is not told it again; a different or compacted-away list is', () => {
    const first = new DeferredTools({ setting: { mode: 'always' }, contextWindow: () => 200_000 });
    first.setTools([read, search, ...mcp(2)]);
    const note = first.takeAnnouncement()!.text;
    const history = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'text', text: note },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      { role: 'user', content: 'again' },
    ];
    // The same tools in a new process (resume): the list is in the history already.
    const resumed = first.forTools([read, search, ...mcp(2)]);
    resumed.loadUsedIn(history);
    expect(resumed.takeAnnouncement()).toBeUndefined();
    // A string content holds it just as well.
    const fromString = first.forTools([read, search, ...mcp(2)]);
    fromString.loadUsedIn([{ role: 'user', content: `hello\n\n${note}` }]);
    expect(fromString.takeAnnouncement()).toBeUndefined();
    // One more tool deferred since: the new list is given.
    const grown = first.forTools([read, search, ...mcp(3)]);
    grown.loadUsedIn(history);
    expect(grown.takeAnnouncement()?.text).toContain('These 3 tools are deferred');
    // Nothing deferred any more (ENABLE_TOOL_SEARCH=false on resume): the model is told so, once.
    const none = new DeferredTools({ setting: { mode: 'never' }, contextWindow: () => 200_000 });
    none.setTools([read, search, ...mcp(2)]);
    none.loadUsedIn(history);
    expect(none.takeAnnouncement()).toEqual({
      names: [],
      text: '<system-reminder>\nNo tools are deferred any more.\n</system-reminder>',
    });
    expect(none.takeAnnouncement()).toBeUndefined();
    // The latest reminder in the history wins; a history without one is told the list.
    const latest = first.forTools([read, search, ...mcp(2)]);
    latest.loadUsedIn([
      ...history,
      { role: 'user', content: '<system-reminder>\nNo tools are deferred any more.\n</system-reminder>' },
    ]);
    expect(latest.takeAnnouncement()?.text).toContain('These 2 tools are deferred');
    const bare = first.forTools([read, search, ...mcp(2)]);
    bare.loadUsedIn(history.slice(1));
    expect(bare.takeAnnouncement()?.text).toContain('These 2 tools are deferred');
  });

  it('the search tool is found by its role, not its name: the reminder names the one offered', () => {
    expect(search.role).toBe('tool-search');
    const finder = { ...search, name: 'FindTools' } as Tool;
    const d = new DeferredTools({ setting: { mode: 'always' }, contextWindow: () => 200_000 });
    d.setTools([finder, read, ...mcp(2)]);
    expect(d.toolNames()).toEqual(['FindTools', 'Read', 'mcp__s__t0', 'mcp__s__t1']);
    expect(d.apiTools().map((t) => t.name)).toEqual(['Read', 'FindTools']);
    const told = d.takeAnnouncement()!.text;
    expect(told).toContain('first call FindTools (with "select:<name>"');
    expect(told).not.toContain('ToolSearch');
    // A tool merely named ToolSearch plays no part: nothing is deferred, and it is offered as any tool.
    const named = { ...search, role: undefined } as Tool;
    d.setTools([named, read, ...mcp(2)]);
    expect(d.active).toBe(false);
    expect(d.apiTools().map((t) => t.name)).toEqual(['ToolSearch', 'Read', 'mcp__s__t0', 'mcp__s__t1']);
  });
});
