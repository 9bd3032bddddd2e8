import { describe, expect, it } from 'vitest';
import {
  contextWindow,
  costUSD,
  maxOutputTokens,
  modelFacts,
  modelPrices,
  parseModelId,
} from '../../../src/loop/pricing.js';
import { UsageAccumulator, modelUsageSchema, usageTotalsSchema } from '../../../src/loop/usage.js';

describe('pricing: model id → price row', () => {
  it.each([
    ['claude-opus-4-5-20251101', 'opus-4.5', 5, 25],
    ['claude-opus-4-6', 'opus-4.6', 5, 25],
    ['claude-opus-5-5', 'opus-5', 5, 25],
    ['opus', 'opus-5', 5, 25],
    ['claude-opus-4-1-20250805', 'opus-4', 15, 75],
    ['claude-opus-4-20250514', 'opus-4', 15, 75],
    ['claude-3-opus-20240229', 'opus-3', 15, 75],
    ['claude-sonnet-4-5-20250929', 'sonnet-4', 3, 15],
    ['claude-sonnet-4-20250514', 'sonnet-4', 3, 15],
    ['sonnet', 'sonnet-5', 3, 15],
    ['sonnet[1m]', 'sonnet-5', 3, 15],
    ['claude-sonnet-4-6', 'sonnet-4.6', 3, 15],
    ['claude-3-7-sonnet-20250219', 'sonnet-3.7', 3, 15],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'sonnet-4', 3, 15],
    ['claude-haiku-4-5-20251001', 'haiku-4.5', 1, 5],
    ['haiku', 'haiku-5', 1, 5],
    ['claude-3-5-haiku-20241022', 'haiku-3.5', 0.8, 4],
    ['claude-3-haiku-20240307', 'haiku-3', 0.25, 1.25],
    ['gpt-something', 'sonnet-4', 3, 15],
    ['', 'sonnet-4', 3, 15],
  ])('%s → %s ($%s / $%s)', (model, row, input, output) => {
    expect(modelFacts(model).name).toBe(row);
    expect(modelPrices(model)).toMatchObject({ input, output });
  });

  it('a dated id is not mistaken for a minor version', () => {
    expect(parseModelId('claude-opus-4-20250514')).toEqual({ family: 'opus', version: 4 });
    expect(parseModelId('claude-opus-4-1-20250805')).toEqual({ family: 'opus', version: 4.1 });
    expect(parseModelId('claude-3-5-haiku-20241022')).toEqual({ family: 'haiku', version: 3.5 });
    expect(parseModelId('opus')).toEqual({ family: 'opus', version: Infinity });
    expect(parseModelId('mystery')).toBeNull();
  });

  it('cache reads cost 0.1× input and 5-minute cache writes 1.25× input', () => {
    for (const m of ['opus', 'claude-opus-4-1', 'sonnet', 'haiku', 'claude-3-5-haiku']) {
      const p = modelPrices(m);
      expect(p.cacheRead).toBeCloseTo(p.input * 0.1, 10);
      expect(p.cacheWrite5m).toBeCloseTo(p.input * 1.25, 10);
    }
  });

  it('costUSD prices every kind of token', () => {
    // sonnet: 1M input $3 + 1M output $15 + 1M cache read $0.30 + 1M cache write $3.75
    const all = {
      input_tokens: 1e6,
      output_tokens: 1e6,
      cache_read_input_tokens: 1e6,
      cache_creation_input_tokens: 1e6,
    };
    expect(costUSD('claude-sonnet-4-5', all)).toBeCloseTo(22.05, 10);
    expect(costUSD('claude-opus-4-5', { input_tokens: 1000, output_tokens: 500 })).toBeCloseTo(0.005 + 0.0125, 10);
    expect(costUSD('haiku', { cache_read_input_tokens: 2_000_000 })).toBeCloseTo(0.2, 10);
    expect(costUSD('sonnet', { web_search_requests: 3 })).toBeCloseTo(0.03, 10);
    expect(costUSD('sonnet', {})).toBe(0);
  });

  it('context window is 200k unless the id asks for 1M', () => {
    expect(contextWindow('claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(contextWindow('unknown')).toBe(200_000);
    expect(contextWindow('claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(maxOutputTokens('claude-opus-4-1')).toBe(32_000);
    expect(maxOutputTokens('sonnet')).toBe(128_000);
    expect(maxOutputTokens('claude-sonnet-4-5')).toBe(64_000);
  });

  it('the table says which models take adaptive thinking and which effort levels', () => {
    expect(modelFacts('claude-sonnet-5-5')).toMatchObject({ adaptiveThinking: true, maxOutputTokens: 128_000 });
    expect(modelFacts('claude-sonnet-5-5').effortLevels).toContain('xhigh');
    expect(modelFacts('claude-opus-4-6').effortLevels).toEqual(['low', 'medium', 'high', 'max']);
    expect(modelFacts('claude-opus-4-5').adaptiveThinking).toBe(false);
    expect(modelFacts('claude-haiku-4-5').effortLevels).toEqual([]);
    // An unknown model is sent nothing it might refuse.
    expect(modelFacts('mystery-model')).toMatchObject({ adaptiveThinking: false, effortLevels: [] });
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
      maxOutputTokens: 64_000,
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
