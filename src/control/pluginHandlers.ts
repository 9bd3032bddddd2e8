// reload_plugins: the plugins read again (and add_plugins added) while the session runs, then put
// in place; the answer lists what the session has now. refuse_if_busy refuses while a turn runs;
// hold_on_cache_impact holds a reload that would change the MCP servers of a conversation that
// has turns (their prompt cache depends on the tool list) and says what would change.
import type { z } from 'zod';
import type { PreparedPluginReload } from '../plugins/session.js';
import { reloadPluginsRequestSchema } from '../protocol/inbound.js';
import { CodedControlError, type ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';

type AddPlugins = NonNullable<z.infer<typeof reloadPluginsRequestSchema>['add_plugins']>;

export interface PluginControlTarget {
  /** A turn is running or queued. */
  busy(): boolean;
  /** The conversation has turns whose prompt cache depends on the tool list. */
  hasHistory(): boolean;
  prepareReload(add: AddPlugins): Promise<PreparedPluginReload>;
  /** The plugin MCP servers in place now. */
  mcpServerNames(): Promise<string[]>;
  // What every answer lists besides the error count.
  commands(): unknown[];
  agents(): unknown[];
  plugins(): Array<{ name: string; path: string; version?: string }>;
  mcpServers(): Promise<unknown[]>;
  warn(message: string): void;
}

export function registerPluginControlHandlers(channel: ControlChannel, target: PluginControlTarget): void {
  const answer = async (extra: Record<string, unknown>, errorCount: number) => ({
    commands: target.commands(),
    agents: target.agents(),
    plugins: target.plugins(),
    mcpServers: await target.mcpServers(),
    error_count: errorCount,
    ...extra,
  });
  channel.on('reload_plugins', async (raw) => {
    const req = parseControlRequest(reloadPluginsRequestSchema, raw, 'reload_plugins');
    if (req.refuse_if_busy && target.busy())
      throw new CodedControlError(
        'reload_plugins: the session is busy (a turn is running or queued); nothing was reloaded — ask again once it is idle',
        'reload_plugins_busy',
      );
    const prepared = await target.prepareReload(req.add_plugins ?? []);
    for (const e of prepared.errors) target.warn(`reload_plugins: ${e}`);
    if (req.hold_on_cache_impact) {
      const before = new Set(await target.mcpServerNames());
      const after = new Set(prepared.mcpServerNames);
      const added = [...after].filter((n) => !before.has(n));
      const removed = [...before].filter((n) => !after.has(n));
      if (target.hasHistory() && (added.length || removed.length))
        return answer(
          {
            held: true,
            cache_impact: { mcp_servers_added: added, mcp_servers_removed: removed, lsp_tool_change: null },
          },
          prepared.errors.length,
        );
    }
    await prepared.apply();
    return answer(req.hold_on_cache_impact ? { held: false } : {}, prepared.errors.length);
  });
}
