// Aliases, retired ids, `[1m]`, and the model list a host shows (src/loop/models.ts), against the
// reference's figures (docs/models.md).
import { describe, expect, it } from 'vitest';
import { apiModel, chooseModel, chooseOverride, modelChoices, resolveModel } from '../../../src/loop/models.js';

describe('model names', () => {
  it('chooseModel: none or default is the session default; inherit the inherited model; the rest resolves', () => {
    const scope = { sessionDefault: 'claude-haiku-4-5', inherited: 'claude-sonnet-4-5' };
    expect(chooseModel(undefined, scope)).toBe('claude-haiku-4-5');
    expect(chooseModel('', scope)).toBe('claude-haiku-4-5');
    expect(chooseModel('default', scope)).toBe('claude-haiku-4-5');
    expect(chooseModel('Default', scope)).toBe('claude-haiku-4-5');
    expect(chooseModel('inherit', scope)).toBe('claude-sonnet-4-5');
    // Where nothing is inherited (set_model), inherit is the session default, never sent as an id.
    expect(chooseModel('inherit', { sessionDefault: 'claude-haiku-4-5' })).toBe('claude-haiku-4-5');
    expect(chooseModel('opus', scope)).toBe('claude-opus-5-5');
    expect(chooseModel('claude-opus-4-1', scope)).toBe('claude-opus-5-5');
    expect(chooseModel('sonnet', { ...scope, env: { CLAUDE_CODE_USE_FOUNDRY: '1' } })).toBe('claude-sonnet-4-5');
  });

  it('chooseOverride: a turn override by the same rule, where none and inherit override nothing', () => {
    const scope = { sessionDefault: 'claude-haiku-4-5' };
    expect(chooseOverride(undefined, scope)).toBeUndefined();
    expect(chooseOverride('inherit', scope)).toBeUndefined();
    expect(chooseOverride('default', scope)).toBe('claude-haiku-4-5');
    expect(chooseOverride('opus', scope)).toBe('claude-opus-5-5');
  });

  it("resolves the reference's aliases to its ids", () => {
    expect(resolveModel('default')).toBe('claude-opus-5-5');
    expect(resolveModel('opus')).toBe('claude-opus-5-5');
    expect(resolveModel('best')).toBe('claude-opus-5-5');
    expect(resolveModel('fable')).toBe('claude-fable-5-2');
    expect(resolveModel('Sonnet')).toBe('claude-sonnet-5-5');
    expect(resolveModel('haiku')).toBe('claude-haiku-5-5');
    expect(resolveModel('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5-20250929');
    expect(resolveModel('mystery-model')).toBe('mystery-model');
  });

  it("resolves a cloud provider's aliases and default as the reference does (measured)", () => {
    expect(['default', 'opus', 'sonnet', 'haiku', 'fable'].map((a) => resolveModel(a, 'foundry'))).toEqual([
      'claude-sonnet-4-5',
      'claude-opus-4-6',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'claude-fable-5-2',
    ]);
    expect(['default', 'opus', 'sonnet', 'haiku'].map((a) => resolveModel(a, 'bedrock'))).toEqual([
      'claude-opus-5-5',
      'claude-opus-5-5',
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5-20251001',
    ]);
    expect(['default', 'opus', 'sonnet', 'haiku'].map((a) => resolveModel(a, 'vertex'))).toEqual([
      'claude-opus-5-5',
      'claude-opus-5-5',
      'claude-sonnet-4-5@20250929',
      'claude-haiku-4-5@20251001',
    ]);
    expect(modelChoices('claude-sonnet-4-5', 'foundry').map((m) => m.resolvedModel)).toEqual([
      'claude-sonnet-4-5',
      'claude-opus-4-6',
      'claude-fable-5-2',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
    ]);
  });

  it('a retired Opus id runs as claude-opus-5-5', () => {
    expect(resolveModel('claude-opus-4-1')).toBe('claude-opus-5-5');
    expect(resolveModel('claude-opus-4-20250514')).toBe('claude-opus-5-5');
  });

  it('[1m] stays on an id with a smaller window and goes on an alias (its model has 1M already)', () => {
    expect(resolveModel('sonnet[1m]')).toBe('claude-sonnet-5-5');
    expect(resolveModel('claude-sonnet-4-5[1m]')).toBe('claude-sonnet-4-5[1m]');
    expect(apiModel('claude-sonnet-4-5[1m]')).toEqual({ id: 'claude-sonnet-4-5', betas: ['context-1m-2025-08-07'] });
    expect(apiModel('claude-sonnet-4-5')).toEqual({ id: 'claude-sonnet-4-5', betas: [] });
  });

  it("lists the choices in the reference's order, with prices, efforts and thinking", () => {
    const list = modelChoices('claude-opus-5-5');
    expect(list.map((m) => [m.value, m.resolvedModel])).toEqual([
      ['default', 'claude-opus-5-5'],
      ['opus', 'claude-opus-5-5'],
      ['fable', 'claude-fable-5-2'],
      ['sonnet', 'claude-sonnet-5-5'],
      ['haiku', 'claude-haiku-5-5'],
    ]);
    expect(list[0].description).toContain('Opus 5.5');
    expect(list[0].description).toContain('$4/$20');
    expect(list[4].description).toContain('$0.10/$0.50');
    expect(list[4].description).toContain('$0.50/$2.50 above 100k');
    for (const m of list) expect(m).toMatchObject({ supportsEffort: true, supportsAdaptiveThinking: true });
    // A session started on another model says so in the default row.
    expect(modelChoices('claude-sonnet-4-5')[0]).toMatchObject({
      resolvedModel: 'claude-sonnet-4-5',
      supportsEffort: false,
    });
  });
});
