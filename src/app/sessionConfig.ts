// The session's configuration, resolved once from the flags, the settings and the environment
// (after the settings' `env` is applied), with no side effects: every later part reads it instead of
// reading CliOptions or process.env again. What `initialize` sets later lives in `HostSetup`.
import { parseToolSearchSetting, type ToolSearchSetting } from '../loop/deferredTools.js';
import { chooseModel, chooseOverride, resolveModel } from '../loop/models.js';
import { EFFORT_LEVELS, type EffortLevel } from '../loop/pricing.js';
import type { ThinkingMode } from '../loop/requestOptions.js';
import { type CliOptions, parseDuration } from '../cli/options.js';
import { type LoadedSettings, projectRootOf, type SettingSource } from '../settings/index.js';
import { savedEffort } from '../control/settingsHandlers.js';
import { workflowsEnabled } from '../workflows/optIn.js';

import { type ApiProvider, apiProviderFromEnv } from '../loop/providers/select.js';
import { apiKeySource } from '../loop/providers/keySources.js';
import type { AuthSettings } from '../loop/providers/authSettings.js';

export { DEFAULT_MODEL } from '../loop/pricing.js';

export interface SessionConfig {
  readonly cwd: string;
  /** --project-config-root resolved against cwd (where .claude/ and .mcp.json are read). */
  readonly projectRoot: string;
  /** --setting-sources, checked. */
  readonly sources: SettingSource[];
  /** The model a session starts with and goes back to ("default", a reset): --model, ANTHROPIC_MODEL, the built-in default. */
  readonly defaultModel: string;
  readonly fallbackModel?: string;
  readonly maxTurns?: number;
  readonly maxBudgetUsd?: number;
  readonly thinking?: ThinkingMode;
  readonly maxThinkingTokens?: number;
  /** --effort, else the default update_settings saved for the starting model. */
  readonly effort?: EffortLevel;
  /** CLAUDE_CODE_MAX_OUTPUT_TOKENS. */
  readonly maxOutputTokens?: number;
  readonly betas?: string[];
  readonly taskBudget?: number;
  readonly includePartialMessages: boolean;
  /** ENABLE_TOOL_SEARCH. */
  readonly toolSearch: ToolSearchSetting;
  /** Where the API key comes from, in the reference's words ('none' for a token alone or a cloud provider). */
  readonly apiKeySource: string;
  /** Which API the model calls go to (CLAUDE_CODE_USE_BEDROCK …; initialize's account.apiProvider). */
  readonly apiProvider: ApiProvider;
  /** The settings' credential commands, which the session's model API is built with (sessionStart.ts). */
  readonly auth: AuthSettings;
  /** --teammate-timeout, else AGENT_TEAMMATE_TIMEOUT_MS (undefined: the runner's default). */
  readonly teammateTimeoutMs?: number;
  /** CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS. */
  readonly agentTeams: boolean;
  /** The user opted in to the Workflow tool (src/workflows/optIn.ts). */
  readonly workflows: boolean;
  /** --tools / --disallowedTools allow the Skill tool to be offered when skills appear later. */
  readonly skillToolAllowed: boolean;
  /** A host on stdin can be asked (elicitations): stream-json input, prompts not turned off. */
  readonly hostCanAnswer: boolean;
  /** The `promptSuggestionEnabled` setting (false turns prompt suggestions off). */
  readonly promptSuggestionEnabled: boolean;
}

/** What `initialize` sets for the rest of the session (each read where it is used). */
export interface HostSetup {
  planModeInstructions?: string;
  toolAliases?: Record<string, string>;
  progressSummaries: boolean;
  /** initialize.promptSuggestions. */
  promptSuggestions: boolean;
  /** initialize.perTaskStopAffordance: the first initialize's value holds. */
  perTaskStopAffordance?: boolean;
  /** initialize.appendSubagentSystemPrompt: added to every subagent's system prompt (forks send the parent's). */
  subagentAppend?: string;
  /** initialize.forwardSubagentText: a stream-json host gets a subagent's text and thinking too. */
  forwardSubagentText?: boolean;
}

/** The model rule (models.ts chooseModel) against this session's default: set_model, /model, a settings reload. */
export function sessionModel(cfg: Pick<SessionConfig, 'defaultModel'>, requested: string | undefined): string {
  return chooseModel(requested, { sessionDefault: cfg.defaultModel });
}

/**
 * The model a command's or a loaded skill's `model` sets for its turn, by the model rule
 * (chooseOverride): `default` is the session's default, an alias resolves, and `inherit` is what the
 * turn inherits, the model it runs on already: no model of its own (undefined), so the session's
 * model, even one set_model changes mid-turn, goes on answering. No `model`: none either.
 */
export function turnModel(
  config: Pick<SessionConfig, 'defaultModel'>,
  requested: string | undefined,
): string | undefined {
  return chooseOverride(requested, { sessionDefault: config.defaultModel });
}

/** Throws a message for a bad value (the caller turns it into a usage error); `warnings` are told on stderr. */
export function resolveSessionConfig(
  o: CliOptions,
  ctx: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    loaded: LoadedSettings;
    interactive: boolean;
    /** --setting-sources, parsed once by openSession (the settings were loaded from them). */
    sources: SettingSource[];
  },
): { config: SessionConfig; warnings: string[] } {
  const { cwd, env } = ctx;
  const warnings: string[] = [];
  // --model, else ANTHROPIC_MODEL, else the provider's default (a cloud provider's may differ:
  // models.ts); each layer's "default" is the one below it.
  const apiProvider = apiProviderFromEnv(env);
  const { apiKeyHelper, awsAuthRefresh, awsCredentialExport, gcpAuthRefresh } = ctx.loaded.settings;
  const auth: AuthSettings = { apiKeyHelper, awsAuthRefresh, awsCredentialExport, gcpAuthRefresh };
  const builtIn = resolveModel('default', apiProvider, env);
  const fromEnv = chooseModel(env.ANTHROPIC_MODEL, { sessionDefault: builtIn, env });
  const defaultModel = chooseModel(o.model, { sessionDefault: fromEnv, env });
  const config: SessionConfig = {
    cwd,
    projectRoot: projectRootOf(cwd, o.projectConfigRoot),
    sources: ctx.sources,
    defaultModel,
    fallbackModel: o.fallbackModel ? chooseModel(o.fallbackModel, { sessionDefault: defaultModel, env }) : undefined,
    maxTurns: o.maxTurns,
    maxBudgetUsd: o.maxBudgetUsd,
    thinking: o.thinking,
    maxThinkingTokens: o.maxThinkingTokens,
    effort: o.effort ?? savedEffortFor(ctx.loaded.settings, defaultModel),
    maxOutputTokens: Number(env.CLAUDE_CODE_MAX_OUTPUT_TOKENS) || undefined,
    betas: o.betas.length ? o.betas : undefined,
    taskBudget: o.taskBudget,
    includePartialMessages: o.includePartialMessages || ctx.interactive,
    toolSearch: parseToolSearchSetting(env.ENABLE_TOOL_SEARCH),
    apiKeySource: apiKeySource(apiProvider, env, auth.apiKeyHelper),
    apiProvider,
    auth,
    teammateTimeoutMs: teammateTimeout(o, env, warnings),
    agentTeams: isTruthy(env.CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS),
    workflows: workflowsEnabled(ctx.loaded.settings as Record<string, unknown>, env),
    skillToolAllowed:
      (o.tools === undefined || o.tools === 'default' || o.tools.split(/[ ,]+/).includes('Skill')) &&
      !o.disallowedTools.includes('Skill'),
    hostCanAnswer: o.inputFormat === 'stream-json' && o.permissionPrompts !== 'none',
    promptSuggestionEnabled:
      (ctx.loaded.settings as { promptSuggestionEnabled?: unknown }).promptSuggestionEnabled !== false,
  };
  // A fallback the loop would never switch to (it falls back only to another model) is said.
  if (config.fallbackModel && config.fallbackModel === config.defaultModel)
    warnings.push(
      `--fallback-model ${o.fallbackModel} is the main model (${config.defaultModel}): it will not be used`,
    );
  return { config, warnings };
}

/** --teammate-timeout, else AGENT_TEAMMATE_TIMEOUT_MS (a bad value is told and the default used). */
function teammateTimeout(o: CliOptions, env: NodeJS.ProcessEnv, warnings: string[]): number | undefined {
  if (o.teammateTimeoutMs !== undefined) return o.teammateTimeoutMs;
  const value = env.AGENT_TEAMMATE_TIMEOUT_MS;
  if (value === undefined || value === '') return undefined;
  const ms = parseDuration(value);
  if (ms === undefined)
    warnings.push(`AGENT_TEAMMATE_TIMEOUT_MS="${value}" is not a duration; the default (10 minutes) is used`);
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
