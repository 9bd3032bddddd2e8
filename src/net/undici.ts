// undici, for what Node's built-in fetch does not offer: the proxy and client-certificate
// dispatcher (outboundAgent.ts), the Monitor tool's WebSocket client (src/tasks/monitor.ts), and the
// fetch of WebFetch and of MCP servers over HTTP (undiciFetch below).
// The build makes the package one CommonJS file beside the CLI's bundle (dist/undici.cjs), run
// through its code cache (src/util/cachedBundle.ts): from node_modules its hundred-odd modules cost
// 0.16 s of CPU at each start that sets a proxy or a client certificate, the bundle 0.07 s. Run from the sources (no bundle beside them), the package itself.
import { requireBundleBeside } from '../util/cachedBundle.js';
import { loadExternal } from '../util/loadExternal.js';

type Undici = typeof import('undici');

let loaded: Undici | undefined;

export function loadUndici(): Undici {
  loaded ??= requireBundleBeside<Undici>('undici.cjs', () => loadExternal<Undici>('undici'));
  return loaded;
}

/**
 * undici's own fetch, for the connections a tool makes to servers we do not run (WebFetch's pages,
 * MCP servers over HTTP or SSE). Node 20's built-in fetch (undici 6) sometimes never settles when a
 * TLS 1.3 server refuses the client after the handshake (a server that wants a client certificate
 * and got none): about one connection in four here, so a session waited for MCP_TIMEOUT (30 s)
 * before its first turn, and WebFetch for its own 60 s. undici 7 fails such a connection at once.
 * Loaded at the first call, not at start.
 *
 * Its connections are undici 7's too: both copies keep the global dispatcher under one symbol, and
 * the first use of Node's own `Headers` or `fetch` (the MCP SDK makes headers before it fetches)
 * puts an undici 6 Agent there. So a global dispatcher that is not undici 7's is passed over for an
 * Agent of ours; one that is (outboundAgent.ts's proxy and client-certificate dispatcher) is used.
 */
export function undiciFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const u = loadUndici();
  const dispatcher = u.getGlobalDispatcher() instanceof u.Dispatcher ? undefined : ownDispatcher(u);
  const options = (dispatcher ? { ...init, dispatcher } : init) as Parameters<Undici['fetch']>[1];
  return u.fetch(url, options) as unknown as Promise<Response>;
}

let own: InstanceType<Undici['Agent']> | undefined;

function ownDispatcher(u: Undici): InstanceType<Undici['Agent']> {
  own ??= new u.Agent();
  return own;
}
