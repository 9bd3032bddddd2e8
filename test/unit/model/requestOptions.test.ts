// max_tokens, thinking and effort per model (src/loop/requestOptions.ts over the table in pricing.ts).
import { describe, expect, it } from 'vitest';
import { clampEffort, resolveRequestOptions } from '../../../src/loop/requestOptions.js';

describe('request options per model', () => {
  it('the default model gets adaptive thinking, effort medium and its 128k ceiling (what the reference sends)', () => {
    expect(resolveRequestOptions('claude-sonnet-5-5')).toEqual({
      maxTokens: 128_000,
      thinking: { type: 'adaptive' },
      effort: 'medium',
    });
  });

  it('a model without adaptive thinking or effort gets neither by default', () => {
    expect(resolveRequestOptions('claude-haiku-4-5')).toEqual({ maxTokens: 64_000 });
    expect(resolveRequestOptions('claude-sonnet-4-5')).toEqual({ maxTokens: 64_000 });
    expect(resolveRequestOptions('claude-opus-4-5')).toEqual({ maxTokens: 64_000, effort: 'medium' });
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
      budget_tokens: 16_000,
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

  it('CLAUDE_CODE_MAX_OUTPUT_TOKENS lowers max_tokens but never lifts it past the ceiling', () => {
    expect(resolveRequestOptions('claude-sonnet-5-5', { maxOutputTokens: 1000 }).maxTokens).toBe(1000);
    expect(resolveRequestOptions('claude-haiku-4-5', { maxOutputTokens: 500_000 }).maxTokens).toBe(64_000);
  });

  it('effort is clamped to the highest level the model takes', () => {
    expect(resolveRequestOptions('claude-sonnet-5-5', { effort: 'xhigh' }).effort).toBe('xhigh');
    expect(resolveRequestOptions('claude-opus-4-6', { effort: 'xhigh' }).effort).toBe('high');
    expect(resolveRequestOptions('claude-opus-4-5', { effort: 'max' }).effort).toBe('high');
    expect(resolveRequestOptions('claude-haiku-4-5', { effort: 'high' }).effort).toBeUndefined();
    expect(clampEffort('low', ['medium', 'high'])).toBe('medium');
  });
});
