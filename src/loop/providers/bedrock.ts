// Amazon Bedrock through @anthropic-ai/bedrock-sdk: requests signed with SigV4 from the standard
// AWS credential chain (@aws-sdk/credential-providers: env, shared profile and AWS_PROFILE, SSO,
// container and instance roles), or sent with AWS_BEARER_TOKEN_BEDROCK, or unsigned for a gateway
// (CLAUDE_CODE_SKIP_BEDROCK_AUTH). The settings' awsCredentialExport prints credentials to use
// instead of the chain; awsAuthRefresh is run once when the chain finds none, then the chain is
// asked again.
import type { Anthropic } from '@anthropic-ai/sdk';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { runHelperCommand } from './apiKeyHelper.js';
import type { AuthSettings } from './authSettings.js';
import { type ClientOptions, noCredentials, type ProviderClient } from './providerClient.js';
import { isTruthy } from './select.js';
import { type BedrockAuth, listInferenceProfiles, pickProfile } from './bedrockProfiles.js';
import { bedrockModelId, knownBedrockModel } from './bedrockIds.js';
import { awsLibrary } from './awsLibs.js';
import { httpFetch } from '../../net/httpFetch.js';
import { nodeAgents } from '../../net/nodeAgents.js';
import { apiModel, smallFastModel } from '../models.js';
import { logWarning } from '../../util/log.js';

/** What Bedrock wants as `anthropic_version` in the body (the SDK moves this header there). */
const BEDROCK_VERSION = 'bedrock-2023-05-31';
/** Credentials that expire sooner than this are fetched again. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export function bedrockRegion(env: NodeJS.ProcessEnv): string {
  return env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1';
}

/** Where the chain looks, for the error that says it found nothing. */
function triedSources(env: NodeJS.ProcessEnv): string {
  const profile = env.AWS_PROFILE?.trim() || 'default';
  return `env (AWS_ACCESS_KEY_ID), profile ${profile} (~/.aws/credentials, ~/.aws/config, SSO), web identity, container and instance roles`;
}

/** awsCredentialExport's output: the shape `aws sts get-session-token` / `assume-role` print. */
function parseExportedCredentials(command: string, out: string): AwsCredentialIdentity {
  let parsed: any;
  try {
    parsed = JSON.parse(out);
  } catch {
    throw new Error(`awsCredentialExport (${command}) did not print JSON`);
  }
  const c = parsed?.Credentials;
  if (typeof c?.AccessKeyId !== 'string' || typeof c?.SecretAccessKey !== 'string')
    throw new Error(
      `awsCredentialExport (${command}) printed no Credentials.AccessKeyId and Credentials.SecretAccessKey`,
    );
  const expiration = typeof c.Expiration === 'string' ? new Date(c.Expiration) : undefined;
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    ...(typeof c.SessionToken === 'string' ? { sessionToken: c.SessionToken } : {}),
    ...(expiration && !Number.isNaN(expiration.getTime()) ? { expiration } : {}),
  };
}

/** Remembers credentials until shortly before they expire; parallel callers share one fetch. */
function memoized(fetch: () => Promise<AwsCredentialIdentity>): AwsCredentialIdentityProvider {
  let held: AwsCredentialIdentity | null = null;
  let pending: Promise<AwsCredentialIdentity> | null = null;
  return () => {
    if (held && (!held.expiration || held.expiration.getTime() - Date.now() > REFRESH_MARGIN_MS))
      return Promise.resolve(held);
    pending ??= fetch()
      .then((c) => (held = c))
      .finally(() => {
        pending = null;
      });
    return pending;
  };
}

async function credentialProvider(
  env: NodeJS.ProcessEnv,
  { awsCredentialExport, awsAuthRefresh }: AuthSettings,
): Promise<AwsCredentialIdentityProvider> {
  if (awsCredentialExport?.trim()) {
    const command = awsCredentialExport.trim();
    const provider = memoized(async () =>
      parseExportedCredentials(command, await runHelperCommand(command, 'awsCredentialExport')),
    );
    try {
      await provider();
    } catch (err) {
      throw noCredentials(`Bedrock: ${(err as Error).message}`, err);
    }
    return provider;
  }
  const { createCredentialChain, fromEnv, fromNodeProviderChain } = awsLibrary<
    typeof import('@aws-sdk/credential-providers')
  >('@aws-sdk/credential-providers');
  // Env credentials first even when AWS_PROFILE is set, as the AWS CLI does. The chain's own calls
  // (STS, SSO) go through HTTPS_PROXY like every other connection; instance and container metadata
  // addresses are link-local and never proxied, as in the AWS SDK. They present the client
  // certificate (CLAUDE_CODE_CLIENT_CERT) too.
  const agents = nodeAgents(env);
  const clientConfig = agents ? { requestHandler: { httpAgent: agents.http, httpsAgent: agents.https } } : undefined;
  // ignoreCache: the AWS SDK keeps each shared file's first read (a missing file's failure too) for
  // the process; awsAuthRefresh (`aws sso login`, a script writing ~/.aws/credentials) and
  // credentials that expire in a long session need the files as they are now.
  const chain = createCredentialChain(
    fromEnv(),
    fromNodeProviderChain({ ignoreCache: true, ...(clientConfig ? { clientConfig } : {}) }),
  );
  const provider = memoized(() => chain());
  try {
    await provider();
    return provider;
  } catch (first) {
    if (!awsAuthRefresh?.trim()) throw missing(env, first);
    logWarning(`Bedrock: no AWS credentials found; running awsAuthRefresh (${awsAuthRefresh.trim()})`);
    try {
      await runHelperCommand(awsAuthRefresh.trim(), 'awsAuthRefresh');
    } catch (err) {
      throw noCredentials(`Bedrock: no AWS credentials found, and ${(err as Error).message}`, err);
    }
    try {
      await provider();
      return provider;
    } catch (again) {
      throw missing(env, again);
    }
  }
}

function missing(env: NodeJS.ProcessEnv, cause: unknown) {
  const why = (cause as Error)?.message?.split('\n')[0] ?? String(cause);
  return noCredentials(
    `Bedrock: no AWS credentials found (tried ${triedSources(env)}): ${why}. Set AWS credentials or AWS_PROFILE, AWS_BEARER_TOKEN_BEDROCK, or awsCredentialExport in settings.`,
    cause,
  );
}

/**
 * The region a request for `model` goes to: ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION for the small/fast
 * model (ANTHROPIC_SMALL_FAST_MODEL, else haiku's: WebFetch's page reading), else the session's.
 * Its model id keeps the session region's geography prefix, as the reference sends it.
 */
export function regionForModel(env: NodeJS.ProcessEnv, model: string): string {
  const small = env.ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION?.trim();
  return small && apiModel(model).id === smallFastModel(env) ? small : bedrockRegion(env);
}

export async function bedrockClient(env: NodeJS.ProcessEnv, opts: ClientOptions): Promise<ProviderClient> {
  const region = bedrockRegion(env);
  const skipAuth = isTruthy(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH);
  const bearer = env.AWS_BEARER_TOKEN_BEDROCK?.trim() || null;
  const provider = skipAuth || bearer ? null : await credentialProvider(env, opts.auth);
  // Bundled (scripts/bundle.mjs): it shares the bundle's Anthropic SDK.
  const { AnthropicBedrock } = await import('@anthropic-ai/bedrock-sdk');
  // One client per region (signed for it, and its endpoint unless ANTHROPIC_BEDROCK_BASE_URL names one).
  const clients = new Map<string, Anthropic>();
  const clientFor = (model: string) => {
    const at = regionForModel(env, model);
    let c = clients.get(at);
    if (!c) {
      c = new AnthropicBedrock({
        awsRegion: at,
        baseURL: env.ANTHROPIC_BEDROCK_BASE_URL?.trim() || undefined,
        apiKey: skipAuth ? null : bearer,
        skipAuth,
        ...(provider ? { providerChainResolver: () => Promise.resolve(provider) } : {}),
        timeout: opts.timeout,
        maxRetries: 0,
        // Our fetch over node:http, as the other providers': Node's own loads undici (about 45 ms of
        // CPU a start). The wrapper's SSE Response is ours too (MadeResponse, scripts/bundle.mjs).
        fetch: httpFetch as unknown as typeof fetch,
      }) as unknown as Anthropic;
      clients.set(at, c);
    }
    return c;
  };
  // Asked now, not awaited: a request waits for it only when its model is in first-party form.
  const auth: BedrockAuth = skipAuth
    ? { kind: 'none' }
    : bearer
      ? { kind: 'bearer', token: bearer }
      : { kind: 'sigv4', credentials: provider! };
  const profiles = listInferenceProfiles(env, region, auth);
  // A model's id is decided once, so a session's requests keep one id (and one prompt cache).
  const ids = new Map<string, Promise<string>>();
  const modelId = (model: string): string | Promise<string> => {
    const known = knownBedrockModel(model);
    // Any other id (a user's, an ARN, one in Bedrock's form) is sent as given, as the reference does.
    if (!known) return model;
    let id = ids.get(model);
    if (!id) {
      id = profiles.then((listed) => (listed && pickProfile(known, region, listed)) || bedrockModelId(model, region));
      ids.set(model, id);
    }
    return id;
  };
  return {
    provider: 'bedrock',
    clientFor,
    rawBody: false,
    requestHeaders: async () => ({ 'anthropic-version': BEDROCK_VERSION }),
    modelId,
    onUnauthorized: () => false,
  };
}
