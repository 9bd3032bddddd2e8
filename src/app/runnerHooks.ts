// What the session runner asks of the rest of the session (SessionHooks): the system prompt, the
// tool pipeline, the prompt gate (transcript, checkpoints, UserPromptSubmit, plan mode), the Stop
// hook, what must be ready before a run, slash commands, and system/init's lists.
import { randomUUID } from '../util/ids.js';
import type { PlanModeService } from '../../tools/planMode.js';
import type { ToolServices } from '../../tools/tool.js';
import type { SlashCommands } from '../commands/slashCommands.js';
import type { AgentSetup } from './agentSetup.js';
import type { CallModel } from '../loop/model.js';
import type { ModelApi } from '../loop/modelClient.js';
import type { SessionMcp } from '../mcp/sessionMcp.js';
import { pluginInfo } from '../plugins/session.js';
import { buildSystemPrompt, type SystemPromptParts } from '../prompt/systemPrompt.js';
import type { Guards } from '../session/guards.js';
import { stopHookState } from '../tasks/scheduler.js';
import { suggestionsWanted } from '../session/promptSuggestion.js';
import type { SessionHooks, SessionSettings } from '../session/runner.js';
import type { SessionControls } from '../session/sessionControls.js';
import type { TurnScope } from '../session/turnScope.js';
import type { Transcript } from '../transcript/transcript.js';
import type { Late } from './late.js';
import type { MainAgent } from './mainAgentSetup.js';
import type { SessionConfig, HostSetup } from './sessionConfig.js';
import { runSlashCommand } from './sessionCommands.js';
import type { SessionPlugins } from './sessionPlugins.js';
import type { SessionIO } from './sessionIO.js';
import type { SessionTelemetry } from './sessionTelemetry.js';
import type { SessionTools } from './sessionTools.js';

export interface RunnerHookParts {
  io: SessionIO;
  env: NodeJS.ProcessEnv;
  config: SessionConfig;
  host: HostSetup;
  /** --permission-prompt-tool: permission questions go there, not to the mode's askHost. */
  promptTool: string | undefined;
  transcript: Transcript | null;
  systemParts: SystemPromptParts;
  settings: SessionSettings;
  services: ToolServices;
  agents: AgentSetup;
  guards: Guards;
  planMode: PlanModeService;
  tools: SessionTools;
  mcp: SessionMcp;
  slash: SlashCommands;
  plugins: SessionPlugins;
  mainAgent: MainAgent;
  turn: TurnScope;
  controls: Late<SessionControls>;
  callModel: CallModel;
  /** The session's Messages API: the ids the init line names. */
  api: ModelApi;
  telemetry: SessionTelemetry;
  /** Messages from other local sessions; absent in a teammate process. */
  peers?: { takeMessages(): Promise<string | null> };
}

export function runnerHooks(p: RunnerHookParts): SessionHooks {
  const { guards, io } = p;
  return {
    systemPrompt: () => buildSystemPrompt(p.systemParts),
    services: p.services,
    background: p.agents.background,
    schedule: p.agents.schedule,
    ...(p.peers ? { peerInbox: p.peers } : {}),
    team: p.agents.team,
    teammateTimeoutMs: p.config.teammateTimeoutMs,
    pipeline: () => ({
      tools: p.tools.tools.list(),
      ...guards.pipeline,
      toolAliases: () => p.host.toolAliases,
      ...(io.askHost && !p.promptTool ? { askHost: io.askHost } : {}),
      ...(p.telemetry.onToolTelemetry ? { onToolTelemetry: p.telemetry.onToolTelemetry } : {}),
    }),
    beforePrompt: async (prompt, signal, uuid) => {
      const id =
        p.transcript?.appendMessage({ type: 'user', uuid, message: { role: 'user', content: prompt } }) ??
        uuid ??
        randomUUID();
      p.controls.get().onPrompt(id);
      p.telemetry.userPrompt(prompt);
      const gate = await guards.beforePrompt(prompt, signal);
      // Each prompt in plan mode reminds the model of it (the mode may have changed since the last).
      if (gate.blockReason === undefined && guards.permissions.mode === 'plan')
        gate.additionalContext = [...(gate.additionalContext ?? []), p.planMode.reminder()];
      return gate;
    },
    // What will still wake the session, so a hook can tell "done" from "waiting" (sdk.d.ts).
    stopHook: (active, signal) =>
      guards.stopHook(active, signal, () => stopHookState(p.agents.registry, p.agents.schedule)),
    permissionMode: () => guards.permissions.mode,
    promptSuggestions: () => suggestionsWanted(p.host.promptSuggestions, p.config.promptSuggestionEnabled, p.env),
    beforeRun: async () => {
      await p.plugins.ready();
      const synced = await p.mcp.sync(p.tools.tools);
      if (synced) p.settings.mcpServers = synced.statuses;
      p.mainAgent.apply();
    },
    callModel: p.callModel,
    sentModelId: p.api.sentModelId,
    slashCommand: (text) => runSlashCommand(p.slash, text, p.config),
    turn: p.turn,
    slashCommandNames: () => p.slash.names(),
    skillNames: () => (p.tools.tools.has('Skill') ? p.tools.skills.enabled().map((sk) => sk.name) : []),
    plugins: () => pluginInfo(p.tools.plugins.list()).map(({ name, path }) => ({ name, path })),
    ...(io.reportError ? { reportError: io.reportError } : {}),
  };
}
