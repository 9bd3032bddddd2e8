// The session's plugins at work: what a plugin brings (commands, agents, skills, hooks, MCP
// servers) put in place, first for --plugin-dir in the background (every run waits for it), then
// for the plugins of the first initialize. A later initialize loads none (the reference's rule).
import type { SlashCommands } from '../commands/slashCommands.js';
import type { AgentSetup } from './agentSetup.js';
import type { McpPolicy } from '../mcp/policy.js';
import { withPolicy } from '../mcp/sources.js';
import type { SessionMcp } from '../mcp/sessionMcp.js';
import { applyPlugins, type PluginTargets, specsFromConfigs } from '../plugins/session.js';
import type { SessionSettings } from '../session/runner.js';
import type { Guards } from '../session/guards.js';
import type { SessionTools } from './sessionTools.js';
import { logWarning } from '../util/log.js';

export interface SessionPlugins {
  targets: PluginTargets;
  /** Resolves once the plugins loaded so far are in place. */
  ready(): Promise<void>;
  /** The stdin form of --plugin-dir (see InitializeTarget.loadPlugins). */
  loadFromInitialize(configs: Array<{ path: string; skipMcpDiscovery?: boolean }>): Promise<void> | undefined;
  /** An initialize was answered: later ones load no plugins. */
  initialized(): void;
}

export function startSessionPlugins(p: {
  strictMcpConfig: boolean;
  tools: SessionTools;
  slash: SlashCommands;
  agents: AgentSetup;
  settings: SessionSettings;
  guards: Guards;
  mcp: SessionMcp;
  policy: McpPolicy;
}): SessionPlugins {
  const { plugins } = p.tools;
  const targets: PluginTargets = {
    setCommands: (commands) => p.slash.setPluginCommands(commands),
    setAgents: (defs) => {
      p.agents.catalog.set('plugin', defs);
      p.settings.agents = p.agents.catalog.names();
    },
    setSkills: (list) => p.tools.setPluginSkills(list),
    setHooks: (list) => p.guards.hooks.setPluginHooks(list),
    setMcpServers: async (servers) => {
      // --strict-mcp-config: only its own servers run; the plugins' are left out, and said so.
      if (p.strictMcpConfig && servers.size) {
        logWarning(`--strict-mcp-config: the plugins' MCP servers are not started: ${[...servers.keys()].join(', ')}`);
        servers = new Map();
      }
      // The policy lists hold for plugin servers too.
      await p.mcp.setPluginServers(
        new Map([...servers].map(([name, config]) => [name, withPolicy(p.policy, name, config, 'plugin')])),
      );
    },
    mcpServerNames: () => p.mcp.pluginServerNames(),
  };
  // Applied in the background (plugin MCP servers connect meanwhile); every run waits for it.
  let ready: Promise<void> = plugins.list().length ? applyPlugins(plugins.list(), targets) : Promise.resolve();
  let initialized = false;
  return {
    targets,
    ready: () => ready,
    loadFromInitialize(configs) {
      const first = !initialized;
      initialized = true;
      if (!first) return undefined;
      const loading = ready.then(async () => {
        await plugins.add(specsFromConfigs(configs));
        await applyPlugins(plugins.list(), targets);
      });
      ready = loading.catch(() => {});
      return loading;
    },
    initialized() {
      initialized = true;
    },
  };
}
