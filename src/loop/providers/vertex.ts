// Google Vertex AI through @anthropic-ai/vertex-sdk, with Google's application default credentials
// from google-auth-library (GOOGLE_APPLICATION_CREDENTIALS, gcloud's ADC file, the metadata
// server), or none for a gateway (CLAUDE_CODE_SKIP_VERTEX_AUTH); the settings' gcpAuthRefresh is
// run once when none resolve. The region is CLOUD_ML_REGION, or VERTEX_REGION_CLAUDE_* for one model.
import { httpFetch } from '../../net/httpFetch.js';
import type { Anthropic } from '@anthropic-ai/sdk';
import { runHelperCommand } from './apiKeyHelper.js';
import type { ClientOptions, ProviderClient } from './providerClient.js';
import { noCredentials } from './providerClient.js';
import { isTruthy } from './select.js';
import { loadExternal } from '../../util/loadExternal.js';
import { logWarning } from '../../util/log.js';
import { WebHeaders } from '../../net/webHeaders.js';

/** What Vertex wants as `anthropic_version` in the body (the SDK moves this header there). */
const VERTEX_VERSION = 'vertex-2023-10-16';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * The per-model region variable's names for `model`: `claude-sonnet-5-5` → VERTEX_REGION_CLAUDE_SONNET_5_5,
 * and for the older families the reference's spelling too (`claude-opus-4-1` → VERTEX_REGION_CLAUDE_4_1_OPUS,
 * `claude-3-5-haiku` → VERTEX_REGION_CLAUDE_3_5_HAIKU).
 */
export function regionVariables(model: string): string[] {
  const base = model
    .replace(/@.*$/, '')
    .replace(/-\d{8}$/, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
  const names = [`VERTEX_REGION_${base}`];
  const m = /^CLAUDE_(OPUS|SONNET|HAIKU)_(\d+)(?:_(\d+))?$/.exec(base);
  if (m) names.push(`VERTEX_REGION_CLAUDE_${m[2]}_${m[3] ?? '0'}_${m[1]}`);
  return names;
}

export function vertexRegion(env: NodeJS.ProcessEnv, model: string): string | null {
  for (const name of regionVariables(model)) {
    const v = env[name]?.trim();
    if (v) return v;
  }
  return env.CLOUD_ML_REGION?.trim() || null;
}

export async function vertexClient(env: NodeJS.ProcessEnv, opts: ClientOptions): Promise<ProviderClient> {
  const skipAuth = isTruthy(env.CLAUDE_CODE_SKIP_VERTEX_AUTH);
  let projectId = env.ANTHROPIC_VERTEX_PROJECT_ID?.trim() || null;
  if (!env.CLOUD_ML_REGION?.trim())
    throw noCredentials('Vertex AI: CLOUD_ML_REGION is not set (the region to call, e.g. us-east5 or global)');
  // The wrapper is bundled (scripts/bundle.mjs): it shares the bundle's Anthropic SDK.
  const { AnthropicVertex } = await import('@anthropic-ai/vertex-sdk');
  let authClient: any;
  if (skipAuth) {
    // A gateway adds the credentials: send none. Our Headers, not the global one, whose first use
    // loads Node's whole fetch (src/net/webHeaders.ts).
    authClient = { projectId: null, getRequestHeaders: async () => new WebHeaders() };
  } else {
    // Loaded only here: a session that skips Google auth does without it (about 0.09 s of CPU).
    const { GoogleAuth } = loadExternal<typeof import('google-auth-library')>('google-auth-library');
    // Asked now, so missing or broken credentials are this error rather than a retried request.
    const resolve = async () => {
      const auth = new GoogleAuth({ scopes: SCOPE });
      const client = await auth.getClient();
      await client.getAccessToken();
      return { client, project: (await auth.getProjectId().catch(() => null)) ?? null };
    };
    const missing = (err: unknown) => {
      const why = (err as Error)?.message?.split('\n')[0] ?? String(err);
      return noCredentials(
        `Vertex AI: no Google credentials found (tried GOOGLE_APPLICATION_CREDENTIALS, gcloud application default credentials, the metadata server): ${why}. Run \`gcloud auth application-default login\` or set GOOGLE_APPLICATION_CREDENTIALS.`,
        err,
      );
    };
    let found: Awaited<ReturnType<typeof resolve>>;
    try {
      found = await resolve();
    } catch (first) {
      // The settings' gcpAuthRefresh (e.g. `gcloud auth application-default login`) is run once, then the chain is asked again.
      const refresh = opts.auth.gcpAuthRefresh?.trim();
      if (!refresh) throw missing(first);
      logWarning(`Vertex AI: no Google credentials found; running gcpAuthRefresh (${refresh})`);
      try {
        await runHelperCommand(refresh, 'gcpAuthRefresh');
      } catch (err) {
        throw noCredentials(`Vertex AI: ${(err as Error).message}`, err);
      }
      try {
        found = await resolve();
      } catch (err) {
        throw missing(err);
      }
    }
    authClient = found.client;
    projectId ??= found.project;
  }
  if (!projectId)
    throw noCredentials('Vertex AI: ANTHROPIC_VERTEX_PROJECT_ID is not set and the credentials name no project');
  // One client per region: VERTEX_REGION_CLAUDE_* may send a model elsewhere.
  const clients = new Map<string, Anthropic>();
  const clientFor = (region: string) => {
    let c = clients.get(region);
    if (!c) {
      c = new AnthropicVertex({
        region,
        projectId,
        baseURL: env.ANTHROPIC_VERTEX_BASE_URL?.trim() || undefined,
        authClient,
        timeout: opts.timeout,
        maxRetries: 0,
        fetch: httpFetch as unknown as typeof fetch,
      }) as unknown as Anthropic;
      clients.set(region, c);
    }
    return c;
  };
  const defaultRegion = env.CLOUD_ML_REGION.trim();
  return {
    provider: 'vertex',
    clientFor: (model) => clientFor(vertexRegion(env, model) ?? defaultRegion),
    rawBody: false,
    requestHeaders: async () => ({ 'anthropic-version': VERTEX_VERSION }),
    modelId: (model) => model,
    onUnauthorized: () => false,
  };
}
