// Token usage and cost, accumulated per model across turns. Each run keeps its own accumulator (its
// task row, its tool result); every call it counts is also recorded once in the session's
// SpendLedger (spendLedger.ts), which the budget and the results read.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { contextWindow, costUSD, maxOutputTokens } from './pricing.js';
import type { ApiUsage } from '../../tools/agentEvents.js';

export { apiUsageSchema, type ApiUsage } from '../../tools/agentEvents.js';

/** A result's `usage`: token totals of every call of a prompt (the protocol carries it as is). */
export const usageTotalsSchema = lazySchema(() =>
  z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_read_input_tokens: z.number(),
    cache_creation_input_tokens: z.number(),
  }),
);
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

/** One model's entry of a result's `modelUsage`. */
export const modelUsageEntrySchema = lazySchema(() =>
  z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadInputTokens: z.number(),
    cacheCreationInputTokens: z.number(),
    webSearchRequests: z.number(),
    costUSD: z.number(),
    contextWindow: z.number(),
    maxOutputTokens: z.number(),
  }),
);
export type ModelUsageEntry = z.infer<typeof modelUsageEntrySchema>;
export const modelUsageSchema = lazySchema(() => z.record(z.string(), modelUsageEntrySchema));
export type ModelUsage = z.infer<typeof modelUsageSchema>;

function emptyEntry(model: string): ModelUsageEntry {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD: 0,
    contextWindow: contextWindow(model),
    maxOutputTokens: maxOutputTokens(model),
  };
}

type Counts = Pick<
  ModelUsageEntry,
  'inputTokens' | 'outputTokens' | 'cacheReadInputTokens' | 'cacheCreationInputTokens' | 'webSearchRequests' | 'costUSD'
>;

/** Adds the counts of `o` to `e`, field by field. */
function addInto(e: ModelUsageEntry, o: Counts): void {
  e.inputTokens += o.inputTokens;
  e.outputTokens += o.outputTokens;
  e.cacheReadInputTokens += o.cacheReadInputTokens;
  e.cacheCreationInputTokens += o.cacheCreationInputTokens;
  e.webSearchRequests += o.webSearchRequests;
  e.costUSD += o.costUSD;
}

/** Where an accumulator also records each call it counts (the session's SpendLedger). */
export interface UsageSink {
  record(model: string, usage: ApiUsage | null | undefined): void;
}

export class UsageAccumulator {
  private readonly byModel = new Map<string, ModelUsageEntry>();

  /** `sink`: each call counted here is also recorded there, once (merges are not). */
  constructor(private readonly sink?: UsageSink) {}

  /** Count one API call's usage; returns that call's cost in USD. */
  addUsage(model: string, usage: ApiUsage | null | undefined): number {
    this.sink?.record(model, usage);
    const u = {
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
      web_search_requests: usage?.server_tool_use?.web_search_requests ?? 0,
    };
    const cost = costUSD(model, u);
    addInto(this.entry(model), {
      inputTokens: u.input_tokens,
      outputTokens: u.output_tokens,
      cacheReadInputTokens: u.cache_read_input_tokens,
      cacheCreationInputTokens: u.cache_creation_input_tokens,
      webSearchRequests: u.web_search_requests,
      costUSD: cost,
    });
    return cost;
  }

  /** Same as addUsage. */
  add(model: string, usage: ApiUsage | null | undefined): number {
    return this.addUsage(model, usage);
  }

  /**
   * Add another accumulator's counts into this one (a teammate's runs into its total). The other is
   * left as is, and the sink is not told: those calls were recorded when they were counted.
   */
  merge(other: UsageAccumulator | ModelUsage): this {
    const entries = other instanceof UsageAccumulator ? other.byModel : new Map(Object.entries(other));
    for (const [model, o] of entries) addInto(this.entry(model), o);
    return this;
  }

  totals(): UsageTotals {
    const t: UsageTotals = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    for (const e of this.byModel.values()) {
      t.input_tokens += e.inputTokens;
      t.output_tokens += e.outputTokens;
      t.cache_read_input_tokens += e.cacheReadInputTokens;
      t.cache_creation_input_tokens += e.cacheCreationInputTokens;
    }
    return t;
  }

  /** A copy, safe to serialise or hand out. */
  modelUsage(): ModelUsage {
    const out: ModelUsage = {};
    for (const [model, e] of this.byModel) out[model] = { ...e };
    return out;
  }

  get totalCostUSD(): number {
    let sum = 0;
    for (const e of this.byModel.values()) sum += e.costUSD;
    return sum;
  }

  private entry(model: string): ModelUsageEntry {
    let e = this.byModel.get(model);
    if (!e) this.byModel.set(model, (e = emptyEntry(model)));
    return e;
  }
}
