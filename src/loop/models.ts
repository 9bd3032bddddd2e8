// Model aliases a person or host may use, resolved to the ids the Messages API takes, and the list
// a host offers its user (initialize's `models`, the SDK's supportedModels()). The aliases and
// their order are the reference's (measured: docs/models.md); the descriptions are our own words.
import {
  CONTEXT_1M_BETA,
  DEFAULT_MODEL,
  knownModel,
  modelFacts,
  ONE_M_SUFFIX,
  retiredModelReplacement,
  type ModelPrices,
} from './pricing.js';
import { aliasOverride } from './providers/features.js';
import { apiProviderFromEnv, type ApiProvider } from './providers/select.js';

const ALIASES: Record<string, string> = {
  default: DEFAULT_MODEL,
  opus: 'claude-opus-5-5',
  best: 'claude-opus-5-5',
  fable: 'claude-fable-5-2',
  sonnet: 'claude-sonnet-5-5',
  haiku: 'claude-haiku-5-5',
};

/**
 * Where a cloud provider's aliases differ from the Anthropic API's: what the reference sends for
 * each (measured: `-p hi` with no `--model` and with each alias, reading the request's model, or
 * the Bedrock/Vertex URL's model id). Bedrock sends them as its own ids (bedrockIds.ts). `best`
 * follows `opus` (not measured).
 */
const PROVIDER_ALIASES: Record<ApiProvider, Record<string, string>> = {
  firstParty: {},
  bedrock: { sonnet: 'claude-sonnet-4-5-20250929', haiku: 'claude-haiku-4-5-20251001' },
  vertex: { sonnet: 'claude-sonnet-4-5@20250929', haiku: 'claude-haiku-4-5@20251001' },
  foundry: {
    default: 'claude-sonnet-4-5',
    opus: 'claude-opus-4-6',
    best: 'claude-opus-4-6',
    sonnet: 'claude-sonnet-4-5',
    haiku: 'claude-haiku-4-5',
  },
};

/**
 * An alias's model for the provider the session talks to (the environment's): its
 * ANTHROPIC_DEFAULT_*_MODEL when set, else the provider's id, else the Anthropic API's.
 */
function aliasModel(alias: string, provider: ApiProvider, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!Object.hasOwn(ALIASES, alias)) return undefined;
  return aliasOverride(alias, provider, env) ?? PROVIDER_ALIASES[provider][alias] ?? ALIASES[alias];
}

/**
 * The session's model for a model a person or host named: an alias's model, a retired model's
 * replacement, else the id as given. `[1m]` stays on an id whose model has a smaller window (it
 * asks for the 1M one); on an alias it goes, since the aliases' models have a 1M window already.
 */
export function resolveModel(
  model: string,
  provider: ApiProvider = apiProviderFromEnv(),
  env: NodeJS.ProcessEnv = process.env,
): string {
  const wide = ONE_M_SUFFIX.test(model);
  const bare = model.replace(ONE_M_SUFFIX, '');
  const id = aliasModel(bare.toLowerCase(), provider, env) ?? retiredModelReplacement(bare) ?? bare;
  return wide && modelFacts(id).contextWindow < 1_000_000 && knownModel(id) ? `${id}[1m]` : id;
}

/** What a model name is read against where it is given. */
export interface ModelScope {
  /** The session's default (SessionConfig.defaultModel: --model, else ANTHROPIC_MODEL, else the built-in). */
  sessionDefault: string;
  /** What `inherit` means here (a subagent: its parent's model now); where nothing is inherited, the session default. */
  inherited?: string;
  /** The environment the aliases read (their provider, ANTHROPIC_DEFAULT_*_MODEL); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The model rule, written once: the model for a name a person, a host or a definition gave
 * (set_model, /model, a subagent's, a skill's, a command's or `--agent`'s `model`). None or
 * `default` is the session's default, never the built-in one, so ANTHROPIC_MODEL and --model hold
 * everywhere; `inherit` is the scope's inherited model; an alias or an id goes through resolveModel.
 */
export function chooseModel(requested: string | undefined, scope: ModelScope): string {
  if (!requested || requested.toLowerCase() === 'default') return scope.sessionDefault;
  if (requested === 'inherit') return scope.inherited ?? scope.sessionDefault;
  const env = scope.env ?? process.env;
  return resolveModel(requested, apiProviderFromEnv(env), env);
}

/**
 * The model rule for an override of the model a turn already runs on (a command's or a skill's
 * `model`): as chooseModel, but none and `inherit` are no override at all (undefined), so the
 * session's model, even one set_model changes mid-turn, goes on answering.
 */
export function chooseOverride(requested: string | undefined, scope: ModelScope): string | undefined {
  return !requested || requested === 'inherit' ? undefined : chooseModel(requested, scope);
}

/** What a request sends for the session's model: the id without `[1m]`, and the beta that asks for the 1M window. */
export function apiModel(model: string): { id: string; betas: string[] } {
  return ONE_M_SUFFIX.test(model)
    ? { id: model.replace(ONE_M_SUFFIX, ''), betas: [CONTEXT_1M_BETA] }
    : { id: model, betas: [] };
}

/** The choices a host shows, in the reference's order. */
const CHOICES: Array<{ value: string; blurb: string }> = [
  { value: 'default', blurb: '' },
  { value: 'opus', blurb: 'strong all-round model for complex work' },
  { value: 'fable', blurb: 'the most capable, for the hardest and longest tasks' },
  { value: 'sonnet', blurb: 'fast and economical for everyday tasks' },
  { value: 'haiku', blurb: 'the quickest and cheapest, for simple questions' },
];

export interface ModelChoice {
  value: string;
  resolvedModel: string;
  displayName: string;
  description: string;
  supportsEffort: boolean;
  supportedEffortLevels: string[];
  supportsAdaptiveThinking: boolean;
}

/** The models a host may offer its user: the session's default and each alias. */
export function modelChoices(sessionDefault: string, provider: ApiProvider = apiProviderFromEnv()): ModelChoice[] {
  return CHOICES.map(({ value, blurb }) => {
    const id = value === 'default' ? sessionDefault : aliasModel(value, provider)!;
    const facts = modelFacts(id);
    const name = displayName(id);
    const price = knownModel(id) ? ` · ${priceText(facts.prices)}` : '';
    const longPrompt = facts.longPrompt
      ? ` (${priceText(facts.longPrompt.prices, false)} above ${facts.longPrompt.above / 1000}k prompt tokens)`
      : '';
    return {
      value,
      resolvedModel: id,
      displayName: value === 'default' ? 'Default' : title(value),
      description:
        value === 'default'
          ? `The session's default model: ${name}${price}${longPrompt}`
          : `${name}: ${blurb}${price}${longPrompt}`,
      supportsEffort: facts.effortLevels.length > 0,
      supportedEffortLevels: [...facts.effortLevels],
      supportsAdaptiveThinking: facts.adaptiveThinking,
    };
  });
}

function title(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

/** "Opus 5.5" for claude-opus-5-5; the id itself for one the table does not know. */
function displayName(id: string): string {
  const m = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?$/.exec(id);
  return m ? `${title(m[1])} ${m[2]}${m[3] ? `.${m[3]}` : ''}` : id;
}

function usd(n: number): string {
  return Number.isInteger(n) ? `$${n}` : `$${n.toFixed(2)}`;
}

function priceText(p: ModelPrices, unit = true): string {
  return `${usd(p.input)}/${usd(p.output)}${unit ? ' per million input/output tokens' : ''}`;
}

/** The model for quick side work (WebFetch reading a page): ANTHROPIC_SMALL_FAST_MODEL, else haiku's. */
export function smallFastModel(env: NodeJS.ProcessEnv = process.env): string {
  return env.ANTHROPIC_SMALL_FAST_MODEL?.trim() || resolveModel('haiku', apiProviderFromEnv(env), env);
}
