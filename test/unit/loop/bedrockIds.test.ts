// Which ids Bedrock gets a geography prefix for (the known models, measured from the reference),
// the profile chosen from a listed set, and the credential fields the init line and initialize carry.
import { describe, expect, it } from 'vitest';
import { bedrockModelId, knownBedrockModel } from '../../../src/loop/providers/bedrockIds.js';
import { pickProfile } from '../../../src/loop/providers/bedrockProfiles.js';
import { accountInfo, apiKeySource } from '../../../src/loop/providers/keySources.js';

describe('Bedrock model ids', () => {
  it('a known model (its API id or short id) becomes the geography profile of its Bedrock id', () => {
    expect(bedrockModelId('claude-opus-5-5', 'us-east-1')).toBe('us.anthropic.claude-opus-5-5');
    expect(bedrockModelId('claude-sonnet-4-5-20250929', 'eu-west-1')).toBe(
      'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(bedrockModelId('claude-opus-4-1', 'ap-northeast-1')).toBe('apac.anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-opus-4-6', 'us-gov-west-1')).toBe('us-gov.anthropic.claude-opus-4-6-v1');
  });

  it('any other id is sent as given: a custom name, an id in Bedrock form without a prefix, an ARN', () => {
    for (const id of [
      'claude-haiku-custom',
      'claude-sonnet-4-5-20250929-v1:0',
      'eu.anthropic.claude-opus-5-5',
      'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc',
    ]) {
      expect(knownBedrockModel(id)).toBeUndefined();
      expect(bedrockModelId(id, 'us-east-1')).toBe(id);
    }
  });

  it('a listed profile matches its whole Bedrock id: opus 5 is not opus 5.5', () => {
    const listed = ['global.anthropic.claude-opus-5-5', 'us.anthropic.claude-opus-5'];
    expect(pickProfile('claude-opus-5', 'eu-west-1', listed)).toBe('us.anthropic.claude-opus-5');
    expect(pickProfile('claude-opus-5-5', 'eu-west-1', listed)).toBe('global.anthropic.claude-opus-5-5');
    expect(pickProfile('claude-sonnet-5', 'eu-west-1', listed)).toBeUndefined();
  });
});

describe('credential sources (measured from the reference)', () => {
  it('a cloud provider reports its apiProvider alone', () => {
    for (const p of ['bedrock', 'vertex', 'foundry'] as const) {
      expect(accountInfo(p, { ANTHROPIC_API_KEY: 'k' }, 'echo k')).toEqual({ apiProvider: p });
      expect(apiKeySource(p, { ANTHROPIC_API_KEY: 'k' })).toBe('none');
    }
  });

  it('the Anthropic API: an API key or the helper is apiKeySource; a token or the helper is tokenSource', () => {
    expect(accountInfo('firstParty', { ANTHROPIC_API_KEY: 'k' })).toEqual({
      tokenSource: 'none',
      apiKeySource: 'ANTHROPIC_API_KEY',
      apiProvider: 'firstParty',
    });
    expect(accountInfo('firstParty', { ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({
      tokenSource: 'ANTHROPIC_AUTH_TOKEN',
      apiProvider: 'firstParty',
    });
    expect(apiKeySource('firstParty', { ANTHROPIC_AUTH_TOKEN: 't' })).toBe('none');
    expect(accountInfo('firstParty', {}, 'echo k')).toEqual({
      tokenSource: 'apiKeyHelper',
      apiKeySource: 'apiKeyHelper',
      apiProvider: 'firstParty',
    });
    expect(accountInfo('firstParty', { ANTHROPIC_AUTH_TOKEN: 't' }, 'echo k')).toEqual({
      tokenSource: 'ANTHROPIC_AUTH_TOKEN',
      apiKeySource: 'apiKeyHelper',
      apiProvider: 'firstParty',
    });
    expect(accountInfo('firstParty', {})).toEqual({ tokenSource: 'none', apiProvider: 'firstParty' });
  });
});
