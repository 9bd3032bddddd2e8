// A fake Microsoft Entra ID token endpoint (login.microsoftonline.com, reached through a test proxy
// and CA): the OAuth 2.0 client-credentials grant of a service principal, as @azure/identity's
// EnvironmentCredential asks for it (`POST /{tenant}/oauth2/v2.0/token` with client_id,
// client_secret, scope). The public cloud's metadata is built into MSAL, so no discovery is asked.
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { listenTracked } from './listen.js';

export interface EntraPrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** The scope a token is issued for. */
  scope: string;
}

export interface FakeEntra {
  /** `127.0.0.1:<port>`, for the proxy's redirect of login.microsoftonline.com:443. */
  address: string;
  issued: string[];
  refused: string[];
  close(): Promise<void>;
}

export async function startFakeEntra(p: EntraPrincipal, tls: { cert: Buffer; key: Buffer }): Promise<FakeEntra> {
  const issued: string[] = [];
  const refused: string[] = [];
  const server = https.createServer(tls, async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const form = new URLSearchParams(raw);
    const path = (req.url ?? '').split('?')[0];
    const problem =
      req.method !== 'POST' || path !== `/${p.tenantId}/oauth2/v2.0/token`
        ? `no ${req.method} ${path}`
        : form.get('grant_type') !== 'client_credentials'
          ? `grant_type ${form.get('grant_type')}`
          : form.get('client_id') !== p.clientId || form.get('client_secret') !== p.clientSecret
            ? 'AADSTS7000215: Invalid client secret provided.'
            : form.get('scope') !== p.scope
              ? `AADSTS70011: scope ${form.get('scope')}`
              : null;
    if (problem) {
      refused.push(problem);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_client', error_description: problem }));
      return;
    }
    const token = `entra-test-${randomBytes(6).toString('hex')}`;
    issued.push(token);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token }));
  });
  const { address, close } = await listenTracked(server, 'https');
  return { address, issued, refused, close };
}
