import { bindSessionControl, type ControlledSession } from '../control/sessionControl.js';
import { withPolicy } from '../mcp/sources.js';
import { pluginInfo, preparePluginReload } from '../plugins/session.js';
import { loadSessionSettings } from '../session/guards.js';
import { settingsPaths } from '../settings/index.js';
import type { ControlParts } from './controlParts.js';
import { agentInfos, initializeTarget } from './initializeTarget.js';
import { sessionModel } from './sessionConfig.js';
import { logWarning } from '../util/log.js';

/** Every control request of the session bound (src/control) to the session's parts. */
export function bindControls(p: ControlParts): void {
  bindSessionControl(p.channel, controlledSession(p));
}

function controlledSession(p: ControlParts): ControlledSession {
  const { o, settings, guards, mcp, channel, runner } = p;
  return {
    initialize: initializeTarget(p),
    interrupt: () => void runner.interrupt(),
    setModel: (model) => {
      settings.model = sessionModel(p.config, model);
    },
    setPermissionMode: (mode) => guards.permissions.setMode(mode),
    setMaxThinkingTokens: (tokens) => {
      settings.maxThinkingTokens = tokens ?? undefined;
      // A budget turns thinking back on in a session started with --thinking disabled.
      if (tokens && settings.thinking === 'disabled') settings.thinking = undefined;
    },
    mcpStatus: async () => ({ mcpServers: await mcp.details() }),
    async reloadOutputStyles() {
      const names = await p.outputStyles.catalog.reload();
      p.outputStyles.use(p.outputStyles.catalog.current);
      return names;
    },
    async reloadSkills() {
      const list = await p.tools.skills.reload();
      p.tools.skillsChanged();
      return list.map((sk) => ({
        name: sk.name,
        description: `${sk.description} (${sk.source === 'plugin' ? `plugin:${sk.name.split(':')[0]}` : sk.source})`,
        argumentHint: '',
      }));
    },
    tasks: { registry: p.agents.registry, foreground: p.agents.foreground },
    settings: {
      reload: (flagLayer) => loadSessionSettings(o, p.config.cwd, p.env, p.config.sources, flagLayer),
      initial: p.loaded,
      permissions: guards.permissions,
      cliRules: { allow: o.allowedTools, deny: o.disallowedTools, dirs: o.addDir },
      setModel: (model) => {
        settings.model = sessionModel(p.config, model);
      },
      currentModel: () => settings.model,
      sources: p.config.sources,
      paths: settingsPaths(p.config.projectRoot, p.env),
      outputStyles: { names: () => p.outputStyles.catalog.names(), use: p.outputStyles.use },
    },
    mcp: {
      manager: () => mcp.manager(),
      parseServer: async (name, config) => {
        const { parseServer } = await import('../mcp/config.js');
        return withPolicy(p.policy, name, parseServer(name, config, 'mcp_set_servers'), 'dynamic');
      },
      hostRequest: (subtype, payload, opts) => channel.request(subtype, payload, opts),
      askedServers: () => guards.permissions.mcpServersAsked,
      knownServers: () => mcp.names(),
    },
    files: p.controls.requests,
    plugins: {
      busy: () => runner.running || runner.pending > 0,
      hasHistory: () => runner.history.length > 0,
      prepareReload: (add) => preparePluginReload(p.tools.plugins, p.plugins.targets, add),
      mcpServerNames: () => p.plugins.targets.mcpServerNames(),
      commands: () => p.slash.list(),
      agents: () => agentInfos(p.agents),
      plugins: () => pluginInfo(p.tools.plugins.list()),
      mcpServers: () => mcp.details(),
      warn: logWarning,
    },
  };
}
