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
 * It goes through the process's global dispatcher, so a proxy or a client certificate set up by
 * outboundAgent.ts applies as before. Loaded at the first call, not at start.
 */
export const undiciFetch = ((input: string | URL | Request, init?: RequestInit) =>
  loadUndici().fetch(
    input as Parameters<Undici['fetch']>[0],
    init as Parameters<Undici['fetch']>[1],
  )) as unknown as typeof fetch;
