// get_context_usage with deferred tools: they are a 'deferred' row and unloaded mcpTools entries,
// outside the used total and the grid.
import { describe, expect, it } from 'vitest';
import { contextUsage } from '../../../src/session/contextUsage.js';

const tool = (name: string, size = 4000) => ({ name, description: 'd'.repeat(size), input_schema: { type: 'object' } });

describe('context usage with deferred MCP tools', () => {
  it('lists them apart, counts them nowhere', () => {
    const base = {
      model: 'claude-sonnet-5-5',
      system: [{ type: 'text' as const, text: 'sys' }],
      memoryText: '',
      memoryFiles: [],
      history: [],
      agents: [],
      apiUsage: null,
      env: {},
    };
    const offered = [tool('Read'), tool('mcp__s__loaded')];
    const deferred = Array.from({ length: 50 }, (_, i) => tool(`mcp__s__t${i}`));
    const without = contextUsage({ ...base, tools: offered });
    const withDeferred = contextUsage({ ...base, tools: offered, deferredTools: deferred });
    const row = withDeferred.categories.find((c) => c.id === 'mcp_tools_deferred')!;
    expect(row).toMatchObject({ name: 'MCP tools (deferred)', kind: 'deferred' });
    expect(row.tokens).toBeGreaterThan(50_000);
    expect(withDeferred.totalTokens).toBe(without.totalTokens);
    expect(withDeferred.gridRows).toEqual(without.gridRows);
    expect(withDeferred.mcpTools.filter((t) => !t.isLoaded)).toHaveLength(50);
    expect(withDeferred.mcpTools.find((t) => t.name === 'mcp__s__loaded')?.isLoaded).toBe(true);
    // A deferred built-in has a row of its own and a deferredBuiltinTools entry, not an MCP one.
    const cron = contextUsage({ ...base, tools: offered, deferredTools: [...deferred, tool('CronList', 400)] });
    expect(cron.categories.find((c) => c.id === 'system_tools_deferred')).toMatchObject({ kind: 'deferred' });
    expect(cron.categories.find((c) => c.id === 'mcp_tools_deferred')!.tokens).toBe(row.tokens);
    expect(cron.deferredBuiltinTools).toEqual([{ name: 'CronList', tokens: expect.any(Number), isLoaded: false }]);
    expect(cron.mcpTools.map((t) => t.name)).not.toContain('CronList');
    expect(cron.totalTokens).toBe(without.totalTokens);
  });
});
