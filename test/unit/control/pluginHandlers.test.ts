// reload_plugins through its PluginControlTarget: the answer, the busy refusal (with its code),
// a reload held for its cache impact (nothing applied) and one applied, and a bad field's error.
import { describe, expect, it } from 'vitest';
import { ControlChannel } from '../../../src/control/channel.js';
import { type PluginControlTarget, registerPluginControlHandlers } from '../../../src/control/pluginHandlers.js';

function session(o: { busy?: boolean; history?: boolean; before?: string[]; after?: string[]; errors?: string[] }) {
  const log: string[] = [];
  let plugins = [{ name: 'old', path: '/p/old' }];
  const target: PluginControlTarget = {
    busy: () => o.busy ?? false,
    hasHistory: () => o.history ?? false,
    async prepareReload(add) {
      log.push(`prepare ${JSON.stringify(add)}`);
      return {
        errors: o.errors ?? [],
        mcpServerNames: o.after ?? [],
        async apply() {
          log.push('apply');
          plugins = [{ name: 'new', path: '/p/new' }];
        },
      };
    },
    mcpServerNames: async () => o.before ?? [],
    commands: () => ['cmd'],
    agents: () => ['agent'],
    plugins: () => plugins,
    mcpServers: async () => [{ name: 'srv', status: 'connected' }],
    warn: (m) => void log.push(`warn ${m}`),
  };
  const sent: Array<Record<string, any>> = [];
  const channel = new ControlChannel((m) => void sent.push(m));
  registerPluginControlHandlers(channel, target);
  const ask = async (req: Record<string, unknown>) => {
    await channel.handleRequest('r1', { subtype: 'reload_plugins', ...req });
    return sent.pop()!.response;
  };
  return { ask, log };
}

describe('reload_plugins', () => {
  it('reloads, applies, and answers with what the session has after the reload (key order kept)', async () => {
    const s = session({ errors: ['bad plugin'] });
    const r = await s.ask({ add_plugins: [{ type: 'local', path: '/p/new' }] });
    expect(r.subtype).toBe('success');
    expect(JSON.stringify(r.response)).toBe(
      JSON.stringify({
        commands: ['cmd'],
        agents: ['agent'],
        plugins: [{ name: 'new', path: '/p/new' }],
        mcpServers: [{ name: 'srv', status: 'connected' }],
        error_count: 1,
      }),
    );
    expect(s.log).toEqual(['prepare [{"type":"local","path":"/p/new"}]', 'warn reload_plugins: bad plugin', 'apply']);
  });

  it('refuse_if_busy while a turn runs: an error with its code, nothing read again', async () => {
    const s = session({ busy: true });
    const r = await s.ask({ refuse_if_busy: true });
    expect(r).toMatchObject({ subtype: 'error', error_code: 'reload_plugins_busy' });
    expect(r.error).toMatch(/^reload_plugins: the session is busy/);
    expect(s.log).toEqual([]);
    // Without refuse_if_busy a busy session reloads.
    expect((await s.ask({})).subtype).toBe('success');
    expect(s.log).toContain('apply');
  });

  it('hold_on_cache_impact: a change of MCP servers in a conversation with turns is held, not applied', async () => {
    const s = session({ history: true, before: ['a', 'b'], after: ['b', 'c'] });
    const r = await s.ask({ hold_on_cache_impact: true });
    expect(r.response).toMatchObject({
      plugins: [{ name: 'old', path: '/p/old' }],
      held: true,
      cache_impact: { mcp_servers_added: ['c'], mcp_servers_removed: ['a'], lsp_tool_change: null },
    });
    expect(s.log).not.toContain('apply');
  });

  it('hold_on_cache_impact with no history, or no MCP change: applied, held false', async () => {
    for (const s of [
      session({ history: false, before: ['a'], after: ['c'] }),
      session({ history: true, before: ['a'], after: ['a'] }),
    ]) {
      const r = await s.ask({ hold_on_cache_impact: true });
      expect(r.response).toMatchObject({ plugins: [{ name: 'new', path: '/p/new' }], held: false });
      expect(s.log).toContain('apply');
    }
  });

  it('a relative add_plugins path is an error naming the field', async () => {
    const s = session({});
    const r = await s.ask({ add_plugins: [{ type: 'local', path: 'rel/dir' }] });
    expect(r).toMatchObject({ subtype: 'error' });
    expect(r.error).toContain('add_plugins: each path must be absolute');
    expect(s.log).toEqual([]);
  });
});
