// The client a model request goes through, for the provider the environment chooses (select.ts).
// Each cloud's client is the official Anthropic SDK package for it, loaded only when that provider
// is chosen; its credentials come from that cloud's own library. Credentials are checked once, when
// the client is built, so a missing one is a clear error naming the provider and the setting, not
// a retried connection failure or a bare 403.
import type { Anthropic } from '@anthropic-ai/sdk';
import { httpFetch } from '../../net/httpFetch.js';
import { ModelError } from '../modelErrors.js';
import { ApiKeyHelper, helperTtlMs } from './apiKeyHelper.js';
import type { AuthSettings } from './authSettings.js';
import { type ApiProvider, apiProviderFromEnv } from './select.js';

export const NOT_LOGGED_IN = 'Not logged in · Please set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)';

export interface ProviderClient {
  provider: ApiProvider;
  /** The SDK client a request for `model` goes through (Vertex may send a model to its own region). */
  clientFor(model: string): Anthropic;
  /** The body may be sent as pre-encoded bytes: the SDK does not rewrite it for this provider. */
  rawBody: boolean;
  /** Headers one request adds: the helper's key, the API version the provider wants in the body. */
  requestHeaders(): Promise<Record<string, string | null>>;
  /** The id this provider knows a model by (Bedrock may wait for its inference-profile list). */
  modelId(model: string): string | Promise<string>;
  /** The API answered 401: true when another attempt may succeed with fresh credentials. */
  onUnauthorized(): boolean;
}

export interface ClientOptions {
  timeout?: number;
  /** The session's credential commands (apiKeyHelper, awsCredentialExport, awsAuthRefresh, gcpAuthRefresh). */
  auth: AuthSettings;
}

export function noCredentials(message: string, cause?: unknown): ModelError {
  return new ModelError(message, { kind: 'no_credentials', retryable: false, cause });
}

// ---- the Anthropic API, directly or through a gateway ----

let sdkModule: Promise<typeof import('@anthropic-ai/sdk')> | null = null;
let helper: ApiKeyHelper | null = null;

function apiKeyHelperFor(command: string, env: NodeJS.ProcessEnv): ApiKeyHelper {
  const ttl = helperTtlMs(env);
  if (helper?.command !== command || helper.ttlMs !== ttl) helper = new ApiKeyHelper(command, ttl);
  return helper;
}

async function firstPartyClient(env: NodeJS.ProcessEnv, opts: ClientOptions): Promise<ProviderClient> {
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || null;
  const authToken = apiKey ? null : env.ANTHROPIC_AUTH_TOKEN?.trim() || null;
  const command = opts.auth.apiKeyHelper?.trim();
  const keyHelper = !apiKey && !authToken && command ? apiKeyHelperFor(command, env) : null;
  if (!apiKey && !authToken && !keyHelper) throw noCredentials(NOT_LOGGED_IN);
  sdkModule ??= import('@anthropic-ai/sdk');
  const { Anthropic: Client } = await sdkModule;
  // Exactly one credential: the SDK refuses two, and with none would look for config files.
  // The helper's key goes in each request's own headers (requestHeaders), which replace this
  // placeholder: it changes, and the helper must run once per request at most.
  const client = new Client({
    ...(apiKey ? { apiKey } : { authToken: authToken ?? 'from-apiKeyHelper' }),
    baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined,
    timeout: opts.timeout,
    maxRetries: 0,
    fetch: httpFetch as unknown as typeof fetch,
  });
  return {
    provider: 'firstParty',
    clientFor: () => client,
    rawBody: true,
    async requestHeaders(): Promise<Record<string, string | null>> {
      if (!keyHelper) return {};
      let key: string;
      try {
        key = await keyHelper.get();
      } catch (err) {
        throw noCredentials((err as Error).message, err);
      }
      // The reference sends the helper's key both ways, so a gateway that reads either accepts it.
      return { 'x-api-key': key, authorization: `Bearer ${key}` };
    },
    modelId: (model) => model,
    onUnauthorized() {
      if (!keyHelper) return false;
      keyHelper.invalidate();
      return true;
    },
  };
}

// ---- the choice, cached while the settings it depends on stay the same ----

/** The variables a client is built from: a change (settings, /model) builds a new one. */
const CLIENT_ENV = [
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CODE_API_KEY_HELPER_TTL_MS',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_ACCESS_KEY_ID',
  'AWS_BEARER_TOKEN_BEDROCK',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION',
  'CLOUD_ML_REGION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'ANTHROPIC_VERTEX_BASE_URL',
  'CLAUDE_CODE_SKIP_VERTEX_AUTH',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'ANTHROPIC_FOUNDRY_RESOURCE',
  'ANTHROPIC_FOUNDRY_BASE_URL',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'CLAUDE_CODE_SKIP_FOUNDRY_AUTH',
];

let cached: { key: string; client: Promise<ProviderClient>; failedEarly?: boolean } | null = null;

/** The client for the provider `env` chooses; throws ModelError (no_credentials) when it cannot be built. */
export function providerClient(
  env: NodeJS.ProcessEnv,
  opts: ClientOptions,
  how: { early?: boolean } = {},
): Promise<ProviderClient> {
  const key = JSON.stringify([CLIENT_ENV.map((k) => env[k] ?? null), opts.auth, opts.timeout ?? null]);
  if (cached?.key === key) {
    const { client } = cached;
    // A build begun early that failed is handed to the first request (its error is that
    // request's), then forgotten, so credential commands run once for it, not twice.
    if (cached.failedEarly && !how.early) cached = null;
    return client;
  }
  const provider = apiProviderFromEnv(env);
  const client = buildClient(provider, env, opts);
  cached = { key, client };
  // A failed build is not kept: the next request tries again (credentials may have appeared).
  client.catch(() => {
    if (cached?.client !== client) return;
    if (how.early) cached.failedEarly = true;
    else cached = null;
  });
  return client;
}

async function buildClient(
  provider: ApiProvider,
  env: NodeJS.ProcessEnv,
  opts: ClientOptions,
): Promise<ProviderClient> {
  switch (provider) {
    case 'firstParty':
      return firstPartyClient(env, opts);
    case 'bedrock':
      return (await import('./bedrock.js')).bedrockClient(env, opts);
    case 'vertex':
      return (await import('./vertex.js')).vertexClient(env, opts);
    case 'foundry':
      return (await import('./foundry.js')).foundryClient(env, opts);
  }
}
