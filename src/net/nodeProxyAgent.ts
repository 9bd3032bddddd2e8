// The proxy for connections made with Node's http/https modules rather than fetch: the AWS SDK's
// own calls (STS and SSO while resolving credentials, Bedrock's control plane) and the
// OpenTelemetry HTTP exporters. One `proxy-agent` Agent, choosing per request by the same
// HTTPS_PROXY / HTTP_PROXY / NO_PROXY rules as the fetch path (proxyFor.ts): an http:// target
// goes to the proxy as an absolute-URI request, an https:// one through a CONNECT tunnel.
// Nothing is loaded when no proxy is set.
import type { Agent } from 'node:http';
import { loadExternal } from '../util/loadExternal.js';
import { proxyConfigured } from './outboundAgent.js';
import { proxyFor } from './proxyFor.js';

let agent: { key: string; agent: Agent } | null = null;

/** The Agent to give a Node http client, or null when no proxy is configured. */
export function nodeProxyAgent(env: NodeJS.ProcessEnv = process.env): Agent | null {
  if (!proxyConfigured(env)) return null;
  const key = JSON.stringify(
    ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'].map((k) => env[k] ?? null),
  );
  if (agent?.key === key) return agent.agent;
  const { ProxyAgent } = loadExternal<typeof import('proxy-agent')>('proxy-agent');
  agent = { key, agent: new ProxyAgent({ getProxyForUrl: (url: string) => proxyFor(url, env) }) };
  return agent.agent;
}
