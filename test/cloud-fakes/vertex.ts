// A fake Google Vertex AI endpoint and a fake Google OAuth token endpoint. The token endpoint takes
// the JWT a service account signs (the jwt-bearer grant), checks its RS256 signature against the
// test key's public half and its claims, and issues an access token; the Vertex endpoint takes
// only that token, on the rawPredict / streamRawPredict path of the test's project and region,
// with `anthropic_version: "vertex-2023-10-16"` in the body.
import { createPublicKey, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { FakeApi } from '../fake-api/server.js';
import { type Front, startFront } from './front.js';
import { startFormTokenServer, type TokenServer } from './tokenServer.js';

export interface ServiceAccount {
  keyFile: string;
  email: string;
  publicKeyPem: string;
}

/** One RSA key for every service account of a test worker: making one costs 60-170 ms of CPU. */
let keyPair: ReturnType<typeof generateKeyPairSync> | undefined;

/** Writes a service-account key file (the worker's RSA key, a fresh key id) for `project` into `file`. */
export function writeServiceAccountKey(file: string, project: string): ServiceAccount {
  keyPair ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { privateKey, publicKey } = keyPair;
  const email = `agent-test@${project}.iam.gserviceaccount.com`;
  writeFileSync(
    file,
    JSON.stringify({
      type: 'service_account',
      project_id: project,
      private_key_id: randomBytes(8).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: email,
      client_id: '1234567890',
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
  );
  return { keyFile: file, email, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

export type { TokenServer };

const b64url = (s: string) => Buffer.from(s, 'base64url');

function jwtProblem(assertion: string, sa: ServiceAccount): string | null {
  const [h, p, sig] = assertion.split('.');
  if (!h || !p || !sig) return 'assertion is not a JWT';
  const header = JSON.parse(b64url(h).toString());
  const claims = JSON.parse(b64url(p).toString());
  if (header.alg !== 'RS256') return `alg ${header.alg}`;
  const ok = createVerify('RSA-SHA256').update(`${h}.${p}`).verify(createPublicKey(sa.publicKeyPem), b64url(sig));
  if (!ok) return 'Invalid JWT Signature.';
  if (claims.iss !== sa.email) return `iss ${claims.iss}`;
  if (claims.aud !== 'https://oauth2.googleapis.com/token') return `aud ${claims.aud}`;
  if (!String(claims.scope ?? '').includes('https://www.googleapis.com/auth/cloud-platform'))
    return `scope ${claims.scope}`;
  if (!(claims.exp > Date.now() / 1000)) return 'Invalid JWT: Token must be a short-lived token';
  return null;
}

/** The OAuth token endpoint, served over TLS with `cert`/`key` (a certificate for oauth2.googleapis.com). */
export function startTokenServer(sa: ServiceAccount, tls: { cert: Buffer; key: Buffer }): Promise<TokenServer> {
  return startFormTokenServer(
    {
      problem: (method, url, form) =>
        method !== 'POST' || url !== '/token'
          ? `no ${method} ${url}`
          : form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer'
            ? `grant_type ${form.get('grant_type')}`
            : jwtProblem(form.get('assertion') ?? '', sa),
      refusal: { status: 400, error: 'invalid_grant' },
      tokenPrefix: 'ya29.test-',
      body: (token) => ({ access_token: token, expires_in: 3599, token_type: 'Bearer' }),
    },
    tls,
  );
}

/** `tokens` null: no credentials are expected (CLAUDE_CODE_SKIP_VERTEX_AUTH, a gateway adds them). */
export function startFakeVertex(
  api: FakeApi,
  opts: { project: string; regions: string[]; tokens: TokenServer | null },
): Promise<Front> {
  const refuse = (status: number, message: string) => ({
    refuse: {
      status,
      body: { error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : 'INVALID_ARGUMENT' } },
    },
  });
  return startFront(api, (req) => {
    const m =
      /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(
        req.path,
      );
    if (req.method !== 'POST' || !m) return refuse(404, `no such method: ${req.method} ${req.path}`);
    const [, project, region, model, method] = m;
    if (project !== opts.project) return refuse(403, `Permission denied on project ${project}`);
    if (!opts.regions.includes(region)) return refuse(404, `Publisher model not found in ${region}`);
    const auth = String(req.headers.authorization ?? '');
    if (opts.tokens) {
      if (!opts.tokens.issued.includes(auth.replace(/^Bearer /, '')))
        return refuse(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    } else if (auth) return refuse(400, 'unexpected Authorization header');
    let body: any;
    try {
      body = JSON.parse(req.body);
    } catch {
      return refuse(400, 'Invalid JSON payload received.');
    }
    if (body.anthropic_version !== 'vertex-2023-10-16')
      return refuse(400, `anthropic_version: expected vertex-2023-10-16, got ${body.anthropic_version}`);
    if ('model' in body) return refuse(400, 'model: Extra inputs are not permitted');
    const { anthropic_version: _v, ...rest } = body;
    const stream = method === 'streamRawPredict';
    if (Boolean(rest.stream) !== stream) return refuse(400, `stream must be ${stream} for ${method}`);
    const beta = req.headers['anthropic-beta'];
    return { forward: { body: { model, ...rest }, beta: typeof beta === 'string' ? beta : undefined } };
  });
}
