// The agents for connections made with Node's http/https modules rather than fetch: the AWS SDK's
// own calls (STS and SSO while resolving credentials, Bedrock's control plane) and the
// OpenTelemetry HTTP exporters. They follow the same settings as the fetch path
// (outboundAgent.ts): HTTPS_PROXY / HTTP_PROXY / NO_PROXY through one `proxy-agent` Agent (an
// http:// target goes to the proxy as an absolute-URI request, an https:// one through a CONNECT
// tunnel), and CLAUDE_CODE_CLIENT_CERT presented to every https:// server that asks, proxied or
// not. Nothing is loaded when neither is set.
import type { Agent } from 'node:http';
import { clientCertificate, outboundConfigured, proxyConfigured } from './outboundAgent.js';
import { loadExternal } from '../util/loadExternal.js';
import { proxyFor } from './proxyFor.js';

/** The agent for each protocol; an absent one means Node's default. */
export interface NodeAgents {
  http?: Agent;
  https?: Agent;
}

let made: { key: string; agents: NodeAgents } | null = null;

const VARIABLES = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'CLAUDE_CODE_CLIENT_CERT',
  'CLAUDE_CODE_CLIENT_KEY',
  'CLAUDE_CODE_CLIENT_KEY_PASSPHRASE',
];

/** The agents to give a Node http client, or null when no proxy and no client certificate is set. */
export function nodeAgents(env: NodeJS.ProcessEnv = process.env): NodeAgents | null {
  if (!outboundConfigured(env)) return null;
  const proxy = proxyConfigured(env);
  const key = JSON.stringify(VARIABLES.map((k) => env[k] ?? null));
  if (made?.key === key) return made.agents;
  const tls = clientCertificate(env) ?? {};
  let agents: NodeAgents;
  if (proxy) {
    // The certificate goes in the agent's options: proxy-agent hands them to the direct agent and,
    // through each request's options, to the TLS connection inside a CONNECT tunnel.
    const { ProxyAgent } = loadExternal<typeof import('proxy-agent')>('proxy-agent');
    const agent = new ProxyAgent({ ...tls, getProxyForUrl: (url: string) => proxyFor(url, env) });
    agents = { http: agent, https: agent };
  } else {
    const https = loadExternal<typeof import('node:https')>('node:https');
    agents = { https: new https.Agent({ ...tls, keepAlive: true }) };
  }
  made = { key, agents };
  return agents;
}
