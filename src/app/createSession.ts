// The session factory: CLI options → one session assembled from typed parts, in order — its
// configuration and start (sessionStart.ts), tools, MCP servers, agents, guards, commands, the
// sandbox, the tool services (complete when built), the runner, the controls, and the Session the
// mode drives, with its exit handlers (sessionHandle.ts). It reads no input and picks no output: the
// mode (src/modes/) gives it where messages go and drives it. Parts that reach a part built after
// them (the runner, its hooks, the controls, the hook runner, the subagents the Agent tool lists)
// hold a `late` one.
import { teammateBackend } from '../teams/teammateMode.js';
import { teammateLaunch } from '../teams/teammateLaunch.js';
import type { TeammateQuestionAnswerer } from '../teams/permissionDesk.js';
import { startPeers } from './peerSetup.js';
import { type AgentSetup, setupAgents } from './agentSetup.js';
import { ControlChannel } from '../control/channel.js';
import type { HookRunner } from '../hooks/index.js';
import type { CliOptions } from '../cli/options.js';
import { VERSION } from '../cli/options.js';
import { buildSystemPrompt, type SystemPromptParts } from '../prompt/systemPrompt.js';
import { StartupError } from '../session/guards.js';
import { type SessionHooks, SessionRunner, type SessionSettings } from '../session/runner.js';
import { type SessionControls, setupSessionControls } from '../session/sessionControls.js';
import { formatMemory, loadMemoryFiles } from '../settings/memory.js';
import { setupSessionPrompt } from '../prompt/sessionPrompt.js';
import { bindControls } from './controlTarget.js';
import { late } from './late.js';
import { setupMainAgent } from './mainAgentSetup.js';
import { setupMcp } from './mcpSetup.js';
import { setupOutputStyles } from './outputStyles.js';
import { runnerHooks } from './runnerHooks.js';
import { sessionHandle } from './sessionHandle.js';
import { teammateQuestionAnswerer } from './teammateQuestions.js';
import { setupSessionCommands } from './sessionCommands.js';
import { skillCommands } from '../skills/skillCommands.js';
import { mcpPromptCommands } from '../mcp/prompts.js';
import type { HostSetup, SessionConfig } from './sessionConfig.js';
import { createSessionEvents, type SessionEvents } from './sessionEvents.js';
import { startGuards } from './sessionGuards.js';
import type { Session, SessionIO } from './sessionIO.js';
import { startSessionPlugins } from './sessionPlugins.js';
import { openSession, type SessionBase } from './sessionStart.js';
import { setupSessionTelemetry } from './sessionTelemetry.js';
import { type SessionTools, setupSessionTools } from './sessionTools.js';
import { startToolServices } from './toolServices.js';

export type { Session, SessionIO } from './sessionIO.js';

/** Throws StartupError (message, exit code) when the session cannot start. */
export async function createSession(o: CliOptions, io: SessionIO): Promise<Session> {
  const { writer } = io;
  const base = await openSession(o, { writer, interactive: io.interactive === true, mirror: io.mirror });
  const { env, config, start, loaded } = base;
  const { sessionId, transcript } = start;
  const { cwd } = config;
  // The channel's lines are the outbound schemas' control lines, so the writer's typed send takes them.
  const channel = new ControlChannel((line) => writer.send(line));
  const telemetry = await setupSessionTelemetry(o, base, { output: io.output, interactive: io.interactive === true });
  const events = createSessionEvents({ ...config, sessionId, transcript, output: telemetry.output });
  const { emit } = events;
  const runner = late<SessionRunner>('runner');
  const controls = late<SessionControls>('file and context controls');
  const hooks = late<HookRunner>('hook runner');
  // The runner's hooks hold the session's tool pipeline, with which the team answers its process
  // teammates' permission questions as the lead's own.
  const turnHooks = late<SessionHooks>('runner hooks');
  // The Agent tool lists the subagents, which are set up after (and over) the tools.
  const agentsPart = late<AgentSetup>('agents');

  const tools = await setupSessionTools(
    o,
    config,
    env,
    () => agentsPart.get().services.subagents.list(),
    io.teammate?.tools,
  );
  const { mcp, policy } = await setupMcp(o, config, {
    ...{ env, loaded, channel, hooks: () => hooks.get(), emit },
    ...(io.elicit ? { elicit: io.elicit } : {}),
  });
  const systemParts: SystemPromptParts = {
    cwd,
    custom: o.systemPrompt,
    append: o.appendSystemPrompt ? [o.appendSystemPrompt] : [],
    model: () => settings.model,
  };
  const host: HostSetup = { progressSummaries: false, promptSuggestions: false };
  const settings = sessionSettings(config, sessionId, tools);
  const outputStyles = await setupOutputStyles(loaded, {
    cwd,
    env,
    sources: config.sources,
    projectRoot: config.projectRoot,
    systemParts,
    onChange: (name) => (settings.outputStyle = name),
  });
  const answerTeammateQuestions = teammateQuestionAnswerer(() => turnHooks.get().pipeline());
  const agents = agentsPart.set(await startAgents(o, { base, tools, settings, host, emit, answerTeammateQuestions }));
  const mainAgent = setupMainAgent(o.agent, {
    catalog: agents.catalog,
    lookUpLater: o.inputFormat === 'stream-json',
    modelFlag: o.model !== undefined,
    defaultModel: config.defaultModel,
    systemParts,
    settings,
    tools: tools.tools,
  });
  const guards = startGuards(o, { cwd, env, start, channel, loaded, mcp, emit });
  hooks.set(guards.hooks);
  // The environment block and persistent memory, read once (src/prompt/sessionPrompt.ts).
  Object.assign(systemParts, setupSessionPrompt({ cwd, env, files: loaded.files, permissions: guards.permissions }));
  // A host hears each change of permission mode (set_permission_mode, leaving plan mode, a setMode update).
  guards.permissions.onModeChange((mode) => {
    void emit({ type: 'notice', notice: { subtype: 'status', status: null, permissionMode: mode } });
  });
  // Memory files (CLAUDE.md …) of the sources the settings use; read once, so every request of
  // the session sends the same bytes.
  const memoryFiles = await loadMemoryFiles({ cwd, env, sources: config.sources, addDirs: o.addDir });
  systemParts.memory = formatMemory(memoryFiles);
  const slash = await setupSessionCommands({
    config,
    projectRoot: config.projectRoot,
    env,
    tools: tools.tools,
    permissions: guards.permissions,
    settings,
    runner,
    controls,
  });
  // Skills and the MCP servers' prompts are slash commands too.
  slash.addSource(skillCommands(() => tools.skills.enabled()));
  slash.addSource(mcpPromptCommands(() => mcp.prompts()));
  const peers = startPeers({
    env,
    sessionId,
    cwd,
    teammate: io.teammate !== undefined,
    permissions: guards.permissions,
  });
  const { services, planMode, worktrees, turn, checkpoints } = await startToolServices({
    teammate: io.teammate?.services,
    peers,
    base,
    settings,
    host,
    guards,
    agents,
  });
  const plugins = startSessionPlugins({
    strictMcpConfig: o.strictMcpConfig,
    ...{ tools, slash, agents, settings },
    guards,
    mcp,
    policy,
  });
  const sessionHooks = turnHooks.set(
    runnerHooks({
      ...{ io, env, config, host, promptTool: o.permissionPromptTool, transcript, systemParts, settings, services },
      ...{ agents, guards, planMode, tools, mcp, slash, plugins, mainAgent, turn, controls, telemetry },
      callModel: telemetry.callModel,
      api: base.api,
      peers,
    }),
  );
  const sessionRunner = runner.set(new SessionRunner(settings, sessionHooks, emit));
  // A resumed session's conversation, before the first prompt.
  for (const m of start.history) sessionRunner.history.push(m);
  const sessionControls = controls.set(
    setupSessionControls({
      env,
      cwd,
      checkpoints,
      tools: () => tools.tools.list(),
      permissions: () => guards.permissions,
      runner: () => sessionRunner,
      systemPrompt: () => buildSystemPrompt(systemParts),
      memoryText: () => systemParts.memory ?? '',
      memoryFiles,
      agents: () => agents.catalog.all(),
    }),
  );
  events.setBefore((ev) => sessionControls.before(ev));
  bindControls({
    ...{ o, env, writer, config, api: base.api, loaded, host, channel, transcript, systemParts, settings, tools },
    ...{ mcp, policy },
    ...{ agents, guards, slash, outputStyles, plugins, mainAgent, runner: sessionRunner, controls: sessionControls },
  });

  return sessionHandle({
    ...{ runner: sessionRunner, writer, channel, settings, defaultModel: config.defaultModel, emit, start },
    ...{ tools, slash, guards, agents, mcp, telemetry, peers, worktrees },
  });
}

/** Subagents, background tasks and the team (agentSetup.ts), with the plugins' agents. */
async function startAgents(
  o: CliOptions,
  p: {
    base: SessionBase;
    tools: SessionTools;
    settings: SessionSettings;
    host: HostSetup;
    emit: SessionEvents['emit'];
    answerTeammateQuestions: TeammateQuestionAnswerer;
  },
): Promise<AgentSetup> {
  const { sessionId } = p.base.start;
  let agents: AgentSetup;
  try {
    // A lead's teammate mode: the flag, else the teammateMode setting (tmux outside tmux stops the
    // start). A teammate process starts no teammates: its mode only says how it was started.
    const fromSettings = o.teammateMode === undefined ? p.base.loaded.settings.teammateMode : undefined;
    const mode = o.agentName === undefined ? (o.teammateMode ?? fromSettings) : undefined;
    const backend = teammateBackend(mode, process.env, fromSettings ? 'the teammateMode setting' : '--teammate-mode');
    const processTeammates = backend === 'in-process' ? undefined : teammateLaunch(backend, o, process.env);
    agents = await setupAgents({
      sessionId,
      cwd: p.base.config.cwd,
      tools: () => p.tools.tools.list(),
      emit: p.emit,
      agentsFlag: o.agents,
      sources: p.base.config.sources,
      defaultModel: p.base.config.defaultModel,
      projectRoot: p.base.config.projectRoot,
      sessionFolder: p.base.sessionFolder,
      version: VERSION,
      mirror: p.base.mirror,
      progressSummaries: () => p.host.progressSummaries,
      subagentAppend: () => p.host.subagentAppend,
      ...(processTeammates ? { processTeammates } : {}),
      // A stream-json host gets a subagent's text only when it asks (the SDK's default is off);
      // the terminal and text output show it.
      forwardSubagentText: () => o.outputFormat !== 'stream-json' || p.host.forwardSubagentText === true,
      answerTeammateQuestions: p.answerTeammateQuestions,
    });
  } catch (err) {
    throw new StartupError((err as Error).message, 2);
  }
  agents.catalog.set(
    'plugin',
    p.tools.plugins.list().flatMap((plugin) => plugin.agents),
  );
  p.settings.agents = agents.catalog.names();
  return agents;
}

/** The runner's settings: the configuration's values, and what changes while the session runs. */
function sessionSettings(config: SessionConfig, sessionId: string, tools: SessionTools): SessionSettings {
  return {
    sessionId,
    cwd: config.cwd,
    model: config.defaultModel,
    fallbackModel: config.fallbackModel,
    maxTurns: config.maxTurns,
    maxBudgetUsd: config.maxBudgetUsd,
    thinking: config.thinking,
    maxThinkingTokens: config.maxThinkingTokens,
    effort: config.effort,
    maxOutputTokens: config.maxOutputTokens,
    betas: config.betas,
    taskBudget: config.taskBudget,
    includePartialMessages: config.includePartialMessages,
    tools: () => tools.tools.list(),
    toolSearch: config.toolSearch,
    structuredOutputTool: tools.structuredOutputTool,
    mcpServers: [],
    agents: [],
    apiKeySource: config.apiKeySource,
    version: VERSION,
  };
}
