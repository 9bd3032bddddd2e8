// Which API the session talks to: the Anthropic API (or a gateway in front of it), Amazon Bedrock,
// Google Vertex AI or Microsoft Foundry, chosen by the reference's environment variables. Cheap:
// nothing of a provider is loaded until a request needs it (providerClient.ts).

/** The values the reference's `apiProvider` field takes for these (sdk.d.ts AccountInfo). */
export type ApiProvider = 'firstParty' | 'bedrock' | 'vertex' | 'foundry';

/** How each is named in messages. */
export const PROVIDER_LABEL: Record<ApiProvider, string> = {
  firstParty: 'Anthropic API',
  bedrock: 'Bedrock',
  vertex: 'Vertex AI',
  foundry: 'Foundry',
};

/** "1", "true", "yes", "on" (any case) turn a switch on, as the reference reads them. */
export function isTruthy(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

export function apiProviderFromEnv(env: NodeJS.ProcessEnv = process.env): ApiProvider {
  if (isTruthy(env.CLAUDE_CODE_USE_BEDROCK)) return 'bedrock';
  if (isTruthy(env.CLAUDE_CODE_USE_VERTEX)) return 'vertex';
  if (isTruthy(env.CLAUDE_CODE_USE_FOUNDRY)) return 'foundry';
  return 'firstParty';
}
