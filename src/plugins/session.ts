// Plugins in a running session: what the loaded plugins ship is put where the session keeps each
// kind (slash commands, the agent catalog, the skill catalog, the hook runner, the MCP manager),
// system/init lists them, and reload_plugins (src/control/pluginHandlers.ts) reads them again (and
// adds more) while it runs.
import type { LoadedPlugin, PluginSpec } from './load.js';
import type { PluginReload, PluginSet } from './pluginSet.js';
import type { McpServerConfig } from '../mcp/config.js';
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

/** Plugins read again, not yet in place: nothing changes until `apply`. */
export interface PreparedPluginReload {
  /** Plugins that did not load, each one message. */
  errors: string[];
  /** The MCP servers the reloaded plugins ship. */
  mcpServerNames: string[];
  /** Put the reloaded plugins in place; resolves once their MCP servers connected or failed. */
  apply(): Promise<void>;
}

/**
 * reload_plugins' work (src/control/pluginHandlers.ts): every plugin read again, with `add` added;
 * nothing changes until `apply` commits the set and puts what the plugins ship in place.
 */
export async function preparePluginReload(
  set: PluginSet,
  targets: PluginTargets,
  add: Array<{ path: string; skipMcpDiscovery?: boolean }>,
): Promise<PreparedPluginReload> {
  const prepared: PluginReload = await set.prepareReload(specsFromConfigs(add));
  return {
    errors: prepared.errors,
    mcpServerNames: prepared.plugins.flatMap((p) => [...p.mcpServers.keys()]),
    async apply() {
      set.commit(prepared);
      await applyPlugins(prepared.plugins, targets);
    },
  };
}
