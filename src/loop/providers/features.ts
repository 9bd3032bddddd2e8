// What differs per provider beyond the transport: the tools a provider cannot serve, and what the
// model aliases (opus, sonnet, haiku, fable, and the default) mean there. Measured from the
// reference against local fakes (docs/providers/): Bedrock does not run the web_search server tool,
// so WebSearch is not offered there; each cloud has its own ids for the aliases.
import type { ApiProvider } from './select.js';

/** Tools a provider refuses, with why (told when a person asks for one). */
const REFUSED_TOOLS: Record<ApiProvider, Record<string, string>> = {
  firstParty: {},
  bedrock: { WebSearch: 'Bedrock does not run the web_search server tool' },
  vertex: {},
  foundry: {},
};

export function toolRefusedBy(provider: ApiProvider, tool: string): string | undefined {
  return Object.hasOwn(REFUSED_TOOLS[provider], tool) ? REFUSED_TOOLS[provider][tool] : undefined;
}

/**
 * The aliases' models where a provider's differ from the Anthropic API's (measured: `--model
 * sonnet` on Bedrock asks for `us.anthropic.claude-sonnet-4-5-20250929-v1:0`, the geography prefix
 * added by bedrockModelId; on Vertex for `claude-sonnet-4-5@20250929`; Foundry's default is
 * `claude-sonnet-4-5`).
 */
const PROVIDER_ALIASES: Record<ApiProvider, Record<string, string>> = {
  firstParty: {},
  bedrock: {
    sonnet: 'claude-sonnet-4-5-20250929-v1:0',
    haiku: 'claude-haiku-4-5-20251001-v1:0',
  },
  vertex: {
    sonnet: 'claude-sonnet-4-5@20250929',
    haiku: 'claude-haiku-4-5@20251001',
  },
  foundry: {
    default: 'claude-sonnet-4-5',
    opus: 'claude-opus-4-6',
    best: 'claude-opus-4-6',
    sonnet: 'claude-sonnet-4-5',
    haiku: 'claude-haiku-4-5',
  },
};

/** The variable that names an alias's model (the reference's), whatever the provider. */
const ALIAS_VARIABLES: Record<string, string> = {
  opus: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  best: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  sonnet: 'ANTHROPIC_DEFAULT_SONNET_MODEL',
  haiku: 'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  fable: 'ANTHROPIC_DEFAULT_FABLE_MODEL',
};

/**
 * An alias's model on this provider: its ANTHROPIC_DEFAULT_*_MODEL when set, else the provider's
 * own id, else undefined (the Anthropic API's table applies). `default` follows the default
 * model's family (opus; sonnet on Foundry), so ANTHROPIC_DEFAULT_OPUS_MODEL moves it too, as in
 * the reference.
 */
export function providerAlias(alias: string, provider: ApiProvider, env: NodeJS.ProcessEnv): string | undefined {
  const family = alias === 'default' ? (provider === 'foundry' ? 'sonnet' : 'opus') : alias;
  const variable = ALIAS_VARIABLES[family];
  const fromEnv = variable ? env[variable]?.trim() : undefined;
  if (fromEnv) return fromEnv;
  const table = PROVIDER_ALIASES[provider];
  return Object.hasOwn(table, alias) ? table[alias] : undefined;
}
