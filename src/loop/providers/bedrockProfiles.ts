// Bedrock's system-defined inference profiles, asked for once when the Bedrock client is built
// (ListInferenceProfiles through @aws-sdk/client-bedrock, `GET /inference-profiles?type=SYSTEM_DEFINED`,
// every page), as the reference does at start. A model it knows (bedrockIds.ts: `claude-opus-5-5`,
// the sonnet alias's `claude-sonnet-4-5-20250929`) is then sent as the profile the account has for
// it: the one of AWS_REGION's geography (`eu.` for eu-*), else the first listed (`global.`,
// another geography). Without an answer (a 404 from a gateway, no permission, an endpoint that
// does not answer within the bound) the geography rule is used. Measured from the reference.
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { nodeAgents } from '../../net/nodeAgents.js';
import { geography } from './bedrockIds.js';
import { debugLog } from '../../util/log.js';
import { awsLibrary } from './awsLibs.js';

/** The most a request waits for the list before it uses the geography rule. */
export const PROFILE_WAIT_MS = 3000;
/** A list longer than this many pages is not read further (the reference follows a repeated token forever). */
const MAX_PAGES = 20;

export type BedrockAuth =
  | { kind: 'sigv4'; credentials: AwsCredentialIdentityProvider }
  | { kind: 'bearer'; token: string }
  | { kind: 'none' };

/**
 * The listed profile for a known model (`bedrockId`: its Bedrock id without a prefix, bedrockIds.ts),
 * preferring the region's geography; undefined when none is listed.
 */
export function pickProfile(bedrockId: string, region: string, profiles: readonly string[]): string | undefined {
  const matching = profiles.filter((id) => id.endsWith(`anthropic.${bedrockId}`));
  const geo = `${geography(region)}.`;
  return matching.find((id) => id.startsWith(geo)) ?? matching[0];
}

function authConfig(auth: BedrockAuth): Record<string, unknown> {
  switch (auth.kind) {
    case 'sigv4':
      return { credentials: auth.credentials };
    case 'bearer':
      // A Bedrock API key: the control plane takes it as a bearer token too.
      return { token: { token: auth.token }, authSchemePreference: ['httpBearerAuth'] };
    case 'none':
      // A gateway adds the credentials: sent unsigned, as the runtime requests are.
      return {
        httpAuthSchemes: [
          {
            schemeId: 'smithy.api#noAuth',
            identityProvider: () => async () => ({}),
            signer: { sign: async (request: unknown) => request },
          },
        ],
        httpAuthSchemeProvider: () => [{ schemeId: 'smithy.api#noAuth' }],
      };
  }
}

/**
 * The AWS SDK warns once per process, on a client's creation under Node < 22, that its future
 * versions will need Node 22: nine lines on every Bedrock run's stderr that the person running the
 * agent can do nothing about. Its own switch turns the notice off for the process.
 */
function withoutNodeVersionNotice<T>(make: () => T): T {
  const name = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
  const saved = process.env[name];
  process.env[name] = 'true';
  try {
    return make();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

/**
 * The ids of the account's system-defined inference profiles, or null when Bedrock gave none
 * (any failure: the lookup is a refinement, never a reason to fail a run). Gives up after
 * `waitMs`.
 */
export async function listInferenceProfiles(
  env: NodeJS.ProcessEnv,
  region: string,
  auth: BedrockAuth,
  waitMs = PROFILE_WAIT_MS,
): Promise<string[] | null> {
  const started = Date.now();
  const signal = AbortSignal.timeout(waitMs);
  try {
    // Loading the control-plane client is synchronous work: a request that does not need the
    // list goes out first.
    await new Promise((r) => setImmediate(r));
    const { BedrockClient, ListInferenceProfilesCommand } =
      awsLibrary<typeof import('@aws-sdk/client-bedrock')>('@aws-sdk/client-bedrock');
    const agents = nodeAgents(env);
    const client = withoutNodeVersionNotice(
      () =>
        new BedrockClient({
          region,
          endpoint: env.ANTHROPIC_BEDROCK_BASE_URL?.trim() || undefined,
          ...(agents ? { requestHandler: { httpAgent: agents.http, httpsAgent: agents.https } } : {}),
          ...authConfig(auth),
        }),
    );
    const ids: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const out = await client.send(
        new ListInferenceProfilesCommand({ typeEquals: 'SYSTEM_DEFINED', ...(token ? { nextToken: token } : {}) }),
        { abortSignal: signal },
      );
      for (const p of out.inferenceProfileSummaries ?? []) if (p.inferenceProfileId) ids.push(p.inferenceProfileId);
      if (!out.nextToken || out.nextToken === token) break;
      token = out.nextToken;
    }
    client.destroy();
    debugLog('api', () => `Bedrock: ${ids.length} inference profile(s) listed in ${Date.now() - started} ms`);
    return ids;
  } catch (err) {
    const why = signal.aborted ? `no answer within ${waitMs} ms` : ((err as Error).message ?? String(err));
    debugLog('api', () => `Bedrock: inference profiles not listed (${why}); model ids by region`);
    return null;
  }
}
