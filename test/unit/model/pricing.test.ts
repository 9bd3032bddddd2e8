import { describe, expect, it } from 'vitest';
import {
  contextWindow,
  costUSD,
  DEFAULT_MODEL,
  EFFORT_LEVELS,
  knownModel,
  maxOutputTokens,
  modelFacts,
  modelPrices,
  parseModelId,
  retiredModelReplacement,
} from '../../../src/loop/pricing.js';
import { UsageAccumulator, modelUsageSchema, usageTotalsSchema } from '../../../src/loop/usage.js';

// The rows below are pinned to figures measured from the reference CLI (Claude Code 2.1.330) against
// the fake API: total_cost_usd for 10,000 tokens of one kind, modelUsage.contextWindow /
// maxOutputTokens, and the first request's max_tokens / thinking / effort (docs/models.md).
describe('pricing: the model table, pinned to the reference', () => {
  it.each([
    // id, row, input, output, cache write, cache read (USD per million tokens)
    ['claude-opus-5-5', 'claude-opus-5-5', 4, 20, 5, 0.2],
    ['opus', 'claude-opus-5-5', 4, 20, 5, 0.2],
    ['claude-sonnet-5-5', 'claude-sonnet-5-5', 2, 10, 2.5, 0.1],
    ['claude-haiku-5-5', 'claude-haiku-5-5', 0.1, 0.5, 0.125, 0.01],
    ['claude-fable-5-2', 'claude-fable-5-2', 8, 40, 10, 0.2],
    ['claude-fable-5', 'claude-fable-5', 10, 50, 12.5, 1],
    ['claude-opus-4-6', 'claude-opus-4-6', 5, 25, 6.25, 0.5],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5', 3, 15, 3.75, 0.3],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5', 3, 15, 3.75, 0.3],
    ['claude-3-7-sonnet-20250219', 'claude-3-7-sonnet', 3, 15, 3.75, 0.3],
  ])('%s → %s ($%s / $%s / $%s / $%s)', (model, row, input, output, cacheWrite5m, cacheRead) => {
    expect(modelFacts(model).name).toBe(row);
    expect(modelPrices(model)).toEqual({ input, output, cacheWrite5m, cacheRead });
  });

  it("an id the table does not know gets the default model's prices, a 1M window and 32k max_tokens", () => {
    for (const id of ['claude-unknown-9', 'claude-opus-9-9', 'gpt-5', '']) {
      expect(knownModel(id)).toBeUndefined();
      expect(modelFacts(id)).toMatchObject({ prices: modelPrices(DEFAULT_MODEL), contextWindow: 1_000_000 });
      expect(modelFacts(id)).toMatchObject({
        maxOutputTokens: 32_000,
        maxOutputCeiling: 128_000,
        thinking: 'adaptive',
      });
    }
    // The reference knows these models' sizes but has no price for them.
    expect(modelFacts('claude-3-opus-20240229')).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 4096 });
    expect(costUSD('claude-3-opus-20240229', { input_tokens: 10_000 })).toBeCloseTo(0.04, 10);
  });

  it('the default model for an API-key user is claude-opus-5-5', () => {
    expect(DEFAULT_MODEL).toBe('claude-opus-5-5');
  });

  it('a dated id is not mistaken for a minor version', () => {
    expect(parseModelId('claude-opus-4-20250514')).toEqual({ family: 'opus', version: 4 });
    expect(parseModelId('claude-opus-4-1-20250805')).toEqual({ family: 'opus', version: 4.1 });
    expect(parseModelId('claude-3-5-haiku-20241022')).toEqual({ family: 'haiku', version: 3.5 });
    expect(parseModelId('claude-fable-5-2')).toEqual({ family: 'fable', version: 5.2 });
    expect(parseModelId('opus')).toEqual({ family: 'opus', version: Infinity });
    expect(parseModelId('mystery')).toBeNull();
  });

  it('retired Opus 4 / 4.1 ids run as claude-opus-5-5', () => {
    expect(retiredModelReplacement('claude-opus-4-1')).toBe('claude-opus-5-5');
    expect(retiredModelReplacement('claude-opus-4-20250514')).toBe('claude-opus-5-5');
    expect(retiredModelReplacement('claude-opus-4-5')).toBeUndefined();
  });

  it('costUSD prices every kind of token, and web searches', () => {
    const all = {
      input_tokens: 1e6,
      output_tokens: 1e6,
      cache_read_input_tokens: 1e6,
      cache_creation_input_tokens: 1e6,
    };
    expect(costUSD('claude-sonnet-4-5', all)).toBeCloseTo(3 + 15 + 0.3 + 3.75, 10);
    // The example: 2,500 input and 500 output tokens on claude-sonnet-5-5 cost $0.010.
    expect(costUSD('claude-sonnet-5-5', { input_tokens: 2500, output_tokens: 500 })).toBeCloseTo(0.01, 10);
    expect(costUSD('sonnet', { web_search_requests: 3 })).toBeCloseTo(0.03, 10);
    expect(costUSD('sonnet', {})).toBe(0);
  });

  it('Haiku 5.5: a call whose prompt is over 100k tokens is priced at the long-prompt rates, every token of it', () => {
    // Measured: 100,000 input tokens $0.01; 100,001 $0.0500005; 60k input + 50k cache read $0.0325;
    // 200k input + 10k output $0.125.
    expect(costUSD('haiku', { input_tokens: 100_000 })).toBeCloseTo(0.01, 12);
    expect(costUSD('haiku', { input_tokens: 100_001 })).toBeCloseTo(0.0500005, 12);
    expect(costUSD('haiku', { input_tokens: 60_000, cache_read_input_tokens: 50_000 })).toBeCloseTo(0.0325, 12);
    expect(costUSD('haiku', { input_tokens: 200_000, output_tokens: 10_000 })).toBeCloseTo(0.125, 12);
    expect(costUSD('haiku', { input_tokens: 10, output_tokens: 1_000_000 })).toBeCloseTo(0.500001, 12);
  });

  it('context windows and max_tokens as the reference reports them', () => {
    expect(contextWindow('claude-opus-5-5')).toBe(1_000_000);
    expect(contextWindow('claude-sonnet-5-5')).toBe(1_000_000);
    expect(contextWindow('claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(contextWindow('claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(maxOutputTokens('claude-opus-5-5')).toBe(128_000);
    expect(maxOutputTokens('claude-opus-5')).toBe(64_000);
    expect(maxOutputTokens('claude-sonnet-4-5')).toBe(32_000);
    expect(modelFacts('claude-sonnet-4-5').maxOutputCeiling).toBe(64_000);
  });

  it('which models take adaptive thinking and which effort levels', () => {
    expect(modelFacts('claude-sonnet-5-5')).toMatchObject({ thinking: 'adaptive', effortLevels: [...EFFORT_LEVELS] });
    expect(modelFacts('claude-opus-4-6').effortLevels).toEqual(['low', 'medium', 'high', 'max']);
    expect(modelFacts('claude-opus-4-5')).toMatchObject({
      thinking: 'budget',
      effortLevels: ['low', 'medium', 'high'],
    });
    expect(modelFacts('claude-haiku-4-5')).toMatchObject({ thinking: 'budget', effortLevels: [] });
    expect(modelFacts('claude-3-5-sonnet-20241022')).toMatchObject({ thinking: 'none', effortLevels: [] });
  });
});

describe('usage accumulator', () => {
  it('sums usage per model, with cache tokens and cost, across turns', () => {
    const acc = new UsageAccumulator();
    const c1 = acc.addUsage('claude-sonnet-4-5-20250929', {
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
    });
    expect(c1).toBeCloseTo((100 * 3 + 50 * 15 + 1000 * 0.3 + 200 * 3.75) / 1e6, 12);
    acc.add('claude-sonnet-4-5-20250929', { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: null });
    acc.addUsage('claude-haiku-4-5-20251001', {
      input_tokens: 1000,
      output_tokens: 100,
      server_tool_use: { web_search_requests: 2 },
    });

    expect(acc.totals()).toEqual({
      input_tokens: 1110,
      output_tokens: 155,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
    });
    const mu = acc.modelUsage();
    expect(modelUsageSchema.parse(mu)).toEqual(mu);
    expect(usageTotalsSchema.parse(acc.totals())).toEqual(acc.totals());
    expect(mu['claude-sonnet-4-5-20250929']).toMatchObject({
      inputTokens: 110,
      outputTokens: 55,
      cacheReadInputTokens: 1000,
      cacheCreationInputTokens: 200,
      webSearchRequests: 0,
      contextWindow: 200_000,
      maxOutputTokens: 32_000,
    });
    expect(mu['claude-sonnet-4-5-20250929'].costUSD).toBeCloseTo(
      (110 * 3 + 55 * 15 + 1000 * 0.3 + 200 * 3.75) / 1e6,
      12,
    );
    expect(mu['claude-haiku-4-5-20251001']).toMatchObject({
      inputTokens: 1000,
      outputTokens: 100,
      webSearchRequests: 2,
    });
    expect(mu['claude-haiku-4-5-20251001'].costUSD).toBeCloseTo((1000 * 1 + 100 * 5) / 1e6 + 0.02, 12);
    expect(acc.totalCostUSD).toBeCloseTo(
      mu['claude-sonnet-4-5-20250929'].costUSD + mu['claude-haiku-4-5-20251001'].costUSD,
      12,
    );
  });

  it("merges a subagent's accumulator into the parent's", () => {
    const parent = new UsageAccumulator();
    parent.addUsage('sonnet', { input_tokens: 10, output_tokens: 1 });
    const child = new UsageAccumulator();
    child.addUsage('sonnet', { input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 7 });
    child.addUsage('haiku', { input_tokens: 3, output_tokens: 3 });
    const before = parent.totalCostUSD + child.totalCostUSD;
    parent.merge(child);
    expect(parent.totals()).toEqual({
      input_tokens: 18,
      output_tokens: 6,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 7,
    });
    expect(Object.keys(parent.modelUsage()).sort()).toEqual(['haiku', 'sonnet']);
    expect(parent.totalCostUSD).toBeCloseTo(before, 12);
    // The child is untouched, and a plain modelUsage record merges too.
    expect(child.totals().input_tokens).toBe(8);
    const other = new UsageAccumulator().merge(child.modelUsage());
    expect(other.modelUsage()).toEqual(child.modelUsage());
  });

  it('modelUsage() is a copy', () => {
    const acc = new UsageAccumulator();
    acc.addUsage('opus', { input_tokens: 1 });
    acc.modelUsage().opus.inputTokens = 999;
    expect(acc.modelUsage().opus.inputTokens).toBe(1);
  });
});
