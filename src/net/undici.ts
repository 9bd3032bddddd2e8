// undici, for what Node's built-in fetch does not offer: the proxy and client-certificate
// dispatcher (outboundAgent.ts) and the Monitor tool's WebSocket client (src/tasks/monitor.ts).
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
