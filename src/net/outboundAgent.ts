// Proxies and client certificates for every outbound connection made with fetch: the Messages API
// (and the cloud providers' SDKs, which fetch too), WebFetch and MCP servers over HTTP. One undici
// dispatcher is installed as the process's global one, so each of them honours HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY (either case) and presents CLAUDE_CODE_CLIENT_CERT when a server asks.
// NODE_EXTRA_CA_CERTS needs nothing here: every TLS context made without a `ca` of its own trusts
// it (Node itself, or src/net/deferredCa.ts when bin/agent kept it from Node's start).
//
// Nothing is loaded when none of these is set, so an ordinary start does not pay for undici.
import { readFileSync } from 'node:fs';
import { loadUndici } from './undici.js';

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARS.some((k) => env[k]?.trim());
}

/** Whether outbound connections need more than a direct one: a proxy, or a client certificate (or its key). */
export function outboundConfigured(env: NodeJS.ProcessEnv): boolean {
  return proxyConfigured(env) || Boolean(env.CLAUDE_CODE_CLIENT_CERT?.trim() || env.CLAUDE_CODE_CLIENT_KEY?.trim());
}

/** CLAUDE_CODE_CLIENT_CERT / _KEY / _KEY_PASSPHRASE read, or null when unset; throws naming the variable that is wrong. */
export function clientCertificate(env: NodeJS.ProcessEnv): { cert: Buffer; key: Buffer; passphrase?: string } | null {
  const certFile = env.CLAUDE_CODE_CLIENT_CERT?.trim();
  const keyFile = env.CLAUDE_CODE_CLIENT_KEY?.trim();
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile)
    throw new Error(
      `${certFile ? 'CLAUDE_CODE_CLIENT_KEY' : 'CLAUDE_CODE_CLIENT_CERT'} is not set: a client certificate needs both CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY`,
    );
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(
        `${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  };
  const passphrase = env.CLAUDE_CODE_CLIENT_KEY_PASSPHRASE;
  return {
    cert: read('CLAUDE_CODE_CLIENT_CERT', certFile),
    key: read('CLAUDE_CODE_CLIENT_KEY', keyFile),
    ...(passphrase ? { passphrase } : {}),
  };
}

function checkProxyUrls(env: NodeJS.ProcessEnv): void {
  for (const k of PROXY_VARS) {
    const v = env[k]?.trim();
    if (!v) continue;
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      throw new Error(`${k} is not a URL: "${v}" (expected e.g. http://proxy.example.com:8080)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${k}: only http:// and https:// proxies are supported, not ${url.protocol}//`);
  }
}

/**
 * Installs the global dispatcher when a proxy or a client certificate is configured; returns what
 * it set up (for the debug log), or null when there was nothing to do. Throws, naming the
 * variable, when one is unusable.
 */
export async function installOutboundAgent(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const proxy = proxyConfigured(env);
  const tls = clientCertificate(env);
  if (!proxy && !tls) return null;
  if (proxy) checkProxyUrls(env);
  const undici = loadUndici();
  // A plain http:// target goes to the proxy as an absolute-URI request (as the reference sends
  // it); https:// targets are tunnelled with CONNECT, the client certificate presented inside.
  const dispatcher = proxy
    ? new undici.EnvHttpProxyAgent({ proxyTunnel: false, ...(tls ? { connect: tls, requestTls: tls } : {}) })
    : new undici.Agent({ connect: tls! });
  undici.setGlobalDispatcher(dispatcher);
  return [proxy ? 'proxy from HTTPS_PROXY/HTTP_PROXY/NO_PROXY' : '', tls ? 'client certificate' : '']
    .filter(Boolean)
    .join(', ');
}
