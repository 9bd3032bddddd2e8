// Wires one process: options → tools → session runner → input (stream-json lines or one text
// prompt) → output (stream-json, json or text) → exit code. Signals and a vanished host end the
// run cleanly: child process groups killed, a final result written where possible.
import { randomUUID } from 'node:crypto';
import { builtinTools } from '../tools/registry.js';
import { parseToolSearchSetting, type ToolSearchSetting } from './loop/deferredTools.js';
import type { Tool } from '../tools/tool.js';
import { createStructuredOutputTool } from '../tools/structuredOutput.js';
import { ControlChannel } from './control/channel.js';
import { registerControlHandlers } from './control/handlers.js';
import { registerTaskControlHandlers } from './control/taskHandlers.js';
import { registerSettingsControlHandlers, savedEffort } from './control/settingsHandlers.js';
import { settingsPaths } from './settings/load.js';
import { EFFORT_LEVELS, type EffortLevel } from './loop/pricing.js';
import { registerMcpControlHandlers } from './control/mcpHandlers.js';
import type { InitializeRequest } from './protocol/inbound.js';
import { StdoutWriter } from './protocol/writer.js';
import type { CliOptions } from './options.js';
import { VERSION, parseDuration } from './options.js';
import { modelChoices, resolveModel } from './loop/models.js';
import type { CallModel } from './loop/model.js';
import { streamModel } from './loop/modelClient.js';
import { SessionRunner, type SessionSettings } from './session/runner.js';
import { buildSystemPrompt, type SystemPromptParts } from './session/systemPrompt.js';
import { formatMemory, loadMemoryFiles } from './settings/memory.js';
import { consumeStreamJson } from './session/streamJsonInput.js';
import { killAllGroups } from './util/processGroup.js';
import { setupCommands } from './commands/setup.js';
import { SkillCatalog } from './skills/catalog.js';
import { makeSkillTool } from '../tools/skill.js';
import { loadSessionSettings, parseSources, setupGuards, StartupError, type Guards } from './session/guards.js';
import { applySettingsEnv, type LoadedSettings } from './settings/index.js';
import { OutputStyleCatalog } from './settings/outputStyles.js';
import { ResumeError, startSession, type SessionStart } from './session/resume.js';
import { envelope } from './session/wire.js';
import { sessionDir } from './session/transcript.js';
import { setupSessionControls, type SessionControls } from './session/sessionControls.js';
import { setupAgents } from './agents/setup.js';
import { findMainAgent, narrowTools } from './agents/mainAgent.js';
import type { AgentDef } from './agents/definitions.js';
import type { McpManager } from './mcp/manager.js';
import { ruleNamesTool, parseRule } from './permissions/rules.js';
import type { Terminal } from './session/terminal.js';
import { createPlanModeService } from './session/planMode.js';
import { mergeSandboxSettings, SandboxStartupError, setupSandbox } from './sandbox/index.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** `interactive`: a person at a terminal (src/session/terminal.ts), not a host reading protocol lines. */
export async function main(o: CliOptions, mode: { interactive?: boolean } = {}): Promise<number> {
  const writer = new StdoutWriter();
  // Loaded only for a person at a terminal: headless starts do not pay for readline.
  const term: Terminal | undefined = mode.interactive
    ? new (await import('./session/terminal.js')).Terminal({ color: !process.env.NO_COLOR })
    : undefined;
  if (!term) writer.guard();
  const streamJson = o.outputFormat === 'stream-json';
  const cwd = process.cwd();
  let loadedSettings: LoadedSettings;
  try {
    loadedSettings = loadSessionSettings(o, cwd, process.env);
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return err instanceof StartupError ? err.exitCode : 1;
  }
  // Before anything reads the environment or starts a child.
  applySettingsEnv(loadedSettings.settings, process.env);
  let start: SessionStart;
  try {
    start = await startSession(o, process.env, cwd, { version: VERSION });
  } catch (err) {
    if (!(err instanceof ResumeError)) throw err;
    process.stderr.write(`agent: ${err.message}\n`);
    // A refused resume is an error result the host can match on (resumeDropsTurn's contract).
    if (err.asResult && o.outputFormat !== 'text') {
      const result = {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        result: err.message,
        errors: [err.message],
        num_turns: 0,
        duration_ms: 0,
        duration_api_ms: 0,
        total_cost_usd: 0,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        modelUsage: {},
        permission_denials: [],
        stop_reason: null,
        ...envelope(o.sessionId ?? o.resume ?? randomUUID()),
      };
      if (o.outputFormat === 'stream-json') await writer.send(result);
      else await writer.sendRaw(JSON.stringify(result) + '\n');
      await writer.flush();
    }
    return 1;
  }
  const { sessionId, transcript } = start;
  const send = term ? (m: object) => term.show(m) : streamJson ? (m: object) => writer.send(m) : collectResult;
  // The main transcript keeps the main conversation; a subagent's lines (parent_tool_use_id set)
  // go to its own transcript under the session's folder.
  let controls: SessionControls | undefined;
  const record = (m: object) => {
    const line = m as Record<string, unknown>;
    if (transcript && (line.parent_tool_use_id === undefined || line.parent_tool_use_id === null)) transcript.recordProtocolLine(line);
    return send(m);
  };
  const emit = async (m: object) => {
    for (const extra of controls?.before(m as Record<string, unknown>) ?? []) await record(extra);
    return record(m);
  };
  if (transcript && o.name !== undefined && o.name.trim() !== '') transcript.appendMeta({ type: 'custom-title', customTitle: o.name.trim() });
  let lastResult: Record<string, unknown> | undefined;
  function collectResult(m: object): Promise<void> {
    if ((m as { type?: string }).type === 'result') lastResult = m as Record<string, unknown>;
    return Promise.resolve();
  }

  let callModel: CallModel | undefined;
  try {
    callModel = await modelClientFor(o);
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return 2;
  }

  // Skills of the setting sources: the Skill tool is offered when there is at least one.
  const skills = new SkillCatalog({ cwd, projectRoot: o.projectConfigRoot, env: process.env, sources: parseSources(o.settingSources) });
  const skillTool = (await skills.reload()).length ? [makeSkillTool(() => skills.enabled())] : [];
  let tools: Tool[];
  try {
    tools = selectTools([...builtinTools({ agentTeams: isTruthy(process.env.CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS), env: process.env }), ...skillTool], o);
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return 2;
  }
  let toolSearch: ToolSearchSetting;
  try {
    toolSearch = parseToolSearchSetting(process.env.ENABLE_TOOL_SEARCH);
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return 2;
  }
  let structuredOutputTool: Tool | undefined;
  try {
    if (o.jsonSchema !== undefined) structuredOutputTool = createStructuredOutputTool(o.jsonSchema);
  } catch (err) {
    process.stderr.write(`agent: --json-schema: ${(err as Error).message}\n`);
    return 2;
  }
  // MCP code loads only when a session has servers: most runs never pay for it.
  let mcpSetup: Promise<McpManager> | undefined;
  const createMcp = async () => {
    const { McpManager } = await import('./mcp/manager.js');
    return new McpManager({ cwd, env: process.env, clientVersion: VERSION, log: (line) => process.stderr.write(`${line}\n`) });
  };
  let mcp: McpManager | undefined;
  if (o.mcpConfig.length) {
    const { parseMcpConfigs, McpConfigError } = await import('./mcp/config.js');
    let configs: ReturnType<typeof parseMcpConfigs>;
    try {
      configs = parseMcpConfigs(o.mcpConfig, cwd);
    } catch (err) {
      if (!(err instanceof McpConfigError)) throw err;
      process.stderr.write(`agent: ${err.message}\n`);
      return 2;
    }
    mcpSetup = createMcp().then((m) => {
      m.connectConfigured(configs);
      return (mcp = m);
    });
  }
  // Output styles of the setting sources; the `outputStyle` setting picks the one in use.
  const outputStyles = new OutputStyleCatalog(
    { cwd, projectRoot: o.projectConfigRoot, env: process.env, sources: parseSources(o.settingSources) },
    (m) => process.stderr.write(`agent: ${m}\n`),
  );
  await outputStyles.reload();
  const wantedStyle = (loadedSettings.settings as Record<string, unknown>).outputStyle;
  if (typeof wantedStyle === 'string' && wantedStyle !== '') {
    try {
      outputStyles.select(wantedStyle);
    } catch (err) {
      process.stderr.write(`agent: settings outputStyle: ${(err as Error).message}; using "default"\n`);
    }
  }
  const systemParts: SystemPromptParts = {
    cwd,
    custom: o.systemPrompt,
    append: o.appendSystemPrompt ? [o.appendSystemPrompt] : [],
    outputStyle: outputStyles.currentStyle(),
  };
  /** Switch the session to a style (throws for an unknown one): init's output_style and the next system prompt follow. */
  const useOutputStyle = (name: string) => {
    outputStyles.select(name);
    systemParts.outputStyle = outputStyles.currentStyle();
    settings.outputStyle = outputStyles.current;
  };
  const settings: SessionSettings = {
    sessionId,
    cwd,
    model: resolveModel(o.model ?? process.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL),
    fallbackModel: o.fallbackModel ? resolveModel(o.fallbackModel) : undefined,
    maxTurns: o.maxTurns,
    maxBudgetUsd: o.maxBudgetUsd,
    thinking: o.thinking,
    maxThinkingTokens: o.maxThinkingTokens,
    effort: o.effort ?? savedEffortFor(loadedSettings.settings, resolveModel(o.model ?? process.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL)),
    maxOutputTokens: Number(process.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS) || undefined,
    betas: o.betas.length ? o.betas : undefined,
    taskBudget: o.taskBudget,
    // The terminal draws the text as it streams.
    includePartialMessages: o.includePartialMessages || term !== undefined,
    tools,
    toolSearch,
    structuredOutputTool,
    mcpServers: [],
    agents: [],
    apiKeySource: process.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : process.env.ANTHROPIC_AUTH_TOKEN ? 'ANTHROPIC_AUTH_TOKEN' : 'none',
    version: VERSION,
    outputStyle: outputStyles.current,
  };

  let agents: Awaited<ReturnType<typeof setupAgents>>;
  try {
    agents = await setupAgents({
      sessionId: settings.sessionId,
      cwd,
      tools,
      emit,
      includePartialMessages: () => settings.includePartialMessages,
      agentsFlag: o.agents,
      settingSources: o.settingSources,
      projectRoot: o.projectConfigRoot,
      sessionSpent: () => runner.spentSoFar(),
      sessionFolder: transcript ? sessionDir(process.env, cwd, sessionId) : undefined,
      version: VERSION,
    });
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return 2;
  }
  settings.agents = agents.catalog.names();
  // --agent: the host's agents come in initialize, so a stream-json session looks the name up then.
  let mainAgent: AgentDef | undefined;
  const lookupMainAgent = (name: string) => findMainAgent(name, (n) => agents.catalog.get(n), agents.catalog.names());
  if (o.agent !== undefined && o.inputFormat !== 'stream-json') {
    try {
      lookupMainAgent(o.agent);
    } catch (err) {
      process.stderr.write(`agent: ${(err as Error).message}\n`);
      return 2;
    }
  }
  /** Before each run: the first one takes the agent's prompt and model; every one narrows the tools (MCP may add some). */
  const applyMainAgent = () => {
    if (o.agent === undefined) return;
    if (!mainAgent) {
      mainAgent = lookupMainAgent(o.agent);
      // The host's or --system-prompt's own text wins; an empty one (what the SDK sends by default) does not.
      const custom = systemParts.custom;
      if (custom === undefined || custom === '' || (Array.isArray(custom) && custom.join('') === '')) systemParts.custom = mainAgent.prompt;
      if (o.model === undefined && mainAgent.model !== undefined && mainAgent.model !== 'inherit') settings.model = resolveModel(mainAgent.model);
    }
    if (narrowTools(tools, mainAgent)) runner.toolsChanged();
  };

  const channel = new ControlChannel((m) => writer.send(m));
  let guards: Guards;
  try {
    guards = setupGuards(o, {
      cwd,
      env: process.env,
      sessionId,
      transcriptPath: transcript?.path ?? '',
      startSource: start.source,
      channel,
      loaded: loadedSettings,
      // As the SDK documents: SessionStart (and Setup) hook runs are reported even without the flag.
      onHookEvent: (subtype, fields) => {
        if (o.includeHookEvents || fields.hook_event === 'SessionStart' || fields.hook_event === 'Setup')
          void emit({ type: 'system', subtype, ...fields, ...envelope(sessionId) });
      },
      onSystemMessage: (message) => {
        process.stderr.write(`agent: hook: ${message}\n`);
        void emit({ type: 'system', subtype: 'hook_system_message', message, ...envelope(sessionId) });
      },
    });
  } catch (err) {
    process.stderr.write(`agent: ${(err as Error).message}\n`);
    return err instanceof StartupError ? err.exitCode : 1;
  }
  // Memory files (CLAUDE.md …) of the sources the settings use; read once, so every request of
  // the session sends the same bytes.
  const memoryFiles = await loadMemoryFiles({ cwd, env: process.env, sources: parseSources(o.settingSources), addDirs: o.addDir });
  systemParts.memory = formatMemory(memoryFiles);
  const slash = await setupCommands({
    cwd,
    projectRoot: o.projectConfigRoot,
    env: process.env,
    sources: parseSources(o.settingSources),
    tools,
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
        return [`Context usage · ${u.model}: ${n(u.totalTokens)} / ${n(u.maxTokens)} tokens (${u.percentage}%)`, ...u.categories.map((c) => `  ${c.name}: ${n(c.tokens)}`)].join('\n');
      },
      model: (name) => {
        if (name) settings.model = resolveModel(name === 'default' ? (o.model ?? DEFAULT_MODEL) : name);
        return settings.model;
      },
    },
  });
  let mcpTools = new Set<Tool>();
  /** Put the connected servers' tools in the offered list (in place: subagents share it). */
  const syncMcp = async () => {
    if (!mcpSetup) return;
    const m = await mcpSetup;
    await m.ready();
    const denied = o.disallowedTools.filter((r) => !r.includes('(')).map(parseRule);
    const seen = new Set(tools.filter((t) => !mcpTools.has(t)).map((t) => t.name));
    const fresh = m.offeredTools().filter((t) => !denied.some((r) => ruleNamesTool(r, t.name)) && !seen.has(t.name) && seen.add(t.name));
    const before = [...mcpTools].map((t) => t.name).join(',');
    for (let i = tools.length - 1; i >= 0; i--) if (mcpTools.has(tools[i])) tools.splice(i, 1);
    tools.push(...fresh);
    mcpTools = new Set(fresh);
    settings.mcpServers = m.statuses();
    if (fresh.map((t) => t.name).join(',') !== before) runner.toolsChanged();
  };
  let planModeInstructions: string | undefined;
  let toolAliases: Record<string, string> | undefined;
  const planMode = createPlanModeService(guards.permissions, () => planModeInstructions);
  // Set on the shared services object (not a copy): the sandbox is added to it later.
  agents.services.planMode = planMode;
  const runner = new SessionRunner(
    settings,
    {
      systemPrompt: () => buildSystemPrompt(systemParts),
      services: agents.services,
      background: agents.background,
      team: agents.team,
      teammateTimeoutMs: teammateTimeout(o),
      pipeline: () => ({ tools, ...guards.pipeline, toolAliases: () => toolAliases, ...(term && o.permissionPrompts !== 'none' ? { askHost: (req, signal) => term.ask(req, signal) } : {}) }),
      beforePrompt: async (prompt, signal, uuid) => {
        const id = transcript?.appendMessage({ type: 'user', uuid, message: { role: 'user', content: prompt } }) ?? uuid ?? randomUUID();
        controls?.onPrompt(id);
        const gate = await guards.beforePrompt(prompt, signal);
        // Each prompt in plan mode reminds the model of it (the mode may have changed since the last).
        if (gate.blockReason === undefined && guards.permissions.mode === 'plan') gate.additionalContext = [...(gate.additionalContext ?? []), planMode.reminder()];
        return gate;
      },
      stopHook: (active, signal) => guards.stopHook(active, signal),
      permissionMode: () => guards.permissions.mode,
      beforeRun: async () => {
        await syncMcp();
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
            return { kind: 'local', text: `${text.split(/\s/)[0]}: allowed-tools: ${(err as Error).message}`, isError: true };
          }
        }
        return out.model ? { ...out, model: resolveModel(out.model) } : out;
      },
      allowForTurn: (rules) => {
        const allow = guards.permissions.rules.allow;
        const entries = rules.map((r) => guards.permissions.compile(parseRule(r)));
        allow.push(...entries);
        return () => {
          for (const e of entries) allow.splice(allow.indexOf(e), 1);
        };
      },
      slashCommandNames: () => slash.names(),
      skillNames: () => (tools.some((t) => t.name === 'Skill') ? skills.enabled().map((sk) => sk.name) : []),
      ...(term ? { reportError: () => {} } : {}),
    },
    emit,
  );
  // The sandbox (sandbox.enabled): checked for real before any prompt runs; never a silent "on".
  try {
    const env = process.env;
    const sandbox = await setupSandbox({
      settings: mergeSandboxSettings(guards.settingsFiles, cwd, env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude')),
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
    }
  } catch (err) {
    if (!(err instanceof SandboxStartupError)) throw err;
    process.stderr.write(`agent: ${err.message}\n`);
    return 1;
  }
  // A resumed session's conversation, before the first prompt.
  for (const m of start.history) runner.history.push(m);
  controls = setupSessionControls({
    env: process.env,
    cwd,
    sessionId,
    sessionFolder: transcript ? sessionDir(process.env, cwd, sessionId) : undefined,
    channel,
    services: agents.services,
    tools,
    permissions: () => guards.permissions,
    runner: () => runner,
    systemPrompt: () => buildSystemPrompt(systemParts),
    memoryText: () => systemParts.memory ?? '',
    memoryFiles,
    agents: () => agents.catalog.all(),
    transcript,
    restoredCheckpoints: start.checkpoints,
  });

  registerControlHandlers(channel, {
    initialize: (req: InitializeRequest) => {
      if (req.sdkMcpServers?.length) {
        const names = req.sdkMcpServers;
        // Connected after this answer is written; the first run waits for them (beforeRun).
        mcpSetup = (mcpSetup ?? createMcp()).then(async (m) => {
          await new Promise((r) => setImmediate(r));
          m.connectHost(names, (subtype, payload, opts) => channel.request(subtype, payload, opts));
          return (mcp = m);
        });
      }
      if (req.jsonSchema) {
        try {
          settings.structuredOutputTool = createStructuredOutputTool(req.jsonSchema);
        } catch (err) {
          throw new Error(`initialize: jsonSchema: ${(err as Error).message}`);
        }
      }
      if (req.hooks) guards.setHostHooks(req.hooks);
      // Not built yet: a host that asks for skills or plugins gets an error, not a session without them.
      // The SDK does not wait for initialize's answer, so an error response alone would go unseen:
      // the process also ends with exit 2, as for a flag that is not built.
      if (req.skills !== undefined) {
        try {
          skills.select(req.skills);
        } catch (err) {
          // As for an unbuilt option: the SDK does not wait for this answer, so the process ends too.
          const message = `initialize: ${(err as Error).message}`;
          process.stderr.write(`agent: ${message}\n`);
          setImmediate(() => void writer.flush(1000).then(() => process.exit(2)));
          throw new Error(message);
        }
        if (skills.enabled().length && !tools.some((t) => t.name === 'Skill')) {
          tools.push(makeSkillTool(() => skills.enabled()));
          runner.toolsChanged();
        }
      }
      const unbuilt = req.plugins?.length ? 'plugins: Plugins are' : undefined;
      if (unbuilt) {
        const message = `initialize: ${unbuilt} not supported yet by this agent runtime`;
        process.stderr.write(`agent: ${message}\n`);
        setImmediate(() => void writer.flush(1000).then(() => process.exit(2)));
        throw new Error(message);
      }
      if (req.planModeInstructions !== undefined) planModeInstructions = req.planModeInstructions;
      if (req.toolAliases !== undefined) toolAliases = req.toolAliases;
      // An array keeps its items: the dynamic-boundary marker splits it (systemPrompt.ts).
      if (req.systemPrompt !== undefined) systemParts.custom = req.systemPrompt;
      if (req.appendSystemPrompt) systemParts.append.push(req.appendSystemPrompt);
      if (req.title !== undefined && req.title.trim() !== '') transcript?.appendMeta({ type: 'custom-title', customTitle: req.title.trim() });
      if (req.agents) {
        agents.setSdkAgents(req.agents);
        settings.agents = agents.catalog.names();
      }
      if (o.agent !== undefined) {
        try {
          lookupMainAgent(o.agent);
        } catch (err) {
          // As for skills above: the SDK does not wait for this answer, so the process ends with exit 2.
          process.stderr.write(`agent: ${(err as Error).message}\n`);
          setImmediate(() => void writer.flush(1000).then(() => process.exit(2)));
          throw err;
        }
      }
      return {
        commands: slash.list(),
        output_style: outputStyles.current,
        available_output_styles: outputStyles.names(),
        agents: agents.catalog.all().map((d) => ({ name: d.name, description: d.description, ...(d.model ? { model: d.model } : {}) })),
        models: modelChoices(settings.model),
        account: { apiKeySource: settings.apiKeySource },
      };
    },
    interrupt: () => void runner.interrupt(),
    setModel: (model) => {
      settings.model = resolveModel(model && model !== 'default' ? model : (o.model ?? DEFAULT_MODEL));
    },
    setPermissionMode: (mode) => {
      guards.permissions.setMode(mode);
    },
    setMaxThinkingTokens: (tokens) => {
      settings.maxThinkingTokens = tokens ?? undefined;
      // A budget turns thinking back on in a session started with --thinking disabled.
      if (tokens && settings.thinking === 'disabled') settings.thinking = undefined;
    },
    mcpStatus: async () => ({ mcpServers: mcpSetup ? (await mcpSetup).details() : [] }),
  });

  registerTaskControlHandlers(channel, agents.registry, agents.foreground);
  // reload_skills: the skill folders read again; the answer lists what is now enabled.
  channel.on('reload_skills', async () => ({
    skills: (await skills.reload()).map((sk) => ({ name: sk.name, description: `${sk.description} (${sk.source})`, argumentHint: '' })),
  }));
  const settingsRoot = o.projectConfigRoot ? resolve(cwd, o.projectConfigRoot) : cwd;
  registerSettingsControlHandlers(channel, {
    reload: (flagLayer) => loadSessionSettings(o, cwd, process.env, flagLayer),
    initial: loadedSettings,
    permissions: guards.permissions,
    cliRules: { allow: o.allowedTools, deny: o.disallowedTools, dirs: o.addDir },
    setModel: (model) => {
      settings.model = resolveModel(model ?? o.model ?? process.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL);
    },
    currentModel: () => settings.model,
    sources: parseSources(o.settingSources),
    paths: settingsPaths(settingsRoot, process.env),
    outputStyles: { names: () => outputStyles.names(), use: useOutputStyle },
  });
  // reload_output_styles: the style folders read again; the answer lists every style there is now.
  channel.on('reload_output_styles', async () => {
    const names = await outputStyles.reload();
    useOutputStyle(outputStyles.current);
    return { available_output_styles: names };
  });
  registerMcpControlHandlers(channel, {
    manager: () => (mcpSetup ??= createMcp().then((m) => (mcp = m))),
    parseServer: async (name, config) => {
      const { parseServer } = await import('./mcp/config.js');
      return parseServer(name, config, 'mcp_set_servers');
    },
    hostRequest: (subtype, payload, opts) => channel.request(subtype, payload, opts),
  });

  const exitOn = installExitHandlers(runner, writer, () => agents.registry.stopAll(), () => mcp?.killAll());

  if (term) {
    channel.close('no host in the interactive terminal mode');
    const running = runner.run();
    const banner = `agent ${VERSION} · ${settings.model} · ${cwd} · permissions: ${guards.permissions.mode} · /exit to quit, Ctrl+C to interrupt`;
    await term.run(runner, banner);
    runner.endInput();
    runner.interrupt(); // a run still going, background tasks
    await running;
  } else if (o.inputFormat === 'stream-json') {
    if (o.prompt !== undefined) runner.submit(o.prompt);
    const running = runner.run();
    await consumeStreamJson(process.stdin, runner, channel, emit);
    channel.close('stdin is closed: the host can no longer answer');
    runner.endInput();
    await running;
  } else {
    const prompt = o.prompt ?? (process.stdin.isTTY ? '' : await readAll(process.stdin));
    if (prompt.trim() === '') {
      process.stderr.write('agent: no prompt: give it as an argument (agent -p "…") or on stdin\n');
      return 2;
    }
    channel.close('no host to ask in text input mode');
    runner.submit(prompt);
    runner.endInput();
    await runner.run();
  }
  exitOn.dispose();
  await guards.sessionEnd(term ? 'prompt_input_exit' : 'other');
  if (mcpSetup) await (await mcpSetup).closeAll();

  if (o.outputFormat === 'json' && lastResult) await writer.sendRaw(JSON.stringify(lastResult) + '\n');
  if (o.outputFormat === 'text' && lastResult) {
    // An error result was already told on stderr by the runner; stdout carries answers only.
    const text = String(lastResult.result ?? '');
    if (!lastResult.is_error) await writer.sendRaw(text.endsWith('\n') ? text : text + '\n');
  }
  await writer.flush();
  if (term) return 0;
  return runner.lastResultWasError ? 1 : 0;
}

/** The model client: the API, the API with every call recorded (--record), or a recording (--replay). */
async function modelClientFor(o: CliOptions): Promise<CallModel | undefined> {
  if (o.record === undefined && o.replay === undefined) return undefined;
  // Loaded only when asked for: ordinary starts do not pay for it.
  const rec = await import('./loop/recording.js');
  if (o.replay !== undefined) return rec.replayModel(rec.loadRecording(o.replay), { speed: o.replaySpeed === 1 ? 1 : 0, file: o.replay });
  try {
    return rec.recordingModel(streamModel, o.record!);
  } catch (err) {
    throw new Error(`--record: cannot write ${o.record}: ${(err as Error).message}`);
  }
}

/** Tools the reference offers that this build does not have yet: asking for one is an error, never a silent omission. */
const NOT_BUILT_TOOLS: ReadonlySet<string> = new Set(['SlashCommand', 'EnterWorktree', 'ExitWorktree']);

/** --tools picks the offered set (a tool not built yet is an error); plain names in --disallowedTools remove tools too. */
function selectTools(all: Tool[], o: CliOptions): Tool[] {
  let tools = all;
  if (o.tools !== undefined && o.tools !== 'default') {
    const wanted = new Set(o.tools.split(/[ ,]+/).filter(Boolean));
    const unbuilt = [...wanted].filter((n) => NOT_BUILT_TOOLS.has(n));
    if (unbuilt.length) throw new Error(`--tools: ${unbuilt.join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not built yet`);
    const unknown = [...wanted].filter((n) => !all.some((t) => t.name === n));
    if (unknown.length) process.stderr.write(`agent: --tools: unknown tool(s) ignored: ${unknown.join(', ')}\n`);
    tools = all.filter((t) => wanted.has(t.name));
  }
  const removed = new Set(o.disallowedTools.filter((r) => !r.includes('(')));
  return tools.filter((t) => !removed.has(t.name));
}

/** --teammate-timeout, else AGENT_TEAMMATE_TIMEOUT_MS (a bad value is told and the default used). */
function teammateTimeout(o: CliOptions): number | undefined {
  if (o.teammateTimeoutMs !== undefined) return o.teammateTimeoutMs;
  const env = process.env.AGENT_TEAMMATE_TIMEOUT_MS;
  if (env === undefined || env === '') return undefined;
  const ms = parseDuration(env);
  if (ms === undefined) process.stderr.write(`agent: AGENT_TEAMMATE_TIMEOUT_MS="${env}" is not a duration; the default (10 minutes) is used\n`);
  return ms;
}

function isTruthy(v: string | undefined): boolean {
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * SIGINT/SIGTERM: interrupt the run (its result comes within a second), kill every child process
 * group, flush, exit 130/143. The host vanishing (EPIPE on stdout): same, without the writing.
 */
function installExitHandlers(
  runner: SessionRunner,
  writer: StdoutWriter,
  stopTasks?: () => Promise<void>,
  killMcp: () => void = () => {},
): { dispose(): void } {
  let exiting = false;
  const finish = async (code: number, waitForResult: boolean) => {
    if (exiting) return;
    exiting = true;
    runner.endInput();
    const wasRunning = runner.interrupt();
    // Background tasks are stopped and reported as stopped before their processes are killed.
    if (stopTasks && waitForResult) await Promise.race([stopTasks(), new Promise((r) => setTimeout(r, 1500))]);
    killAllGroups();
    if (wasRunning && waitForResult) {
      await Promise.race([runner.whenIdle(), new Promise((r) => setTimeout(r, 1500).unref())]);
    }
    killAllGroups();
    killMcp();
    await writer.flush(1000);
    process.exit(code);
  };
  const onSigint = () => void finish(130, true);
  const onSigterm = () => void finish(143, true);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  writer.onHostGone(() => void finish(1, false));
  process.on('exit', () => {
    killAllGroups();
    killMcp();
  });
  return {
    dispose() {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}

/** The default effort update_settings saved for this model, when valid. */
function savedEffortFor(loaded: LoadedSettings['settings'], model: string): EffortLevel | undefined {
  const level = savedEffort(loaded, model);
  return level !== undefined && (EFFORT_LEVELS as readonly string[]).includes(level) ? (level as EffortLevel) : undefined;
}
