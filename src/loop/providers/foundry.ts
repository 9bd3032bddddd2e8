// Microsoft Foundry through @anthropic-ai/foundry-sdk: ANTHROPIC_FOUNDRY_API_KEY, else Microsoft
// Entra ID through @azure/identity's DefaultAzureCredential (env service principal, workload
// identity, managed identity, Azure CLI…), or none for a gateway (CLAUDE_CODE_SKIP_FOUNDRY_AUTH).
// The endpoint is ANTHROPIC_FOUNDRY_BASE_URL, or the resource ANTHROPIC_FOUNDRY_RESOURCE names.
import { httpFetch } from '../../net/httpFetch.js';
import type { Anthropic } from '@anthropic-ai/sdk';
import type { ClientOptions, ProviderClient } from './providerClient.js';
import { noCredentials } from './providerClient.js';
import { isTruthy } from './select.js';
import { loadExternal } from '../../util/loadExternal.js';

const ENTRA_SCOPE = 'https://cognitiveservices.azure.com/.default';

export async function foundryClient(env: NodeJS.ProcessEnv, opts: ClientOptions): Promise<ProviderClient> {
  const baseURL = env.ANTHROPIC_FOUNDRY_BASE_URL?.trim() || undefined;
  const resource = baseURL ? undefined : env.ANTHROPIC_FOUNDRY_RESOURCE?.trim() || undefined;
  if (!baseURL && !resource)
    throw noCredentials(
      'Foundry: neither ANTHROPIC_FOUNDRY_RESOURCE (the resource name) nor ANTHROPIC_FOUNDRY_BASE_URL is set',
    );
  const skipAuth = isTruthy(env.CLAUDE_CODE_SKIP_FOUNDRY_AUTH);
  const apiKey = env.ANTHROPIC_FOUNDRY_API_KEY?.trim() || null;
  let tokenProvider: (() => Promise<string>) | null = null;
  if (!skipAuth && !apiKey) {
    const { DefaultAzureCredential, getBearerTokenProvider } =
      loadExternal<typeof import('@azure/identity')>('@azure/identity');
    tokenProvider = getBearerTokenProvider(new DefaultAzureCredential(), ENTRA_SCOPE);
    try {
      await tokenProvider();
    } catch (err) {
      const why = (err as Error)?.message?.split('\n')[0] ?? String(err);
      throw noCredentials(
        `Foundry: no ANTHROPIC_FOUNDRY_API_KEY, and no Microsoft Entra ID credentials found (tried env service principal, workload identity, managed identity, Azure CLI, Azure Developer CLI): ${why}`,
        err,
      );
    }
  }
  // Bundled (scripts/bundle.mjs): it shares the bundle's Anthropic SDK.
  const { AnthropicFoundry } = await import('@anthropic-ai/foundry-sdk');
  const client = new AnthropicFoundry({
    baseURL,
    resource,
    // The SDK wants a credential; with CLAUDE_CODE_SKIP_FOUNDRY_AUTH its header is removed per request.
    ...(tokenProvider ? { azureADTokenProvider: tokenProvider } : { apiKey: apiKey ?? 'skipped' }),
    timeout: opts.timeout,
    maxRetries: 0,
    fetch: httpFetch as unknown as typeof fetch,
  });
  return {
    provider: 'foundry',
    clientFor: () => client as unknown as Anthropic,
    rawBody: true,
    requestHeaders: async (): Promise<Record<string, string | null>> =>
      skipAuth ? { 'x-api-key': null, authorization: null } : {},
    modelId: (model) => model,
    onUnauthorized: () => false,
  };
}
