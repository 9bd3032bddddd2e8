// The model aliases per provider (measured from the reference), ANTHROPIC_DEFAULT_*_MODEL and
// ANTHROPIC_SMALL_FAST_MODEL, and the tools a provider cannot serve.
import { describe, expect, it } from 'vitest';
import { selectTools } from '../../../src/app/selectTools.js';
import { resolveModel, smallFastModel } from '../../../src/loop/models.js';
import { modelFacts, UNKNOWN_MODEL } from '../../../src/loop/pricing.js';
import { builtinTools } from '../../../tools/registry.js';

const bedrock = { CLAUDE_CODE_USE_BEDROCK: '1' };
const vertex = { CLAUDE_CODE_USE_VERTEX: '1' };
const foundry = { CLAUDE_CODE_USE_FOUNDRY: '1' };

describe('aliases per provider', () => {
  it('are the Anthropic API’s without a provider', () => {
    expect(resolveModel('sonnet', 'firstParty', {})).toBe('claude-sonnet-5-5');
    expect(resolveModel('default', 'firstParty', {})).toBe('claude-opus-5-5');
  });

  it('are each cloud’s own ids (Bedrock’s geography prefix is added per request)', () => {
    expect(resolveModel('sonnet', 'bedrock', bedrock)).toBe('claude-sonnet-4-5-20250929');
    expect(resolveModel('haiku', 'bedrock', bedrock)).toBe('claude-haiku-4-5-20251001');
    expect(resolveModel('opus', 'bedrock', bedrock)).toBe('claude-opus-5-5');
    expect(resolveModel('sonnet', 'vertex', vertex)).toBe('claude-sonnet-4-5@20250929');
    expect(resolveModel('default', 'foundry', foundry)).toBe('claude-sonnet-4-5');
    expect(resolveModel('opus', 'foundry', foundry)).toBe('claude-opus-4-6');
    // An id is never an alias.
    expect(resolveModel('claude-sonnet-5-5', 'bedrock', bedrock)).toBe('claude-sonnet-5-5');
  });

  it('ANTHROPIC_DEFAULT_*_MODEL names an alias’s model on any provider; the default follows opus', () => {
    expect(resolveModel('sonnet', 'firstParty', { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' })).toBe('my-sonnet');
    expect(resolveModel('haiku', 'bedrock', { ANTHROPIC_DEFAULT_HAIKU_MODEL: 'arn:aws:x' })).toBe('arn:aws:x');
    expect(resolveModel('default', 'firstParty', { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' })).toBe('my-opus');
    expect(resolveModel('fable', 'vertex', { ANTHROPIC_DEFAULT_FABLE_MODEL: 'my-fable' })).toBe('my-fable');
  });

  it('the small, fast model: ANTHROPIC_SMALL_FAST_MODEL, else haiku’s', () => {
    expect(smallFastModel({})).toBe('claude-haiku-5-5');
    expect(smallFastModel(vertex)).toBe('claude-haiku-4-5@20251001');
    expect(smallFastModel({ ANTHROPIC_DEFAULT_HAIKU_MODEL: 'h' })).toBe('h');
    expect(smallFastModel({ ANTHROPIC_SMALL_FAST_MODEL: 'quick', ANTHROPIC_DEFAULT_HAIKU_MODEL: 'h' })).toBe('quick');
  });

  it('the providers’ ids are priced as their models', () => {
    for (const id of ['claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5@20250929', 'claude-opus-4-6'])
      expect(modelFacts(id)).not.toBe(UNKNOWN_MODEL);
  });
});

describe('tools a provider refuses', () => {
  const all = builtinTools({ agentTeams: false, env: {} });
  it('WebSearch is left out on Bedrock only', () => {
    const names = (provider: Parameters<typeof selectTools>[2]) =>
      selectTools(all, { tools: undefined, disallowedTools: [] }, provider).map((t) => t.name);
    expect(names('firstParty')).toContain('WebSearch');
    expect(names('vertex')).toContain('WebSearch');
    expect(names('foundry')).toContain('WebSearch');
    expect(names('bedrock')).not.toContain('WebSearch');
    expect(names('bedrock')).toContain('WebFetch');
  });
});
