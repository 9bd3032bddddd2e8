// Which proxy a URL goes through, read from HTTPS_PROXY / HTTP_PROXY / NO_PROXY with the rules the
// fetch path applies (undici's EnvHttpProxyAgent, outboundAgent.ts): the lowercase name wins over
// the uppercase one; an https:// URL uses HTTPS_PROXY, else HTTP_PROXY; NO_PROXY lists hosts
// (`example.com` also covers its subdomains; a leading `.` or `*.` is the same), `host:port`, or
// `*` for all. Used for the connections that do not go through fetch (the AWS SDK's calls, the
// OpenTelemetry exporters), so every outbound connection follows the same variables.

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

function first(env: NodeJS.ProcessEnv, ...names: string[]): string {
  for (const n of names) {
    const v = env[n]?.trim();
    if (v) return v;
  }
  return '';
}

/** True when NO_PROXY exempts `url`'s host (and port) from the proxy. */
export function bypassesProxy(url: URL, env: NodeJS.ProcessEnv): boolean {
  const list = first(env, 'no_proxy', 'NO_PROXY');
  if (!list) return false;
  if (list === '*') return true;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORT[url.protocol] || 0;
  for (const raw of list.split(/[,\s]/)) {
    if (!raw) continue;
    const m = /^(.+):(\d+)$/.exec(raw);
    const entry = (m ? m[1] : raw).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/** The proxy URL for `target`, or '' to connect directly. */
export function proxyFor(target: string | URL, env: NodeJS.ProcessEnv): string {
  const url = typeof target === 'string' ? new URL(target) : target;
  const http = first(env, 'http_proxy', 'HTTP_PROXY');
  const proxy = url.protocol === 'https:' ? first(env, 'https_proxy', 'HTTPS_PROXY') || http : http;
  return proxy && !bypassesProxy(url, env) ? proxy : '';
}
