// The session factory: CLI options → one wired session (settings, tools, agents, guards, the
// runner, the control handlers, the sandbox, exit handlers). It reads no input and picks no
// output: the mode (src/modes/) gives it where messages go and drives it.
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinTools } from '../../tools/registry.js';
import type { Tool, ToolServices } from '../../tools/tool.js';
import { ToolSet } from '../../tools/toolSet.js';
import { createStructuredOutputTool } from '../../tools/structuredOutput.js';
import { makeSkillTool } from '../../tools/skill.js';
import { ControlChannel } from '../control/channel.js';
import { registerControlHandlers } from '../control/handlers.js';
import type { InitializeTarget } from '../control/initializeHandler.js';
import { registerTaskControlHandlers } from '../control/taskHandlers.js';
import { registerSettingsControlHandlers, savedEffort } from '../control/settingsHandlers.js';
import { registerMcpControlHandlers } from '../control/mcpHandlers.js';
import { settingsPaths } from '../settings/load.js';
import { EFFORT_LEVELS, type EffortLevel } from '../loop/pricing.js';
import type { StdoutWriter } from '../protocol/writer.js';
import type { CliOptions } from '../options.js';
import { VERSION, parseDuration } from '../options.js';
import { modelChoices, resolveModel } from '../loop/models.js';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import { SessionRunner, type SessionSettings } from '../session/runner.js';
import { suggestionsWanted } from '../session/promptSuggestion.js';
import { buildSystemPrompt, type SystemPromptParts } from '../prompt/systemPrompt.js';
import { formatMemory, loadMemoryFiles } from '../settings/memory.js';
import { setupCommands } from '../commands/setup.js';
import { SkillCatalog } from '../skills/catalog.js';
import { PluginSet } from '../plugins/pluginSet.js';
import { PluginError } from '../plugins/manifest.js';
import {
  applyPlugins,
  pluginInfo,
  registerPluginControlHandlers,
  specsFromConfigs,
  type PluginTargets,
} from '../plugins/session.js';
import { loadSessionSettings, parseSources, setupGuards, StartupError, type Guards } from '../session/guards.js';
import { applySettingsEnv, type LoadedSettings } from '../settings/index.js';
import { ResumeError, startSession, type SessionStart } from '../session/resume.js';
import { toWire, type WireLine } from '../session/wire.js';
import { isMainThread, type SessionEvent } from '../session/events.js';
import { sessionDir } from '../transcript/transcript.js';
import { setupSessionControls, type SessionControls } from '../session/sessionControls.js';
import { setupAgents } from '../agents/setup.js';
import { agentAllowsTool, findMainAgent } from '../agents/mainAgent.js';
import type { AgentDef } from '../agents/definitions.js';
import { SessionMcp } from '../mcp/sessionMcp.js';
import { parseServer } from '../mcp/config.js';
import { withPolicy } from '../mcp/sources.js';
import type { McpPolicy } from '../mcp/policy.js';
import { isMcpPromptTool, mcpPermissionPrompt } from '../mcp/permissionPromptTool.js';
import { parseRule } from '../permissions/rules.js';
import { createPlanModeService } from '../session/planMode.js';
import { createWorktreeSession } from '../worktrees/session.js';
import { mergeSandboxSettings, SandboxStartupError, sessionLimits, setupSandbox } from '../sandbox/index.js';
import { installExitHandlers } from './exitHandlers.js';
import { modelClientFor } from './modelClient.js';
import { setupNetworkAndAuth } from './networkAndAuth.js';
import { writeRefusedResume } from './refusedResume.js';
import { selectTools } from './selectTools.js';
import { setupOutputStyles } from './outputStyles.js';
import { parseToolSearchSetting, type ToolSearchSetting } from '../loop/deferredTools.js';

const DEFAULT_MODEL = 'claude-sonnet-5-5';
/** How long a host may take to answer an MCP server's question (the server's own deadline usually comes first). */
const ELICITATION_TIMEOUT_MS = 10 * 60_000;

/** What the mode gives the session. */
export interface SessionIO {
  writer: StdoutWriter;
  /**
   * Where the session's events go: protocol lines, a result collector, the terminal. `line` is the
   * event's protocol line (null for one a host does not see in this mode).
   */
  output: (event: SessionEvent, line: WireLine | null) => Promise<void>;
  /** A person at a terminal: partial messages always on (the text is drawn as it streams). */
  interactive?: boolean;
  /** Permission questions asked here instead of the host (the terminal). */
  askHost?: (req: AskHostRequest, signal: AbortSignal) => Promise<AskHostAnswer>;
  /** Where an error result's reason is told (default: stderr). */
  reportError?: (text: string) => void;
  /** A teammate process (src/modes/teammate.ts): its extra tools, and the team its tools reach. */
  teammate?: { tools: Tool[]; services: Pick<ToolServices, 'team' | 'teamMember' | 'taskList'> };
}

export interface Session {
  runner: SessionRunner;
  channel: ControlChannel;
  settings: SessionSettings;
  /** Tells one event the way the session's own go (transcript, output). */
  emit: (event: SessionEvent) => Promise<void>;
  permissionMode(): string;
  /** After the input has ended and the runner is done: SessionEnd hooks, MCP servers closed. */
  close(reason: 'prompt_input_exit' | 'other'): Promise<void>;
}

/** Throws StartupError (message, exit code) when the session cannot start. */
export async function createSession(o: CliOptions, io: SessionIO): Promise<Session> {
  const { writer } = io;
  const cwd = process.cwd();
  const env = process.env;
  /** A startup failure that exits with `code` after its message on stderr. */
  const fail = (code: number, message: string) => new StartupError(message, code);
  let loadedSettings: LoadedSettings;
  try {
    loadedSettings = loadSessionSettings(o, cwd, env);
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw fail(1, (err as Error).message);
  }
  // Before anything reads the environment or starts a child.
  applySettingsEnv(loadedSettings.settings, env);
  // Proxies, client certificates and credential commands, before the first connection.
  const network = await setupNetworkAndAuth(loadedSettings.settings, env).catch((err: Error) => {
    throw fail(1, err.message);
  });
  let start: SessionStart;
  try {
    start = await startSession(o, env, cwd, { version: VERSION });
  } catch (err) {
    if (!(err instanceof ResumeError)) throw err;
    process.stderr.write(`agent: ${err.message}\n`);
    if (err.asResult) await writeRefusedResume(err.message, o, writer);
    throw new StartupError('', 1);
  }
  const { sessionId, transcript } = start;
  const sessionFolder = transcript ? sessionDir(env, cwd, sessionId) : undefined;

  // The main transcript keeps the main conversation's lines; a subagent's go to its own transcript
  // under the session's folder.
  let controls: SessionControls | undefined;
  const deliver = (ev: SessionEvent) => {
    const line = toWire(ev, sessionId, settings.includePartialMessages);
    if (line && transcript && isMainThread(ev)) transcript.recordProtocolLine(line);
    return io.output(ev, line);
  };
  const emit = async (ev: SessionEvent) => {
    for (const extra of controls?.before(ev) ?? []) await deliver(extra);
    return deliver(ev);
  };
  if (transcript && o.name !== undefined && o.name.trim() !== '')
    transcript.appendMeta({ type: 'custom-title', customTitle: o.name.trim() });

  const callModel = await modelClientFor(o).catch((err: Error) => {
    throw fail(2, err.message);
  });

  // Plugins (--plugin-dir, --plugin-dir-no-mcp): a broken one stops the start, naming its file.
  const plugins = new PluginSet(cwd, (m) => process.stderr.write(`agent: ${m}\n`));
  try {
    await plugins.add([
      ...o.pluginDir.map((path) => ({ path })),
      ...o.pluginDirNoMcp.map((path) => ({ path, skipMcp: true })),
    ]);
  } catch (err) {
    if (!(err instanceof PluginError)) throw err;
    throw fail(2, err.message);
  }
  // Skills of the setting sources and the plugins: the Skill tool is offered when there is at least one.
  const skills = new SkillCatalog({
    cwd,
    projectRoot: o.projectConfigRoot,
    env,
    sources: parseSources(o.settingSources),
  });
  let pluginSkills = plugins.list().flatMap((p) => p.skills);
  skills.setPluginSkills(() => pluginSkills);
  const skillToolOf = () => makeSkillTool(() => skills.enabled());
  const skillTool = (await skills.reload()).length ? [skillToolOf()] : [];
  // --tools / --disallowedTools decide whether Skill may be offered when skills appear later.
  const skillToolAllowed =
    (o.tools === undefined || o.tools === 'default' || o.tools.split(/[ ,]+/).includes('Skill')) &&
    !o.disallowedTools.includes('Skill');
  let builtin: Tool[];
  try {
    builtin = selectTools(
      [
        ...builtinTools({ agentTeams: isTruthy(env.CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS), env }),
        ...skillTool,
        ...(io.teammate?.tools ?? []),
      ],
      o,
    );
  } catch (err) {
    throw fail(2, (err as Error).message);
  }
  const tools = new ToolSet(builtin);
  let toolSearch: ToolSearchSetting;
  try {
    toolSearch = parseToolSearchSetting(env.ENABLE_TOOL_SEARCH);
  } catch (err) {
    throw fail(2, (err as Error).message);
  }
  let structuredOutputTool: Tool | undefined;
  try {
    if (o.jsonSchema !== undefined) structuredOutputTool = createStructuredOutputTool(o.jsonSchema);
  } catch (err) {
    throw fail(2, `--json-schema: ${(err as Error).message}`);
  }
  const channel = new ControlChannel((m) => writer.send(m));
  const promptTool = o.permissionPromptTool;
  const hooksFor =
    (event: 'Elicitation' | 'ElicitationResult') =>
    async (fields: object & { mcp_server_name: string }, signal: AbortSignal) => {
      if (!guards.hooks.has(event)) return undefined;
      return (await guards.hooks.run(event, fields, { matchValue: fields.mcp_server_name, signal })).elicitation;
    };
  const mcp = new SessionMcp({
    // Elicitation: hooks first, then the host (stream-json only); nobody else can answer.
    elicitation: {
      hook: hooksFor('Elicitation'),
      resultHook: hooksFor('ElicitationResult'),
      ...(o.inputFormat === 'stream-json' && o.permissionPrompts !== 'none'
        ? {
            askHost: (payload, signal) =>
              channel.request('elicitation', payload, { timeoutMs: ELICITATION_TIMEOUT_MS, signal }),
          }
        : {}),
      unanswered: o.permissionPrompts === 'none' ? 'cancel' : 'decline',
      log: (line) => process.stderr.write(`${line}\n`),
    },
    onElicitationComplete: (server, id) =>
      void emit({ type: 'notice', notice: { subtype: 'elicitation_complete', serverName: server, elicitationId: id } }),
    cwd,
    env,
    clientVersion: VERSION,
    log: (line) => process.stderr.write(`${line}\n`),
    disallowedTools: o.disallowedTools,
    promptTool,
  });
  // Servers of --mcp-config, the settings files and .mcp.json (src/mcp/sources.ts).
  let policy: McpPolicy | undefined;
  {
    const { parseMcpConfigs, McpConfigError } = await import('../mcp/config.js');
    const { gatherMcpServers } = await import('../mcp/sources.js');
    try {
      const found = gatherMcpServers({
        projectRoot: o.projectConfigRoot ? resolve(cwd, o.projectConfigRoot) : cwd,
        sources: parseSources(o.settingSources),
        files: loadedSettings.files,
        flagServers: o.mcpConfig.length ? parseMcpConfigs(o.mcpConfig, cwd) : new Map(),
        strict: o.strictMcpConfig,
        env,
      });
      for (const w of found.warnings) process.stderr.write(`agent: ${w}\n`);
      policy = found.policy;
      const groups = found.groups.filter((g) => [...g.configs.values()].some((c) => c.type !== 'sdk'));
      if (groups.length) mcp.connectConfigured(groups);
    } catch (err) {
      if (!(err instanceof McpConfigError)) throw err;
      // A bad flag is a usage error (2); a broken file is a broken configuration (1).
      throw fail(err.message.startsWith('--mcp-config') ? 2 : 1, err.message);
    }
  }
  const systemParts: SystemPromptParts = {
    cwd,
    custom: o.systemPrompt,
    append: o.appendSystemPrompt ? [o.appendSystemPrompt] : [],
  };
  const startModel = resolveModel(o.model ?? env.ANTHROPIC_MODEL ?? DEFAULT_MODEL);
  const settings: SessionSettings = {
    sessionId,
    cwd,
    model: startModel,
    fallbackModel: o.fallbackModel ? resolveModel(o.fallbackModel) : undefined,
    maxTurns: o.maxTurns,
    maxBudgetUsd: o.maxBudgetUsd,
    thinking: o.thinking,
    maxThinkingTokens: o.maxThinkingTokens,
    effort: o.effort ?? savedEffortFor(loadedSettings.settings, startModel),
    maxOutputTokens: Number(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS) || undefined,
    betas: o.betas.length ? o.betas : undefined,
    taskBudget: o.taskBudget,
    includePartialMessages: o.includePartialMessages || io.interactive === true,
    tools: () => tools.list(),
    toolSearch,
    structuredOutputTool,
    mcpServers: [],
    agents: [],
    apiKeySource: network.apiKeySource,
    version: VERSION,
  };
  const outputStyles = await setupOutputStyles(o, loadedSettings, {
    cwd,
    env,
    systemParts,
    onChange: (name) => (settings.outputStyle = name),
  });

  let agents: Awaited<ReturnType<typeof setupAgents>>;
  let progressSummaries = false;
  let promptSuggestions = false;
  let perTaskStopAffordance: boolean | undefined;
  try {
    agents = await setupAgents({
      sessionId,
      cwd,
      tools: () => tools.list(),
      emit,
      agentsFlag: o.agents,
      settingSources: o.settingSources,
      projectRoot: o.projectConfigRoot,
      sessionSpent: () => runner.spentSoFar(),
      sessionFolder,
      version: VERSION,
      progressSummaries: () => progressSummaries,
    });
  } catch (err) {
    throw fail(2, (err as Error).message);
  }
  agents.catalog.set(
    'plugin',
    plugins.list().flatMap((p) => p.agents),
  );
  settings.agents = agents.catalog.names();
  // --agent: the host's agents come in initialize, so a stream-json session looks the name up then.
  let mainAgent: AgentDef | undefined;
  const lookupMainAgent = (name: string) => findMainAgent(name, (n) => agents.catalog.get(n), agents.catalog.names());
  if (o.agent !== undefined && o.inputFormat !== 'stream-json') {
    try {
      lookupMainAgent(o.agent);
    } catch (err) {
      throw fail(2, (err as Error).message);
    }
  }
  /** Before the first run: the agent's prompt and model, and its tools narrow the offered ones. */
  const applyMainAgent = () => {
    if (o.agent === undefined || mainAgent) return;
    const def = (mainAgent = lookupMainAgent(o.agent));
    // The host's or --system-prompt's own text wins; an empty one (what the SDK sends by default) does not.
    const custom = systemParts.custom;
    if (custom === undefined || custom === '' || (Array.isArray(custom) && custom.join('') === ''))
      systemParts.custom = def.prompt;
    if (o.model === undefined && def.model !== undefined && def.model !== 'inherit')
      settings.model = resolveModel(def.model);
    tools.narrow((t) => agentAllowsTool(def, t.name));
  };

  let guards: Guards;
  try {
    guards = setupGuards(o, {
      cwd,
      env,
      sessionId,
      transcriptPath: transcript?.path ?? '',
      startSource: start.source,
      channel,
      loaded: loadedSettings,
      askMcpTool:
        promptTool && isMcpPromptTool(promptTool)
          ? mcpPermissionPrompt(promptTool, (args, signal) => mcp.callByName(promptTool, args, signal))
          : undefined,
      // As the SDK documents: SessionStart (and Setup) hook runs are reported even without the flag.
      onHookEvent: (subtype, fields) => {
        if (o.includeHookEvents || fields.hook_event === 'SessionStart' || fields.hook_event === 'Setup')
          void emit({ type: 'notice', notice: { subtype, fields } });
      },
      onSystemMessage: (message) => {
        process.stderr.write(`agent: hook: ${message}\n`);
        void emit({ type: 'notice', notice: { subtype: 'hook_system_message', message } });
      },
    });
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw fail(1, (err as Error).message);
  }
  // Memory files (CLAUDE.md …) of the sources the settings use; read once, so every request of
  // the session sends the same bytes.
  const memoryFiles = await loadMemoryFiles({ cwd, env, sources: parseSources(o.settingSources), addDirs: o.addDir });
  systemParts.memory = formatMemory(memoryFiles);
  const resetModel = (model: string | undefined) =>
    resolveModel(model && model !== 'default' ? model : (o.model ?? DEFAULT_MODEL));
  const slash = await setupCommands({
    cwd,
    projectRoot: o.projectConfigRoot,
    env,
    sources: parseSources(o.settingSources),
    tools: () => tools.list(),
    permissions: () => guards.permissions,
    session: {
      clear: () => {
        runner.history.length = 0;
        runner.readFiles.clear();
      },
      costText: () => `Total cost: $${runner.spentSoFar().toFixed(4)}`,
      contextText: () => {
        if (!controls) return 'Context usage is not available in this session';
        const u = controls.contextUsage('summary');
        const n = (x: number) => x.toLocaleString('en-US');
        return [
          `Context usage · ${u.model}: ${n(u.totalTokens)} / ${n(u.maxTokens)} tokens (${u.percentage}%)`,
          ...u.categories.map((c) => `  ${c.name}: ${n(c.tokens)}`),
        ].join('\n');
      },
      model: (name) => {
        if (name) settings.model = resetModel(name);
        return settings.model;
      },
    },
  });
  let planModeInstructions: string | undefined;
  let toolAliases: Record<string, string> | undefined;
  const planMode = createPlanModeService(guards.permissions, () => planModeInstructions);
  // Set on the shared services object (not a copy): the sandbox is added to it later.
  agents.services.planMode = planMode;
  // EnterWorktree / ExitWorktree move the session: tool contexts read settings.cwd per call.
  const worktrees = createWorktreeSession({
    cwd: () => settings.cwd,
    moveTo: (dir) => {
      settings.cwd = dir;
      guards.permissions.moveTo(dir);
    },
  });
  agents.services.worktrees = worktrees;
  if (io.teammate) Object.assign(agents.services, io.teammate.services);
  const runner = new SessionRunner(
    settings,
    {
      systemPrompt: () => buildSystemPrompt(systemParts),
      services: agents.services,
      background: agents.background,
      team: agents.team,
      teammateTimeoutMs: teammateTimeout(o),
      pipeline: () => ({
        tools: tools.list(),
        ...guards.pipeline,
        toolAliases: () => toolAliases,
        ...(io.askHost && !promptTool ? { askHost: io.askHost } : {}),
      }),
      beforePrompt: async (prompt, signal, uuid) => {
        const id =
          transcript?.appendMessage({ type: 'user', uuid, message: { role: 'user', content: prompt } }) ??
          uuid ??
          randomUUID();
        controls?.onPrompt(id);
        const gate = await guards.beforePrompt(prompt, signal);
        // Each prompt in plan mode reminds the model of it (the mode may have changed since the last).
        if (gate.blockReason === undefined && guards.permissions.mode === 'plan')
          gate.additionalContext = [...(gate.additionalContext ?? []), planMode.reminder()];
        return gate;
      },
      stopHook: (active, signal) => guards.stopHook(active, signal),
      permissionMode: () => guards.permissions.mode,
      promptSuggestions: () =>
        suggestionsWanted(
          promptSuggestions,
          (loadedSettings.settings as { promptSuggestionEnabled?: unknown }).promptSuggestionEnabled !== false,
          env,
        ),
      beforeRun: async () => {
        await pluginsReady;
        const synced = await mcp.sync(tools);
        if (synced) settings.mcpServers = synced.statuses;
        applyMainAgent();
      },
      callModel,
      slashCommand: async (text) => {
        const out = await slash.run(text);
        if (out?.kind !== 'prompt') return out;
        for (const r of out.allowedTools) {
          try {
            parseRule(r);
          } catch (err) {
            return {
              kind: 'local',
              text: `${text.split(/\s/)[0]}: allowed-tools: ${(err as Error).message}`,
              isError: true,
            };
          }
        }
        return out.model ? { ...out, model: resolveModel(out.model) } : out;
      },
      allowForTurn: (rules) => {
        const allow = guards.permissions.rules.allow;
        const entries = rules.map((r) => guards.permissions.compile(parseRule(r)));
        allow.push(...entries);
        guards.permissions.changed();
        return () => {
          for (const e of entries) allow.splice(allow.indexOf(e), 1);
          guards.permissions.changed();
        };
      },
      slashCommandNames: () => slash.names(),
      skillNames: () => (tools.has('Skill') ? skills.enabled().map((sk) => sk.name) : []),
      plugins: () => pluginInfo(plugins.list()).map(({ name, path }) => ({ name, path })),
      ...(io.reportError ? { reportError: io.reportError } : {}),
    },
    emit,
  );
  // A skill the model loads: its allowed-tools and model for the rest of the turn (tools/skill.ts).
  agents.services.skills = {
    activate: ({ name, allowedTools, model }) => {
      for (const r of allowedTools) {
        try {
          parseRule(r);
        } catch (err) {
          throw new Error(
            `its allowed-tools entry "${r}" is not a permission rule: ${(err as Error).message} (fix the SKILL.md front matter of ${name})`,
          );
        }
      }
      const resolved = model ? resolveModel(model) : undefined;
      if (!runner.applyForTurn(allowedTools, resolved)) throw new Error('no turn is running');
      return { allowedTools, ...(resolved ? { model: resolved } : {}) };
    },
  };
  // The sandbox (sandbox.enabled): checked for real before any prompt runs; never a silent "on".
  try {
    const sandbox = await setupSandbox({
      settings: mergeSandboxSettings(
        guards.settingsFiles,
        cwd,
        env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude'),
      ),
      rules: guards.rules,
      cwd,
      workingDirs: guards.permissions.workingDirs.map((d) => d.real),
      scratchDir: runner.scratchDir,
      warn: (m) => process.stderr.write(`agent: ${m}\n`),
    });
    if (sandbox) {
      guards.permissions.sandbox = sandbox;
      agents.services.sandbox = sandbox;
      settings.sandbox = sandbox.status;
      // Rules and directories change mid-session (updatedPermissions, "always", apply_flag_settings, a worktree).
      guards.permissions.onChange(() => sandbox.follow(sessionLimits(guards.permissions)));
    }
  } catch (err) {
    if (!(err instanceof SandboxStartupError)) throw err;
    throw fail(1, err.message);
  }
  // A resumed session's conversation, before the first prompt.
  for (const m of start.history) runner.history.push(m);
  controls = setupSessionControls({
    env,
    cwd,
    sessionId,
    sessionFolder,
    channel,
    services: agents.services,
    tools: () => tools.list(),
    permissions: () => guards.permissions,
    runner: () => runner,
    systemPrompt: () => buildSystemPrompt(systemParts),
    memoryText: () => systemParts.memory ?? '',
    memoryFiles,
    agents: () => agents.catalog.all(),
    transcript,
    restoredCheckpoints: start.checkpoints,
  });

  /** Skills appeared or changed (reload_skills, a plugin): offer the Skill tool unless --tools left it out; its description lists them. */
  const skillsChanged = () => {
    if (skillToolAllowed && skills.enabled().length && !tools.has('Skill')) tools.add(skillToolOf());
    else tools.refresh();
  };
  const agentInfos = () =>
    agents.catalog
      .all()
      .map((d) => ({ name: d.name, description: d.description, ...(d.model ? { model: d.model } : {}) }));
  const pluginTargets: PluginTargets = {
    setCommands: (commands) => slash.setPluginCommands(commands),
    setAgents: (defs) => {
      agents.catalog.set('plugin', defs);
      settings.agents = agents.catalog.names();
    },
    setSkills: async (list) => {
      pluginSkills = list;
      await skills.reload();
      skillsChanged();
    },
    setHooks: (list) => guards.hooks.setPluginHooks(list),
    setMcpServers: async (servers) => {
      // --strict-mcp-config: only its own servers run; the plugins' are left out, and said so.
      if (o.strictMcpConfig && servers.size) {
        process.stderr.write(
          `agent: --strict-mcp-config: the plugins' MCP servers are not started: ${[...servers.keys()].join(', ')}\n`,
        );
        servers = new Map();
      }
      // The policy lists hold for plugin servers too.
      await mcp.setPluginServers(
        new Map([...servers].map(([name, config]) => [name, withPolicy(policy!, name, config, 'plugin')])),
      );
    },
    mcpServerNames: () => mcp.pluginServerNames(),
  };
  // Applied in the background (plugin MCP servers connect meanwhile); every run waits for it.
  let pluginsReady: Promise<void> = plugins.list().length
    ? applyPlugins(plugins.list(), pluginTargets)
    : Promise.resolve();
  let initialized = false;

  const initialize: InitializeTarget = {
    connectInitializeMcp: (servers) => {
      // Every config is checked before any starts; a bad one is an error answer, which ends the SDK's session.
      const configs = new Map(
        Object.entries(servers).map(([name, config]) => [
          name,
          withPolicy(policy!, name, parseServer(name, config, 'initialize: mcpServers'), 'dynamic'),
        ]),
      );
      mcp.connectConfigured([{ scope: 'dynamic', configs }]);
    },
    connectHostMcp: (names) =>
      mcp.connectHost(names, (subtype, payload, opts) => channel.request(subtype, payload, opts)),
    setJsonSchema: (schema) => {
      settings.structuredOutputTool = createStructuredOutputTool(schema);
    },
    setHostHooks: (hooks) => guards.setHostHooks(hooks),
    selectSkills: (selection) => {
      skills.select(selection);
      // The host asked for these skills: the Skill tool comes with them even if --tools left it out.
      if (skills.enabled().length && !tools.has('Skill')) tools.add(skillToolOf());
      else tools.refresh();
    },
    loadPlugins: (configs) => {
      const first = !initialized;
      initialized = true;
      if (!first) return undefined;
      const loading = pluginsReady.then(async () => {
        await plugins.add(specsFromConfigs(configs));
        await applyPlugins(plugins.list(), pluginTargets);
      });
      pluginsReady = loading.catch(() => {});
      return loading;
    },
    pluginsLoaded: (configs) => configs.every((c) => plugins.has(c.path)),
    setPlanModeInstructions: (text) => {
      planModeInstructions = text;
    },
    setToolAliases: (aliases) => {
      toolAliases = aliases;
    },
    setProgressSummaries: (on) => {
      progressSummaries = on;
    },
    setPromptSuggestions: (on) => {
      promptSuggestions = on;
    },
    setPerTaskStopAffordance: (on) => {
      perTaskStopAffordance ??= on;
      runner.spareAgentsOnInterrupt = perTaskStopAffordance;
    },
    // An array keeps its items: the dynamic-boundary marker splits it (systemPrompt.ts).
    setSystemPrompt: (prompt) => {
      systemParts.custom = prompt;
    },
    appendSystemPrompt: (text) => systemParts.append.push(text),
    setTitle: (title) => transcript?.appendMeta({ type: 'custom-title', customTitle: title }),
    setSdkAgents: (defs) => {
      agents.setSdkAgents(defs);
      settings.agents = agents.catalog.names();
    },
    checkMainAgent: () => {
      if (o.agent !== undefined) lookupMainAgent(o.agent);
    },
    exitAfterAnswer: (message) => {
      process.stderr.write(`agent: ${message}\n`);
      setImmediate(() => void writer.flush(1000).then(() => process.exit(2)));
    },
    answer: () => {
      // A later initialize loads no plugins (the reference's rule).
      initialized = true;
      return {
        commands: slash.list(),
        output_style: outputStyles.catalog.current,
        available_output_styles: outputStyles.catalog.names(),
        agents: agentInfos(),
        models: modelChoices(settings.model),
        account: { apiKeySource: settings.apiKeySource, apiProvider: network.apiProvider },
      };
    },
  };
  registerControlHandlers(channel, {
    initialize,
    interrupt: () => void runner.interrupt(),
    setModel: (model) => {
      settings.model = resetModel(model);
    },
    setPermissionMode: (mode) => {
      guards.permissions.setMode(mode);
    },
    setMaxThinkingTokens: (tokens) => {
      settings.maxThinkingTokens = tokens ?? undefined;
      // A budget turns thinking back on in a session started with --thinking disabled.
      if (tokens && settings.thinking === 'disabled') settings.thinking = undefined;
    },
    mcpStatus: async () => ({ mcpServers: await mcp.details() }),
  });

  registerTaskControlHandlers(channel, agents.registry, agents.foreground);
  // reload_output_styles: the style folders read again; the answer lists every style there is now.
  channel.on('reload_output_styles', async () => {
    const names = await outputStyles.catalog.reload();
    outputStyles.use(outputStyles.catalog.current);
    return { available_output_styles: names };
  });
  // reload_skills: the skill folders read again (plugin skills as last loaded); the answer lists
  // what is now enabled, and the next turn offers them (the Skill tool too, if it was not offered).
  channel.on('reload_skills', async () => {
    const list = await skills.reload();
    skillsChanged();
    return {
      skills: list.map((sk) => ({
        name: sk.name,
        description: `${sk.description} (${sk.source === 'plugin' ? `plugin:${sk.name.split(':')[0]}` : sk.source})`,
        argumentHint: '',
      })),
    };
  });
  registerPluginControlHandlers(channel, plugins, pluginTargets, {
    commands: () => slash.list(),
    agents: agentInfos,
    mcpServers: () => mcp.details(),
    hasHistory: () => runner.history.length > 0,
    busy: () => runner.running || runner.pending > 0,
    warn: (m) => process.stderr.write(`agent: ${m}\n`),
  });
  const settingsRoot = o.projectConfigRoot ? resolve(cwd, o.projectConfigRoot) : cwd;
  registerSettingsControlHandlers(channel, {
    reload: (flagLayer) => loadSessionSettings(o, cwd, env, flagLayer),
    initial: loadedSettings,
    permissions: guards.permissions,
    cliRules: { allow: o.allowedTools, deny: o.disallowedTools, dirs: o.addDir },
    setModel: (model) => {
      settings.model = resolveModel(model ?? o.model ?? env.ANTHROPIC_MODEL ?? DEFAULT_MODEL);
    },
    currentModel: () => settings.model,
    sources: parseSources(o.settingSources),
    paths: settingsPaths(settingsRoot, env),
    outputStyles: { names: () => outputStyles.catalog.names(), use: outputStyles.use },
  });
  registerMcpControlHandlers(channel, {
    manager: () => mcp.manager(),
    parseServer: async (name, config) => {
      const { parseServer } = await import('../mcp/config.js');
      return withPolicy(policy!, name, parseServer(name, config, 'mcp_set_servers'), 'dynamic');
    },
    hostRequest: (subtype, payload, opts) => channel.request(subtype, payload, opts),
    askedServers: () => guards.permissions.mcpServersAsked,
    knownServers: () => mcp.names(),
  });

  const exitOn = installExitHandlers(
    runner,
    writer,
    () => agents.registry.stopAll(),
    () => mcp.killAll(),
  );
  return {
    runner,
    channel,
    settings,
    emit,
    permissionMode: () => guards.permissions.mode,
    async close(reason) {
      exitOn.dispose();
      await guards.sessionEnd(reason);
      const kept = await worktrees.close();
      if (kept) process.stderr.write(`agent: ${kept}\n`);
      await mcp.closeAll();
    },
  };
}

/** --teammate-timeout, else AGENT_TEAMMATE_TIMEOUT_MS (a bad value is told and the default used). */
function teammateTimeout(o: CliOptions): number | undefined {
  if (o.teammateTimeoutMs !== undefined) return o.teammateTimeoutMs;
  const env = process.env.AGENT_TEAMMATE_TIMEOUT_MS;
  if (env === undefined || env === '') return undefined;
  const ms = parseDuration(env);
  if (ms === undefined)
    process.stderr.write(
      `agent: AGENT_TEAMMATE_TIMEOUT_MS="${env}" is not a duration; the default (10 minutes) is used\n`,
    );
  return ms;
}

function isTruthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The default effort update_settings saved for this model, when valid. */
function savedEffortFor(loaded: LoadedSettings['settings'], model: string): EffortLevel | undefined {
  const level = savedEffort(loaded, model);
  return level !== undefined && (EFFORT_LEVELS as readonly string[]).includes(level)
    ? (level as EffortLevel)
    : undefined;
}
