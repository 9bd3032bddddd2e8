// A fake Amazon Bedrock runtime endpoint: checks the SigV4 signature against the test's credentials
// (recomputed with the AWS signer over the method, path, signed headers and body, as Bedrock
// does), the invoke / invoke-with-response-stream path and the `anthropic_version` body field;
// answers a stream in AWS event-stream framing, each Messages API event a `chunk` frame.
import { join } from 'node:path';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { FakeApi } from '../fake-api/server.js';
import { type Front, type SeenRequest, sseEvents, startFront } from './front.js';

export interface AwsTestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const utf8 = {
  to: (b: Uint8Array) => Buffer.from(b).toString('utf8'),
  from: (s: string) => new Uint8Array(Buffer.from(s, 'utf8')),
};

function refuse(status: number, type: string, message: string) {
  return {
    refuse: {
      status,
      body: { message },
      headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
    },
  };
}

async function signatureProblem(
  req: { method: string; path: string; headers: Record<string, any>; body: string },
  creds: AwsTestCredentials,
  regions: string[],
): Promise<string | null> {
  const auth = String(req.headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(
      auth,
    );
  if (!m) return 'Authorization header is not a SigV4 signature';
  const [, keyId, , signedRegion, service, signedHeaders, signature] = m;
  if (keyId !== creds.accessKeyId) return `The security token included in the request is invalid (key ${keyId})`;
  if (!regions.includes(signedRegion)) return `Credential should be scoped to a valid region, not '${signedRegion}'`;
  if (service !== 'bedrock') return `Credential should be scoped to correct service: 'bedrock', not '${service}'`;
  if (creds.sessionToken && req.headers['x-amz-security-token'] !== creds.sessionToken)
    return 'The security token included in the request is invalid';
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dm) return 'missing X-Amz-Date';
  const date = new Date(Date.UTC(+dm[1], +dm[2] - 1, +dm[3], +dm[4], +dm[5], +dm[6]));
  const headers: Record<string, string> = {};
  for (const h of signedHeaders.split(';')) headers[h] = String(req.headers[h] ?? '');
  const url = new URL(req.path, 'http://x');
  const query: Record<string, string[]> = {};
  for (const k of new Set(url.searchParams.keys())) query[k] = url.searchParams.getAll(k);
  const signer = new SignatureV4({
    service: 'bedrock',
    region: signedRegion,
    credentials: creds,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: true,
  });
  const expected = await signer.sign(
    {
      method: req.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: url.pathname,
      query,
      headers,
      body: req.body,
    },
    { signingDate: date },
  );
  const want = /Signature=([0-9a-f]+)/.exec(String(expected.headers.authorization))?.[1];
  return want === signature ? null : 'The request signature we calculated does not match the signature you provided.';
}

/** The region a SigV4-signed request was signed for (its credential scope), or null. */
export function signedRegion(headers: Record<string, unknown>): string | null {
  return /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(headers.authorization ?? ''))?.[1] ?? null;
}

export interface FakeBedrock extends Front {
  /** The ListInferenceProfiles calls (`GET /inference-profiles`), kept apart from `seen`'s model calls. */
  profileLookups: SeenRequest[];
}

/** Bedrock's control-plane page size here: small, so a list of a few spans pages. */
const PROFILE_PAGE = 2;

/**
 * A Bedrock session's environment with nothing of the machine's AWS set-up: no Anthropic key, no
 * AWS keys or profile, the shared files under `home` (absent unless a test writes them), no
 * instance metadata. A test adds the credentials it means to test.
 */
export function isolatedBedrockEnv(home: string): Record<string, string | undefined> {
  return {
    CLAUDE_CODE_USE_BEDROCK: '1',
    ANTHROPIC_API_KEY: undefined,
    AWS_ACCESS_KEY_ID: undefined,
    AWS_SECRET_ACCESS_KEY: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_PROFILE: undefined,
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    AWS_CONFIG_FILE: join(home, 'config'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/**
 * `creds` null: the endpoint takes unsigned requests (a gateway that signs itself,
 * CLAUDE_CODE_SKIP_BEDROCK_AUTH) and refuses signed ones. `region`: the region (or regions: one
 * endpoint standing in for several) a signature may be scoped to. `profiles`: the system-defined
 * inference profiles ListInferenceProfiles lists (in pages of two); without it that call gets a
 * 404, as from a gateway that serves the runtime API only. `profilesDelayMs`: it answers that late.
 */
export async function startFakeBedrock(
  api: FakeApi,
  opts: {
    region: string | string[];
    creds: AwsTestCredentials | null;
    profiles?: string[];
    profilesDelayMs?: number;
    /** The first `times` streamed replies end after `afterChunks` chunk frames with an exception frame. */
    streamException?: { afterChunks: number; type: string; message: string; times: number };
  },
): Promise<FakeBedrock> {
  let exceptionsLeft = opts.streamException?.times ?? 0;
  const regions = Array.isArray(opts.region) ? opts.region : [opts.region];
  const codec = new EventStreamCodec(utf8.to, utf8.from);
  const front = await startFront(api, async (req) => {
    const url = new URL(req.path, 'http://x');
    if (req.method === 'GET' && url.pathname === '/inference-profiles') {
      if (opts.profilesDelayMs) await new Promise((r) => setTimeout(r, opts.profilesDelayMs));
      if (opts.creds) {
        const problem = await signatureProblem(req, opts.creds, regions);
        if (problem) return refuse(403, 'UnrecognizedClientException', problem);
      }
      if (!opts.profiles) return refuse(404, 'UnknownOperationException', 'no operation GET /inference-profiles');
      if (url.searchParams.get('type') !== 'SYSTEM_DEFINED')
        return refuse(400, 'ValidationException', `unexpected type ${url.searchParams.get('type')}`);
      const from = Number(url.searchParams.get('nextToken') ?? 0);
      const page = opts.profiles.slice(from, from + PROFILE_PAGE);
      return {
        answer: {
          body: {
            inferenceProfileSummaries: page.map((id) => ({
              inferenceProfileId: id,
              inferenceProfileName: id,
              inferenceProfileArn: `arn:aws:bedrock:${regions[0]}:123456789012:inference-profile/${id}`,
              models: [],
              status: 'ACTIVE',
              type: 'SYSTEM_DEFINED',
            })),
            ...(from + PROFILE_PAGE < opts.profiles.length ? { nextToken: String(from + PROFILE_PAGE) } : {}),
          },
        },
      };
    }
    const path = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(req.path);
    if (req.method !== 'POST' || !path)
      return refuse(404, 'UnknownOperationException', `no operation ${req.method} ${req.path}`);
    if (opts.creds) {
      const problem = await signatureProblem(req, opts.creds, regions);
      if (problem)
        return refuse(
          403,
          problem.includes('signature') ? 'InvalidSignatureException' : 'UnrecognizedClientException',
          problem,
        );
    } else if (req.headers.authorization) return refuse(400, 'ValidationException', 'unexpected Authorization header');
    let body: any;
    try {
      body = JSON.parse(req.body);
    } catch {
      return refuse(400, 'ValidationException', 'Malformed input request');
    }
    if (body.anthropic_version !== 'bedrock-2023-05-31')
      return refuse(
        400,
        'ValidationException',
        `anthropic_version must be bedrock-2023-05-31, not ${body.anthropic_version}`,
      );
    if ('model' in body || 'stream' in body)
      return refuse(400, 'ValidationException', 'extraneous key [model/stream] is not permitted');
    const { anthropic_version: _v, anthropic_beta: betas, ...rest } = body;
    const stream = path[2] === 'invoke-with-response-stream';
    return {
      forward: {
        body: { model: decodeURIComponent(path[1]), ...rest, stream },
        beta: Array.isArray(betas) ? betas.join(',') : undefined,
      },
      reply: stream
        ? async (upstream, res) => {
            res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake' });
            const cut = opts.streamException && exceptionsLeft-- > 0 ? opts.streamException : undefined;
            let chunks = 0;
            for await (const ev of sseEvents(upstream.body!)) {
              if (cut && chunks++ === cut.afterChunks) {
                // As Bedrock ends a stream it cannot finish: an exception frame, then the end.
                res.write(
                  codec.encode({
                    headers: {
                      ':exception-type': { type: 'string', value: cut.type },
                      ':content-type': { type: 'string', value: 'application/json' },
                      ':message-type': { type: 'string', value: 'exception' },
                    },
                    body: utf8.from(JSON.stringify({ message: cut.message })),
                  }),
                );
                break;
              }
              const frame = codec.encode({
                headers: {
                  ':event-type': { type: 'string', value: 'chunk' },
                  ':content-type': { type: 'string', value: 'application/json' },
                  ':message-type': { type: 'string', value: 'event' },
                },
                body: utf8.from(JSON.stringify({ bytes: Buffer.from(ev.data).toString('base64') })),
              });
              res.write(frame);
            }
            res.end();
          }
        : undefined,
    };
  });
  const isLookup = (s: SeenRequest) => s.path.startsWith('/inference-profiles');
  return {
    url: front.url,
    close: front.close,
    get seen() {
      return front.seen.filter((s) => !isLookup(s));
    },
    get profileLookups() {
      return front.seen.filter(isLookup);
    },
  };
}
