// What differs per provider beyond the transport and the alias table (models.ts): the tools a
// provider cannot serve, and the variables that name an alias's model on any provider. Measured
// from the reference against local fakes (docs/providers/): Bedrock does not run the web_search
// server tool, so WebSearch is not offered there; ANTHROPIC_DEFAULT_SONNET_MODEL=x makes
// `--model sonnet` send x as given.
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

/** The variable that names an alias's model (the reference's), whatever the provider. */
const ALIAS_VARIABLES: Record<string, string> = {
  opus: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  best: 'ANTHROPIC_DEFAULT_OPUS_MODEL',
  sonnet: 'ANTHROPIC_DEFAULT_SONNET_MODEL',
  haiku: 'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  fable: 'ANTHROPIC_DEFAULT_FABLE_MODEL',
};

/**
 * An alias's model named by its ANTHROPIC_DEFAULT_*_MODEL, or undefined. `default` follows the
 * default model's family (opus; sonnet on Foundry), so ANTHROPIC_DEFAULT_OPUS_MODEL moves it too,
 * as in the reference.
 */
export function aliasOverride(alias: string, provider: ApiProvider, env: NodeJS.ProcessEnv): string | undefined {
  const family = alias === 'default' ? (provider === 'foundry' ? 'sonnet' : 'opus') : alias;
  const variable = Object.hasOwn(ALIAS_VARIABLES, family) ? ALIAS_VARIABLES[family] : undefined;
  return (variable && env[variable]?.trim()) || undefined;
}
