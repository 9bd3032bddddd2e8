// `initialize`: the host's session setup (its hooks, in-process MCP servers, agents, prompts,
// JSON schema …) applied to the session, and the answer that lists what the session offers.
// The SDK does not wait for this answer, so an error response alone would go unseen: a request the
// session cannot honour (an option that is not built, skills it does not know, a broken plugin, an
// unknown --agent) also ends the process with exit 2, as a flag that is not built does. Plugins named here (the SDK's
// pluginDelivery 'initialize') load first: the skills and the agent may come from them.
import type { InitializeRequest } from '../protocol/inbound.js';

/** What initialize changes in a session, and what its answer reads. Setters that throw refuse the request. */
export interface InitializeTarget {
  /** mcpServersDelivery 'initialize': servers we run or connect to; throws naming a bad one. */
  connectInitializeMcp(servers: Record<string, unknown>): void;
  /** `manifests`: initialize.sdkMcpServerManifests as sent; returns the verdict on each entry. */
  connectHostMcp(names: string[], manifests: unknown): Record<string, string>;
  setJsonSchema(schema: Record<string, unknown>): void;
  setHostHooks(hooks: NonNullable<InitializeRequest['hooks']>): void;
  /** Throws naming a skill the session does not have. */
  selectSkills(selection: string[] | 'all'): void;
  /**
   * The stdin form of --plugin-dir: loaded on the session's first initialize (resolves when they
   * are in place; rejects naming a broken one), undefined on a repeated one (nothing is loaded then).
   */
  loadPlugins(plugins: NonNullable<InitializeRequest['plugins']>): Promise<void> | undefined;
  /** Whether every one of these plugin folders is loaded (the answer's plugins_applied). */
  pluginsLoaded(plugins: NonNullable<InitializeRequest['plugins']>): boolean;
  setPlanModeInstructions(text: string): void;
  setToolAliases(aliases: Record<string, string>): void;
  setProgressSummaries(on: boolean): void;
  setPromptSuggestions(on: boolean): void;
  setForwardSubagentText(on: boolean): void;
  /** First initialize wins: a later one does not change it. */
  setPerTaskStopAffordance(on: boolean): void;
  setSystemPrompt(prompt: string | string[]): void;
  appendSystemPrompt(text: string): void;
  /** Text added to every subagent's system prompt. */
  appendSubagentSystemPrompt(text: string): void;
  setTitle(title: string): void;
  /** Throws on a bad definition. */
  setSdkAgents(agents: Record<string, unknown>): void;
  /** --agent NAME, looked up now that the host's agents are known; throws when there is none. */
  checkMainAgent(): void;
  /** End the process with exit 2 once the error answer is written. */
  exitAfterAnswer(message: string): void;
  /** A promise when a field waits for something (Bedrock's model ids wait for the profile list). */
  answer(): Record<string, unknown> | Promise<Record<string, unknown>>;
}

export function handleInitialize(
  req: InitializeRequest,
  t: InitializeTarget,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  /** Told on stderr and as the error answer, then the process ends. */
  const fatal = (message: string): never => {
    t.exitAfterAnswer(message);
    throw new Error(message);
  };
  // An option that is not built ends the process too: the SDK would not see an error answer alone,
  // and the session would run without what the host asked for.
  const unbuilt = notBuilt(req);
  if (unbuilt) fatal(unbuilt);
  if (req.mcpServers) t.connectInitializeMcp(req.mcpServers);
  const parked = req.sdkMcpServers?.length ? t.connectHostMcp(req.sdkMcpServers, req.sdkMcpServerManifests) : {};
  if (req.jsonSchema) {
    try {
      t.setJsonSchema(req.jsonSchema);
    } catch (err) {
      throw new Error(`initialize: jsonSchema: ${(err as Error).message}`);
    }
  }
  if (req.hooks) t.setHostHooks(req.hooks);
  if (req.planModeInstructions !== undefined) t.setPlanModeInstructions(req.planModeInstructions);
  if (req.toolAliases !== undefined) t.setToolAliases(req.toolAliases);
  if (req.agentProgressSummaries !== undefined) t.setProgressSummaries(req.agentProgressSummaries);
  if (req.promptSuggestions !== undefined) t.setPromptSuggestions(req.promptSuggestions);
  if (req.forwardSubagentText !== undefined) t.setForwardSubagentText(req.forwardSubagentText);
  if (req.perTaskStopAffordance !== undefined) t.setPerTaskStopAffordance(req.perTaskStopAffordance);
  if (req.systemPrompt !== undefined) t.setSystemPrompt(req.systemPrompt);
  if (req.appendSystemPrompt) t.appendSystemPrompt(req.appendSystemPrompt);
  if (req.appendSubagentSystemPrompt) t.appendSubagentSystemPrompt(req.appendSubagentSystemPrompt);
  if (req.title !== undefined && req.title.trim() !== '') t.setTitle(req.title.trim());
  if (req.agents) t.setSdkAgents(req.agents);
  // What may come from the plugins: the skills chosen, the main thread's agent.
  const afterPlugins = () => {
    if (req.skills !== undefined) {
      try {
        t.selectSkills(req.skills);
      } catch (err) {
        fatal(`initialize: ${(err as Error).message}`);
      }
    }
    try {
      t.checkMainAgent();
    } catch (err) {
      fatal((err as Error).message);
    }
    const answer = t.answer();
    return answer instanceof Promise
      ? answer.then((a) => complete(a, req, parked, t))
      : complete(answer, req, parked, t);
  };
  const loading = req.plugins?.length ? t.loadPlugins(req.plugins) : undefined;
  if (!loading) return afterPlugins();
  return loading.then(afterPlugins, (err: Error) => fatal(`initialize: plugins: ${err.message}`));
}

/** The answer with what became of the request's servers, plugins and manifests. */
function complete(
  answer: Record<string, unknown>,
  req: InitializeRequest,
  parked: unknown,
  t: InitializeTarget,
): Record<string, unknown> {
  const plugins = req.plugins;
  // The SDK (mcpServersDelivery 'initialize') ends a session whose CLI does not say whether it took them.
  return {
    ...answer,
    mcp_servers_applied: req.mcpServers !== undefined,
    ...(plugins?.length ? { plugins_applied: t.pluginsLoaded(plugins) } : {}),
    // What became of each manifest entry (absent when none was sent or no server was named).
    ...(req.sdkMcpServerManifests !== undefined && req.sdkMcpServers?.length
      ? { sdk_mcp_manifests_parked: parked }
      : {}),
    // No trust state exists here (nothing is gated on it), so an attestation records nothing.
    ...(req.workspaceTrust ? { workspace_trust_recorded: false } : {}),
  };
}

/** Host declarations whose absence (or false) is what this runtime does; true asks for what is not built. */
const DECLARATIONS_NOT_BUILT = [
  [
    'rapidFollowupPreempt',
    'a running turn is never stopped by a follow-up message (no system/turn_preempted); the follow-up waits its turn',
  ],
  [
    'forwardNestedSubagentToolCalls',
    "subagents cannot start subagents here, and a subagent's forked skill's tool calls are not forwarded",
  ],
  [
    'offersBypassSwitchBack',
    'a launch in bypassPermissions is never switched to another mode, so there is no switch back to offer',
  ],
  ['keepsBypassHeld', 'a launch keeps the permission mode it was started with; bypassPermissions is never held'],
] as const;

/** What the SDK sends here only when its delivery option says 'initialize', with that option. */
const FLAGS_NOT_READ_HERE = [
  ['settings', 'settingsDelivery'],
  ['managedSettings', 'managedSettingsDelivery'],
  ['disallowedTools', 'disallowedToolsDelivery'],
] as const;

/** The first option set to a value this runtime does not build, as the error answer's text. */
function notBuilt(req: InitializeRequest): string | undefined {
  // Moving the environment and memory out of the system prompt into the first user message is not
  // built (with a custom prompt it has no effect, as the SDK says).
  if (req.excludeDynamicSections === true && req.systemPrompt === undefined)
    return 'initialize: excludeDynamicSections is not supported by this agent runtime: the working directory, git status and memory stay in the system prompt, in its per-session block after the cache boundary (the static block before it is the same for every user and caches across them). Leave the option out.';
  // The system prompt is rendered from the session's parts on every request and afresh on resume:
  // false (never record) is what happens; a record replayed verbatim is not built.
  if (req.systemPromptSnapshot === true)
    return "initialize: systemPromptSnapshot: true is not supported by this agent runtime: the system prompt is not recorded, it is rendered from the session's parts on every request (and afresh on resume). Leave the option out or set it to false.";
  if (req.codeRunningMcpTools?.length)
    return 'initialize: codeRunningMcpTools is not supported by this agent runtime: MCP tools are not classed as code-running. Leave the option out.';
  if (req.webSearchIsolationExemptMcpServers?.length)
    return 'initialize: webSearchIsolationExemptMcpServers is not supported by this agent runtime: there is no web-search isolation to exempt MCP servers from. Leave the option out.';
  const configured = Object.entries(req.sdkMcpServerConfigs ?? {}).find(
    ([name, v]) => req.sdkMcpServers?.includes(name) && v !== null && typeof v === 'object' && Object.keys(v).length,
  );
  if (configured)
    return `initialize: sdkMcpServerConfigs is not supported by this agent runtime (server "${configured[0]}" sets ${Object.keys(configured[1] as object).join(', ')}): a per-server timeout or tool permission policy for in-process servers is not built. Register the server without them, and use allowedTools, disallowedTools or canUseTool for its tools.`;
  for (const [field, why] of DECLARATIONS_NOT_BUILT)
    if (req[field] === true)
      return `initialize: ${field}: true is not supported by this agent runtime: ${why}. Leave the option out or set it to false.`;
  for (const [field, delivery] of FLAGS_NOT_READ_HERE)
    if (req[field] !== undefined)
      return `initialize: ${field} is not read from initialize by this agent runtime: give it on the command line (the SDK's ${delivery}: 'argv', its default).`;
  return undefined;
}
