// Plugins in a running session: what the loaded plugins ship is put where the session keeps each
// kind (slash commands, the agent catalog, the skill catalog, the hook runner, the MCP manager),
// system/init lists them, and reload_plugins reads them again (and adds more) while it runs.
import type { ControlChannel } from '../control/channel.js';
import { CodedControlError } from '../control/channel.js';
import { parseControlRequest } from '../control/parseRequest.js';
import { reloadPluginsRequestSchema } from '../protocol/inbound.js';
import type { LoadedPlugin, PluginSpec } from './load.js';
import type { PluginReload, PluginSet } from './pluginSet.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { McpServerStatus } from '../mcp/manager.js';
import type { MarkdownCommand } from '../commands/markdownCommands.js';
import type { AgentDef } from '../agents/definitions.js';
import type { PluginHooks } from '../hooks/hookRunner.js';
import type { SkillEntry } from '../../tools/skill.js';

/** Where each kind of thing a plugin ships goes. */
export interface PluginTargets {
  setCommands(commands: MarkdownCommand[]): void;
  setAgents(agents: AgentDef[]): void;
  /** Sets the plugin skills and reads the skill folders again (the Skill tool follows). */
  setSkills(skills: SkillEntry[]): Promise<void>;
  setHooks(hooks: PluginHooks[]): void;
  /** Replaces the plugin MCP servers; resolves once the new ones have connected or failed. */
  setMcpServers(servers: Map<string, McpServerConfig>): Promise<void>;
  /** The plugin MCP servers now known (for the cache check). */
  mcpServerNames(): Promise<string[]>;
}

/** What a reload_plugins answer lists besides the plugins. */
export interface PluginSessionView {
  commands(): unknown[];
  agents(): unknown[];
  mcpServers(): Promise<McpServerStatus[]>;
  /** The conversation has turns whose prompt cache depends on the tool list. */
  hasHistory(): boolean;
  /** A turn is running or queued. */
  busy(): boolean;
  warn(message: string): void;
}

export function specsFromConfigs(configs: Array<{ path: string; skipMcpDiscovery?: boolean }>): PluginSpec[] {
  return configs.map((c) => ({ path: c.path, ...(c.skipMcpDiscovery ? { skipMcp: true } : {}) }));
}

/** Put every loaded plugin's things in place. */
export async function applyPlugins(plugins: LoadedPlugin[], t: PluginTargets): Promise<void> {
  t.setCommands(plugins.flatMap((p) => p.commands));
  t.setAgents(plugins.flatMap((p) => p.agents));
  t.setHooks(plugins.map((p) => ({ name: p.name, root: p.path, hooks: p.hooks })));
  await t.setSkills(plugins.flatMap((p) => p.skills));
  await t.setMcpServers(new Map(plugins.flatMap((p) => [...p.mcpServers])));
}

/** system/init's `plugins` and reload_plugins' list. */
export function pluginInfo(plugins: LoadedPlugin[]): Array<{ name: string; path: string; version?: string }> {
  return plugins.map((p) => ({
    name: p.name,
    path: p.path,
    ...(p.version !== undefined ? { version: p.version } : {}),
  }));
}

export function registerPluginControlHandlers(
  channel: ControlChannel,
  set: PluginSet,
  targets: PluginTargets,
  view: PluginSessionView,
): void {
  const answer = async (extra: Record<string, unknown>, errorCount: number) => ({
    commands: view.commands(),
    agents: view.agents(),
    plugins: pluginInfo(set.list()),
    mcpServers: await view.mcpServers(),
    error_count: errorCount,
    ...extra,
  });
  channel.on('reload_plugins', async (raw) => {
    const req = parseControlRequest(reloadPluginsRequestSchema, raw, 'reload_plugins');
    if (req.refuse_if_busy && view.busy())
      throw new CodedControlError(
        'reload_plugins: the session is busy (a turn is running or queued); nothing was reloaded — ask again once it is idle',
        'reload_plugins_busy',
      );
    const prepared: PluginReload = await set.prepareReload(specsFromConfigs(req.add_plugins ?? []));
    for (const e of prepared.errors) view.warn(`reload_plugins: ${e}`);
    if (req.hold_on_cache_impact) {
      const before = new Set(await targets.mcpServerNames());
      const after = new Set(prepared.plugins.flatMap((p) => [...p.mcpServers.keys()]));
      const added = [...after].filter((n) => !before.has(n));
      const removed = [...before].filter((n) => !after.has(n));
      if (view.hasHistory() && (added.length || removed.length))
        return answer(
          {
            held: true,
            cache_impact: { mcp_servers_added: added, mcp_servers_removed: removed, lsp_tool_change: null },
          },
          prepared.errors.length,
        );
    }
    set.commit(prepared);
    await applyPlugins(prepared.plugins, targets);
    return answer(req.hold_on_cache_impact ? { held: false } : {}, prepared.errors.length);
  });
}
