// max_tokens, thinking and effort per model (src/loop/requestOptions.ts over the table in pricing.ts).
import { describe, expect, it } from 'vitest';
import { clampEffort, resolveRequestOptions } from '../../../src/loop/requestOptions.js';

describe('request options per model', () => {
  // What the reference sends with no --effort / --thinking (measured: docs/models.md).
  it('each model gets the max_tokens, thinking and effort the reference sends by default', () => {
    expect(resolveRequestOptions('claude-opus-5-5')).toEqual({
      maxTokens: 128_000,
      thinking: { type: 'adaptive' },
      effort: 'medium',
    });
    expect(resolveRequestOptions('claude-opus-5')).toEqual({
      maxTokens: 64_000,
      thinking: { type: 'adaptive' },
      effort: 'high',
    });
    expect(resolveRequestOptions('claude-opus-4-7').effort).toBe('xhigh');
    expect(resolveRequestOptions('claude-opus-4-5')).toEqual({
      maxTokens: 32_000,
      thinking: { type: 'enabled', budget_tokens: 31_999 },
      effort: 'high',
    });
    expect(resolveRequestOptions('claude-sonnet-4-5')).toEqual({
      maxTokens: 32_000,
      thinking: { type: 'enabled', budget_tokens: 31_999 },
    });
    expect(resolveRequestOptions('claude-3-7-sonnet-20250219')).toEqual({ maxTokens: 32_000 });
    expect(resolveRequestOptions('claude-3-5-haiku-20241022')).toEqual({ maxTokens: 8192 });
    expect(resolveRequestOptions('claude-unknown-9')).toEqual({
      maxTokens: 32_000,
      thinking: { type: 'adaptive' },
      effort: 'high',
    });
  });

  it('--thinking disabled and a 0 budget turn thinking off', () => {
    expect(resolveRequestOptions('claude-sonnet-5-5', { thinking: 'disabled' }).thinking).toBeUndefined();
    expect(resolveRequestOptions('claude-sonnet-5-5', { maxThinkingTokens: 0 }).thinking).toBeUndefined();
  });

  it('on adaptive models a bare budget means on; --thinking enabled with a budget asks for that budget', () => {
    expect(resolveRequestOptions('claude-opus-4-6', { maxThinkingTokens: 8000 }).thinking).toEqual({
      type: 'adaptive',
    });
    expect(resolveRequestOptions('claude-opus-4-6', { thinking: 'enabled', maxThinkingTokens: 8000 }).thinking).toEqual(
      { type: 'enabled', budget_tokens: 8000 },
    );
  });

  it('on older models thinking is a fixed budget, below max_tokens, at least 1024', () => {
    expect(resolveRequestOptions('claude-sonnet-4-5', { maxThinkingTokens: 5000 }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 5000,
    });
    expect(resolveRequestOptions('claude-sonnet-4-5', { thinking: 'adaptive' }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 31_999,
    });
    // A model that thinks only when asked gets the fixed default budget.
    expect(resolveRequestOptions('claude-3-7-sonnet', { thinking: 'enabled' })).toEqual({
      maxTokens: 32_000,
      thinking: { type: 'enabled', budget_tokens: 16_000 },
    });
    expect(resolveRequestOptions('claude-sonnet-4-5', { maxThinkingTokens: 10 }).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    const o = resolveRequestOptions('claude-sonnet-4-5', { maxThinkingTokens: 5000, maxOutputTokens: 2000 });
    expect(o.maxTokens).toBe(9096);
    const capped = resolveRequestOptions('claude-sonnet-4-5', { maxThinkingTokens: 100_000 });
    expect(capped).toMatchObject({ maxTokens: 64_000, thinking: { type: 'enabled', budget_tokens: 63_999 } });
  });

  it("CLAUDE_CODE_MAX_OUTPUT_TOKENS sets max_tokens, up to the model's ceiling (measured with 1,000,000)", () => {
    expect(resolveRequestOptions('claude-sonnet-5-5', { maxOutputTokens: 1000 }).maxTokens).toBe(1000);
    expect(resolveRequestOptions('claude-haiku-4-5', { maxOutputTokens: 500_000 }).maxTokens).toBe(64_000);
    expect(resolveRequestOptions('claude-opus-5', { maxOutputTokens: 1_000_000 }).maxTokens).toBe(128_000);
    expect(resolveRequestOptions('claude-opus-4-5', { maxOutputTokens: 1_000_000 })).toMatchObject({
      maxTokens: 64_000,
      thinking: { type: 'enabled', budget_tokens: 63_999 },
    });
  });

  it('effort is clamped to the highest level the model takes', () => {
    expect(resolveRequestOptions('claude-sonnet-5-5', { effort: 'xhigh' }).effort).toBe('xhigh');
    expect(resolveRequestOptions('claude-opus-4-6', { effort: 'xhigh' }).effort).toBe('high');
    expect(resolveRequestOptions('claude-opus-4-5', { effort: 'max' }).effort).toBe('high');
    expect(resolveRequestOptions('claude-haiku-4-5', { effort: 'high' }).effort).toBeUndefined();
    expect(clampEffort('low', ['medium', 'high'])).toBe('medium');
  });
});
