// An OAuth 2.0 token endpoint over TLS, as the fakes of Google's and Microsoft's logins serve it: a
// form POST is checked by the fake's own rule and answered with a fresh token, or refused in the
// provider's error shape. Each token issued and each refusal is recorded for the test to assert.
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { listenTracked } from './listen.js';

export interface TokenServer {
  /** `127.0.0.1:<port>`, for a proxy's redirect of the provider's host. */
  address: string;
  issued: string[];
  refused: string[];
  close(): Promise<void>;
}

export interface TokenRules {
  /** Why the request is refused (its method, URL and form), or null. */
  problem(method: string | undefined, url: string, form: URLSearchParams): string | null;
  /** The refusal's status and OAuth `error`. */
  refusal: { status: number; error: string };
  /** The token's prefix (a random suffix is added). */
  tokenPrefix: string;
  /** The success body for an issued token. */
  body(token: string): object;
}

export async function startFormTokenServer(
  rules: TokenRules,
  tls: { cert: Buffer; key: Buffer },
): Promise<TokenServer> {
  const issued: string[] = [];
  const refused: string[] = [];
  const server = https.createServer(tls, async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const problem = rules.problem(req.method, req.url ?? '', new URLSearchParams(raw));
    if (problem) {
      refused.push(problem);
      res.writeHead(rules.refusal.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: rules.refusal.error, error_description: problem }));
      return;
    }
    const token = `${rules.tokenPrefix}${randomBytes(6).toString('hex')}`;
    issued.push(token);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(rules.body(token)));
  });
  const { address, close } = await listenTracked(server, 'https');
  return { address, issued, refused, close };
}
