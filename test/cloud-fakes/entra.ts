// A fake Microsoft Entra ID token endpoint (login.microsoftonline.com, reached through a test proxy
// and CA): the OAuth 2.0 client-credentials grant of a service principal, as @azure/identity's
// EnvironmentCredential asks for it (`POST /{tenant}/oauth2/v2.0/token` with client_id,
// client_secret, scope). The public cloud's metadata is built into MSAL, so no discovery is asked.
import { startFormTokenServer, type TokenServer } from './tokenServer.js';

export interface EntraPrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** The scope a token is issued for. */
  scope: string;
}

export type FakeEntra = TokenServer;

export function startFakeEntra(p: EntraPrincipal, tls: { cert: Buffer; key: Buffer }): Promise<FakeEntra> {
  return startFormTokenServer(
    {
      problem: (method, url, form) => {
        const path = url.split('?')[0];
        return method !== 'POST' || path !== `/${p.tenantId}/oauth2/v2.0/token`
          ? `no ${method} ${path}`
          : form.get('grant_type') !== 'client_credentials'
            ? `grant_type ${form.get('grant_type')}`
            : form.get('client_id') !== p.clientId || form.get('client_secret') !== p.clientSecret
              ? 'AADSTS7000215: Invalid client secret provided.'
              : form.get('scope') !== p.scope
                ? `AADSTS70011: scope ${form.get('scope')}`
                : null;
      },
      refusal: { status: 401, error: 'invalid_client' },
      tokenPrefix: 'entra-test-',
      body: (token) => ({ token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token }),
    },
    tls,
  );
}
