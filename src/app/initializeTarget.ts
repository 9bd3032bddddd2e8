// `initialize` applied to this session (src/control/initializeHandler.ts parses and orders it).
import { createStructuredOutputTool } from '../../tools/structuredOutput.js';
import type { InitializeTarget } from '../control/initializeHandler.js';
import { parseServer } from '../mcp/config.js';
import { withPolicy } from '../mcp/sources.js';
import { modelChoices } from '../loop/models.js';
import { accountInfo } from '../loop/providers/keySources.js';
import type { AgentSetup } from './agentSetup.js';
import type { ControlParts } from './controlParts.js';
import { logWarning } from '../util/log.js';

export function initializeTarget(p: ControlParts): InitializeTarget {
  const { mcp, channel, settings, agents } = p;
  return {
    connectInitializeMcp: (servers) => {
      // Every config is checked before any starts; a bad one is an error answer, which ends the SDK's session.
      const configs = new Map(
        Object.entries(servers).map(([name, config]) => [
          name,
          withPolicy(p.policy, name, parseServer(name, config, 'initialize: mcpServers'), 'dynamic'),
        ]),
      );
      mcp.connectConfigured([{ scope: 'dynamic', configs }]);
    },
    connectHostMcp: (names, manifests) =>
      mcp.connectHost(names, (subtype, payload, opts) => channel.request(subtype, payload, opts), manifests),
    setJsonSchema: (schema) => {
      settings.structuredOutputTool = createStructuredOutputTool(schema);
    },
    setHostHooks: (hooks) => p.guards.setHostHooks(hooks),
    selectSkills: (selection) => p.tools.selectSkills(selection),
    loadPlugins: (configs) => p.plugins.loadFromInitialize(configs),
    pluginsLoaded: (configs) => configs.every((c) => p.tools.plugins.has(c.path)),
    setPlanModeInstructions: (text) => {
      p.host.planModeInstructions = text;
    },
    setToolAliases: (aliases) => {
      p.host.toolAliases = aliases;
    },
    setProgressSummaries: (on) => {
      p.host.progressSummaries = on;
    },
    setPromptSuggestions: (on) => {
      p.host.promptSuggestions = on;
    },
    // First initialize wins, as the reference's rule for it says.
    setForwardSubagentText: (on) => {
      p.host.forwardSubagentText ??= on;
    },
    setPerTaskStopAffordance: (on) => {
      p.host.perTaskStopAffordance ??= on;
      p.runner.spareAgentsOnInterrupt = p.host.perTaskStopAffordance;
    },
    // An array keeps its items: the dynamic-boundary marker splits it (systemPrompt.ts).
    setSystemPrompt: (prompt) => {
      p.systemParts.custom = prompt;
    },
    appendSystemPrompt: (text) => p.systemParts.append.push(text),
    appendSubagentSystemPrompt: (text) => {
      p.host.subagentAppend = text;
    },
    setTitle: (title) => p.transcript?.appendMeta({ type: 'custom-title', customTitle: title }),
    setSdkAgents: (defs) => {
      agents.setSdkAgents(defs);
      settings.agents = agents.catalog.names();
    },
    checkMainAgent: () => p.mainAgent.check(),
    exitAfterAnswer: (message) => {
      logWarning(message);
      setImmediate(() => void p.writer.flush(1000).then(() => process.exit(2)));
    },
    answer: () => {
      // A later initialize loads no plugins (the reference's rule).
      p.plugins.initialized();
      const answer = {
        commands: p.slash.list(),
        output_style: p.outputStyles.catalog.current,
        available_output_styles: p.outputStyles.catalog.names(),
        agents: agentInfos(agents),
        // "Default" is where set_model "default" goes: the session's default, not the model now.
        models: modelChoices(p.config.defaultModel),
        account: accountInfo(p.config.apiProvider, process.env, p.config.auth.apiKeyHelper),
      };
      // Each model as the id it is sent with (Bedrock's profile ids: this may wait for their list).
      const sent = answer.models.map((m) => p.api.sentModelId(m.resolvedModel));
      if (sent.every((id) => typeof id === 'string')) return answer;
      return Promise.all(sent).then((ids) => ({
        ...answer,
        models: answer.models.map((m, i) => ({ ...m, resolvedModel: ids[i] })),
      }));
    },
  };
}

/** The agents as initialize and reload_plugins answers list them. */
export function agentInfos(agents: AgentSetup): Array<{ name: string; description: string; model?: string }> {
  return agents.catalog
    .all()
    .map((d) => ({ name: d.name, description: d.description, ...(d.model ? { model: d.model } : {}) }));
}
