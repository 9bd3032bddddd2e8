// What a request asks of the model besides the conversation: `max_tokens`, `thinking` and
// `output_config.effort`, resolved for the model of this call from the session's settings and the
// per-model table (pricing.ts). Resolved per call, since set_model and set_max_thinking_tokens
// change them between turns.
import { EFFORT_LEVELS, modelFacts, type EffortLevel } from './pricing.js';

export type ThinkingMode = 'adaptive' | 'enabled' | 'disabled';

/** The session's wishes: --thinking, --max-thinking-tokens / set_max_thinking_tokens, --effort. */
export interface ReasoningSettings {
  thinking?: ThinkingMode;
  /** A fixed thinking budget; 0 turns thinking off. */
  maxThinkingTokens?: number;
  effort?: EffortLevel;
  /** max_tokens asked for (CLAUDE_CODE_MAX_OUTPUT_TOKENS), up to the model's ceiling; the model's default otherwise. */
  maxOutputTokens?: number;
}

export type ThinkingParam = { type: 'adaptive' } | { type: 'enabled'; budget_tokens: number };

export interface RequestOptions {
  maxTokens: number;
  thinking?: ThinkingParam;
  effort?: EffortLevel;
}

/** The API's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;
/** The budget of `--thinking enabled|adaptive` on a model that thinks only when asked. */
export const DEFAULT_THINKING_BUDGET = 16_000;
/** The effort sent when none is asked for and the model's row names none. */
export const DEFAULT_EFFORT: EffortLevel = 'medium';
/** Room for the answer on top of a fixed thinking budget. */
const ANSWER_ROOM = 4096;

export function resolveRequestOptions(model: string, s: ReasoningSettings = {}): RequestOptions {
  const facts = modelFacts(model);
  const ceiling = facts.maxOutputCeiling;
  let maxTokens = Math.min(
    s.maxOutputTokens && s.maxOutputTokens > 0 ? s.maxOutputTokens : facts.maxOutputTokens,
    ceiling,
  );
  const out: RequestOptions = { maxTokens };

  const off = s.thinking === 'disabled' || s.maxThinkingTokens === 0;
  if (!off) {
    const budget = s.maxThinkingTokens;
    if (facts.adaptiveThinking && !(s.thinking === 'enabled' && budget !== undefined)) {
      // On adaptive models a bare budget means "on" (the reference's reading of maxThinkingTokens);
      // only an explicit `--thinking enabled` with a budget asks for a fixed one.
      out.thinking = { type: 'adaptive' };
    } else if (facts.thinking !== 'none' || s.thinking !== undefined || budget !== undefined) {
      // A budget model thinks by default with all of max_tokens but one (what the reference sends).
      const fallback = facts.thinking === 'budget' ? maxTokens - 1 : DEFAULT_THINKING_BUDGET;
      let b = Math.max(MIN_THINKING_BUDGET, budget ?? fallback);
      // The API wants max_tokens above the budget.
      if (b >= maxTokens) maxTokens = Math.min(ceiling, b + ANSWER_ROOM);
      if (b >= maxTokens) b = maxTokens - 1;
      out.maxTokens = maxTokens;
      if (b >= MIN_THINKING_BUDGET) out.thinking = { type: 'enabled', budget_tokens: b };
    }
  }

  out.effort = clampEffort(s.effort ?? facts.defaultEffort ?? DEFAULT_EFFORT, facts.effortLevels);
  if (out.effort === undefined) delete out.effort;
  return out;
}

/** The highest level the model takes that is not above the one asked for. */
export function clampEffort(wanted: EffortLevel, levels: readonly EffortLevel[]): EffortLevel | undefined {
  if (levels.length === 0) return undefined;
  const rank = EFFORT_LEVELS.indexOf(wanted);
  let best: EffortLevel | undefined;
  for (const l of levels) if (EFFORT_LEVELS.indexOf(l) <= rank) best = l;
  return best ?? levels[0];
}
