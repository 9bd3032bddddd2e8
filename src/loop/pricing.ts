// THE per-model table: prices in USD per million tokens, the context window, the `max_tokens`
// ceiling, whether the model takes adaptive thinking and which effort levels it accepts.
//
// Every figure is the reference CLI's own (Claude Code 2.1.330, the native binary the official SDK
// ships), measured against the fake API; docs/models.md has the method and the raw figures:
// - prices: one `-p` run per kind of token with a scripted `usage` (10,000 input, output, cache-write
//   or cache-read tokens alone), reading the result's `total_cost_usd`; 1,000,000 and 100,000 /
//   100,001 input tokens find a long-prompt tier (only Haiku 5.5 has one);
// - context window and `max_tokens` ceiling: the result's `modelUsage.<id>.contextWindow` /
//   `maxOutputTokens`, and the first request's `max_tokens`;
// - adaptive thinking and effort levels: the first request's `thinking` and `output_config.effort`
//   (run with `--effort max` and `--effort xhigh` to see what a model is clamped to), and for the
//   aliases `supportedModels()`'s `supportsAdaptiveThinking` / `supportedEffortLevels`;
// - web search: a reply with `usage.server_tool_use.web_search_requests`.
// An id the table does not know is priced and sized like the default model (the reference's
// `costBasis: "unknown"`: "a guess at the default model's rate").

export type ModelFamily = 'opus' | 'sonnet' | 'haiku' | 'fable';

export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
}

export interface ModelFacts {
  /** The canonical id, e.g. "claude-opus-5-5" (what the reference reports as `canonicalModel`). */
  name: string;
  /** Absent on the row of an unknown model. */
  family?: ModelFamily;
  /** major + minor / 10: 5.5 for claude-opus-5-5, 4 for claude-opus-4-20250514. */
  version: number;
  prices: ModelPrices;
  /** Every token of a call whose prompt (input + cache read + cache write) is above `above` costs `prices`. */
  longPrompt?: { above: number; prices: ModelPrices };
  contextWindow: number;
  /** The `max_tokens` sent when nothing asks otherwise (what modelUsage reports as maxOutputTokens). */
  maxOutputTokens: number;
  /** The most CLAUDE_CODE_MAX_OUTPUT_TOKENS can raise `max_tokens` to. */
  maxOutputCeiling: number;
  thinking: ThinkingKind;
  /** `thinking: {type: "adaptive"}` is accepted (and is the default); else only a fixed budget. */
  adaptiveThinking: boolean;
  /** The `output_config.effort` levels accepted, lowest first; empty: the model takes no effort. */
  effortLevels: readonly EffortLevel[];
  /** The effort sent when none is asked for. */
  defaultEffort?: EffortLevel;
}

export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];
const ALL: readonly EffortLevel[] = EFFORT_LEVELS;
const EFFORTS_4_6: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
const EFFORTS_4_5: readonly EffortLevel[] = ['low', 'medium', 'high'];
const NONE: readonly EffortLevel[] = [];

/** How a model thinks when nothing asks otherwise. */
export type ThinkingKind =
  /** `thinking: {type: "adaptive"}`: the model decides how much. */
  | 'adaptive'
  /** A fixed `budget_tokens`, one below max_tokens. */
  | 'budget'
  /** No thinking is sent unless asked for. */
  | 'none';

/** input, output, cache write (5 min), cache read: USD per million tokens. */
function p(input: number, output: number, cacheWrite5m: number, cacheRead: number): ModelPrices {
  return { input, output, cacheWrite5m, cacheRead };
}

type Row = Omit<ModelFacts, 'family' | 'version'>;
function row(
  name: string,
  prices: ModelPrices,
  contextWindow: number,
  [maxOutputTokens, maxOutputCeiling]: [number, number],
  thinking: ThinkingKind,
  effortLevels: readonly EffortLevel[],
  defaultEffort?: EffortLevel,
  longPrompt?: ModelFacts['longPrompt'],
): Row {
  return {
    name,
    prices,
    contextWindow,
    maxOutputTokens,
    maxOutputCeiling,
    thinking,
    adaptiveThinking: thinking === 'adaptive',
    effortLevels,
    ...(defaultEffort ? { defaultEffort } : {}),
    ...(longPrompt ? { longPrompt } : {}),
  };
}

const K = 1000;
const M = 1_000_000;
/** The default model's prices: what the reference charges for a model it has no price for. */
const UNPRICED = p(4, 20, 5, 0.2);

/** THE table, measured from the reference (see the comment above and docs/models.md). Newest first within a family. */
// biome-ignore format: the table reads as columns
export const MODEL_TABLE: readonly ModelFacts[] = [
  //   id                   input out  write  read    window   max_tokens [default, ceiling] thinking  efforts  default effort
  row('claude-fable-5-2',  p(8, 40, 10, 0.2),      M,       [128 * K, 128 * K], 'adaptive', ALL, 'medium'),
  row('claude-fable-5-1',  p(10, 50, 12.5, 0.25),  M,       [64 * K, 128 * K],  'adaptive', ALL, 'high'),
  row('claude-fable-5',    p(10, 50, 12.5, 1),     M,       [64 * K, 128 * K],  'adaptive', ALL, 'high'),
  row('claude-opus-5-5',   p(4, 20, 5, 0.2),       M,       [128 * K, 128 * K], 'adaptive', ALL, 'medium'),
  row('claude-opus-5',     p(5, 25, 6.25, 0.5),    M,       [64 * K, 128 * K],  'adaptive', ALL, 'high'),
  row('claude-opus-4-8',   p(5, 25, 6.25, 0.5),    M,       [64 * K, 128 * K],  'adaptive', ALL, 'high'),
  row('claude-opus-4-7',   p(5, 25, 6.25, 0.5),    M,       [64 * K, 128 * K],  'adaptive', ALL, 'xhigh'),
  row('claude-opus-4-6',   p(5, 25, 6.25, 0.5),    200 * K, [64 * K, 128 * K],  'adaptive', EFFORTS_4_6, 'high'),
  row('claude-opus-4-5',   p(5, 25, 6.25, 0.5),    200 * K, [32 * K, 64 * K],   'budget', EFFORTS_4_5, 'high'),
  // The reference has no price for it (costBasis "unknown"), so charges the default model's.
  row('claude-3-opus',     UNPRICED,               200 * K, [4096, 4096],       'none', NONE),
  row('claude-sonnet-5-5', p(2, 10, 2.5, 0.1),     M,       [128 * K, 128 * K], 'adaptive', ALL, 'medium'),
  row('claude-sonnet-5',   p(2, 10, 2.5, 0.2),     M,       [64 * K, 128 * K],  'adaptive', ALL, 'high'),
  row('claude-sonnet-4-6', p(3, 15, 3.75, 0.3),    200 * K, [32 * K, 128 * K],  'adaptive', EFFORTS_4_6, 'high'),
  row('claude-sonnet-4-5', p(3, 15, 3.75, 0.3),    200 * K, [32 * K, 64 * K],   'budget', NONE),
  row('claude-sonnet-4-0', p(3, 15, 3.75, 0.3),    200 * K, [32 * K, 64 * K],   'budget', NONE),
  row('claude-3-7-sonnet', p(3, 15, 3.75, 0.3),    200 * K, [32 * K, 64 * K],   'none', NONE),
  row('claude-3-5-sonnet', p(3, 15, 3.75, 0.3),    200 * K, [8192, 8192],       'none', NONE),
  // Above 100k prompt tokens (input + cache read + cache write) in a call, every token of it costs the second price list.
  row('claude-haiku-5-5',  p(0.1, 0.5, 0.125, 0.01), M,     [128 * K, 128 * K], 'adaptive', ALL, 'medium',
    { above: 100 * K, prices: p(0.5, 2.5, 0.625, 0.05) }),
  row('claude-haiku-4-5',  p(1, 5, 1.25, 0.1),     200 * K, [32 * K, 64 * K],   'budget', NONE),
  row('claude-3-5-haiku',  p(0.8, 4, 1, 0.08),     200 * K, [8192, 8192],       'none', NONE),
  // Not priced by the reference either (costBasis "unknown").
  row('claude-3-haiku',    UNPRICED,               200 * K, [4096, 4096],       'none', NONE),
].map((r) => ({ ...r, ...parseModelId(r.name)! }));

/**
 * Retired models the reference sends as another (measured: `--model claude-opus-4-1` and
 * `claude-opus-4-20250514` send `claude-opus-5-5` and report usage under it): family, version → id.
 */
const RETIRED: ReadonlyArray<{ family: ModelFamily; version: number; to: string }> = [
  { family: 'opus', version: 4.1, to: 'claude-opus-5-5' },
  { family: 'opus', version: 4, to: 'claude-opus-5-5' },
];

/** The id a retired model is sent as, or undefined for a model that is not retired. */
export function retiredModelReplacement(model: string): string | undefined {
  const parsed = parseModelId(model);
  return parsed ? RETIRED.find((r) => r.family === parsed.family && r.version === parsed.version)?.to : undefined;
}

/** What the reference uses with no --model for an API-key user. */
export const DEFAULT_MODEL = 'claude-opus-5-5';

export const WEB_SEARCH_USD_PER_REQUEST = 0.01;

/** `claude-sonnet-4-5[1m]`: the model with a 1M context window. */
export const ONE_M_SUFFIX = /\[1m\]$/i;
/** The beta header the reference sends for a `[1m]` id (measured). */
export const CONTEXT_1M_BETA = 'context-1m-2025-08-07';

/**
 * What an id the table does not know gets (measured with claude-unknown-9, claude-opus-9-9, gpt-5):
 * the default model's prices, a 1M window, max_tokens 32k (up to 128k), adaptive thinking, every effort.
 */
export const UNKNOWN_MODEL: ModelFacts = {
  ...row('unknown', UNPRICED, M, [32 * K, 128 * K], 'adaptive', ALL, 'high'),
  version: Number.NaN,
};

/**
 * The family and version named by a model id. Handles `claude-sonnet-4-5-20250929`,
 * `claude-opus-4-20250514` (the date is not a minor version), `claude-3-5-haiku-20241022`,
 * provider ids like `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, and bare aliases
 * (`opus`, `sonnet[1m]`), which mean the newest of their family (version Infinity).
 */
export function parseModelId(model: string): { family: ModelFamily; version: number } | null {
  const s = model.toLowerCase();
  const family = /(opus|sonnet|haiku|fable)/.exec(s)?.[1] as ModelFamily | undefined;
  if (!family) return null;
  // New style: family-MAJOR[-MINOR]; a MINOR must be 1–2 digits and not the start of a date.
  const newer = new RegExp(`${family}-(\\d{1,2})(?:[-.](\\d{1,2})(?!\\d))?(?!\\d)`).exec(s);
  // Old style: claude-MAJOR[-MINOR]-family.
  const older = newer ? null : new RegExp(`(?<!\\d)(\\d{1,2})(?:[-.](\\d{1,2}))?-${family}`).exec(s);
  const m = newer ?? older;
  if (!m) return { family, version: Infinity };
  const major = Number(m[1]);
  const minor = m[2] === undefined ? 0 : Number(m[2]);
  return { family, version: major + minor / 10 };
}

/** The table's row for a model id, or undefined when the table does not know it. */
export function knownModel(model: string): ModelFacts | undefined {
  const parsed = parseModelId(model);
  if (!parsed) return undefined;
  const family = MODEL_TABLE.filter((r) => r.family === parsed.family);
  // A bare family name (an alias) is the newest of the family.
  if (parsed.version === Infinity) return family[0];
  return family.find((r) => r.version === parsed.version);
}

/** The row for a model id; an unknown id gets the default model's. */
export function modelFacts(model: string): ModelFacts {
  return knownModel(model) ?? UNKNOWN_MODEL;
}

export function modelPrices(model: string): ModelPrices {
  return modelFacts(model).prices;
}

export interface PricedUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  web_search_requests?: number | null;
}

/** The cost of one API call (a long-prompt tier applies per call, so sum calls, not usages). */
export function costUSD(model: string, usage: PricedUsage): number {
  const facts = modelFacts(model);
  const input = usage.input_tokens ?? 0;
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const p = facts.longPrompt && input + read + write > facts.longPrompt.above ? facts.longPrompt.prices : facts.prices;
  return (
    (input * p.input + (usage.output_tokens ?? 0) * p.output + read * p.cacheRead + write * p.cacheWrite5m) / M +
    (usage.web_search_requests ?? 0) * WEB_SEARCH_USD_PER_REQUEST
  );
}

/** The context window; `[1m]` on an id asks for a 1M window (the context-1m beta) on a model with less. */
export function contextWindow(model: string): number {
  return ONE_M_SUFFIX.test(model) ? Math.max(M, modelFacts(model).contextWindow) : modelFacts(model).contextWindow;
}

export function maxOutputTokens(model: string): number {
  return modelFacts(model).maxOutputTokens;
}
