// THE per-model table: prices in USD per million tokens, and the facts a request needs (the
// max_tokens ceiling, the context window, whether the model takes adaptive thinking, which effort
// levels it accepts).
//
// Source: Anthropic's published pricing (platform.claude.com/docs/en/about-claude/pricing, "Model
// pricing" and "Prompt caching"): Opus 4.5+ $5/$25, Opus 4/4.1 $15/$75, Sonnet 3.7/4.x $3/$15,
// Haiku 4.5 $1/$5, Haiku 3.5 $0.80/$4, Haiku 3 $0.25/$1.25. Cache reads cost 0.1× input and 5-minute
// cache writes 1.25× input. Long-context (>200k input) surcharges and 1-hour cache writes are not
// modelled. Web search is $10 per 1,000 requests.
//
// An unknown model is priced like Sonnet: the middle of the range, so a budget neither trips
// absurdly early nor runs away.

export type ModelFamily = 'opus' | 'sonnet' | 'haiku';

export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
}

export interface ModelFacts {
  /** A stable name for the price row, e.g. "opus-4.5". */
  name: string;
  family: ModelFamily;
  /** The row applies to versions >= this (within its family), up to the next row. */
  minVersion: number;
  prices: ModelPrices;
  /** The ceiling for `max_tokens`; also what we send when nothing asks for less. */
  maxOutputTokens: number;
  /** `thinking: {type: "adaptive"}` is accepted (and is the default); else only a fixed budget. */
  adaptiveThinking: boolean;
  /** The `output_config.effort` levels accepted, lowest first; empty: the model takes no effort. */
  effortLevels: readonly EffortLevel[];
}

export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];
const ALL_EFFORTS = EFFORT_LEVELS;
const EFFORTS_4_6: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
const EFFORTS_4_5: readonly EffortLevel[] = ['low', 'medium', 'high'];
const NONE: readonly EffortLevel[] = [];

function prices(input: number, output: number): ModelPrices {
  return { input, output, cacheRead: round(input * 0.1), cacheWrite5m: round(input * 1.25) };
}
function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** THE price table. Within a family, rows are ordered newest first. */
export const MODEL_TABLE: readonly ModelFacts[] = [
  row('opus-5', 'opus', 5, prices(5, 25), 128_000, true, ALL_EFFORTS),
  row('opus-4.6', 'opus', 4.6, prices(5, 25), 128_000, true, EFFORTS_4_6),
  row('opus-4.5', 'opus', 4.5, prices(5, 25), 64_000, false, EFFORTS_4_5),
  row('opus-4', 'opus', 4, prices(15, 75), 32_000, false, NONE),
  row('opus-3', 'opus', 0, prices(15, 75), 4_096, false, NONE),
  row('sonnet-5', 'sonnet', 5, prices(3, 15), 128_000, true, ALL_EFFORTS),
  row('sonnet-4.6', 'sonnet', 4.6, prices(3, 15), 64_000, true, EFFORTS_4_6),
  row('sonnet-4', 'sonnet', 4, prices(3, 15), 64_000, false, NONE),
  row('sonnet-3.7', 'sonnet', 3.7, prices(3, 15), 64_000, false, NONE),
  row('sonnet-3', 'sonnet', 0, prices(3, 15), 8_192, false, NONE),
  row('haiku-5', 'haiku', 5, prices(1, 5), 64_000, true, NONE),
  row('haiku-4.5', 'haiku', 4.5, prices(1, 5), 64_000, false, NONE),
  row('haiku-3.5', 'haiku', 3.5, prices(0.8, 4), 8_192, false, NONE),
  row('haiku-3', 'haiku', 0, prices(0.25, 1.25), 4_096, false, NONE),
];

function row(
  name: string,
  family: ModelFamily,
  minVersion: number,
  p: ModelPrices,
  maxOutputTokens: number,
  adaptiveThinking: boolean,
  effortLevels: readonly EffortLevel[],
): ModelFacts {
  return { name, family, minVersion, prices: p, maxOutputTokens, adaptiveThinking, effortLevels };
}

export const WEB_SEARCH_USD_PER_REQUEST = 0.01;
export const DEFAULT_CONTEXT_WINDOW = 200_000;

// An unknown model: priced like Sonnet, and sent nothing it might refuse (no adaptive thinking,
// no effort).
const FALLBACK = MODEL_TABLE.find((r) => r.name === 'sonnet-4')!;

/**
 * The family and version named by a model id. Handles `claude-sonnet-4-5-20250929`,
 * `claude-opus-4-20250514` (the date is not a minor version), `claude-3-5-haiku-20241022`,
 * provider ids like `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, and bare aliases
 * (`opus`, `sonnet[1m]`), which mean the newest of their family (version Infinity).
 */
export function parseModelId(model: string): { family: ModelFamily; version: number } | null {
  const s = model.toLowerCase();
  const family = /(opus|sonnet|haiku)/.exec(s)?.[1] as ModelFamily | undefined;
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

/** The price row for a model id; unknown models get the Sonnet row. */
export function modelFacts(model: string): ModelFacts {
  const parsed = parseModelId(model);
  if (!parsed) return FALLBACK;
  return MODEL_TABLE.find((r) => r.family === parsed.family && parsed.version >= r.minVersion) ?? FALLBACK;
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

export function costUSD(model: string, usage: PricedUsage): number {
  const p = modelPrices(model);
  return (
    ((usage.input_tokens ?? 0) * p.input +
      (usage.output_tokens ?? 0) * p.output +
      (usage.cache_read_input_tokens ?? 0) * p.cacheRead +
      (usage.cache_creation_input_tokens ?? 0) * p.cacheWrite5m) /
      1_000_000 +
    (usage.web_search_requests ?? 0) * WEB_SEARCH_USD_PER_REQUEST
  );
}

/** The context window in tokens: 1M when the id asks for it (`sonnet[1m]`), else 200k. */
export function contextWindow(model: string): number {
  return /\[1m\]/i.test(model) ? 1_000_000 : DEFAULT_CONTEXT_WINDOW;
}

export function maxOutputTokens(model: string): number {
  return modelFacts(model).maxOutputTokens;
}
