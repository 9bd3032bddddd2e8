// NODE_EXTRA_CA_CERTS, read at the first TLS connection instead of at start. Node parses that file
// and its whole bundled root store while it starts, whether or not the process ever opens a TLS
// connection: about 50 ms of a 100 ms `node -e 0` on a machine that sets it. bin/agent's shell lines
// move the variable to AGENT_CA_WAS before Node starts; src/util/hostEnv.ts puts it back for
// children, and here every TLS context made without a `ca` of its own (fetch, https, http2, the cloud SDKs, undici's proxy agent) gets Node's roots plus the
// file's certificates, as Node would have given it. `node bin/agent` skips the shell lines: Node
// then reads the file itself and nothing here runs.
import { accessSync, constants, readFileSync } from 'node:fs';
import { loadExternal } from '../util/loadExternal.js';
import { logWarning } from '../util/log.js';

type Tls = typeof import('node:tls');
type ContextOptions = import('node:tls').SecureContextOptions;

/** What tls.createSecureContext reads besides `ca`: options with none of them set get one shared context. */
const CONTEXT_OPTIONS = [
  'allowPartialTrustChain',
  'cert',
  'ciphers',
  'clientCertEngine',
  'crl',
  'dhparam',
  'ecdhCurve',
  'honorCipherOrder',
  'key',
  'maxVersion',
  'minVersion',
  'passphrase',
  'pfx',
  'privateKeyEngine',
  'privateKeyIdentifier',
  'secureOptions',
  'secureProtocol',
  'sessionIdContext',
  'sessionTimeout',
  'sigalgs',
  'ticketKeys',
];

/** A certificate's base64 body, whatever its line breaks. */
const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');

/**
 * The certificates of `extra` that `roots` does not already hold, each once. A common setting points
 * NODE_EXTRA_CA_CERTS at the system's whole bundle (Debian's ca-certificates.crt: 144 certificates,
 * 122 of them Node's roots too), and a context parses every certificate it is given: 68 → 41 ms of
 * CPU for that context, the same trust.
 */
export function newCertificates(roots: readonly string[], extra: readonly string[]): string[] {
  const seen = new Set(roots.map(body));
  return extra.filter((pem) => {
    const key = body(pem);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Trusts NODE_EXTRA_CA_CERTS from the first TLS context on, when bin/agent kept it from Node's start
 * (`deferred`: src/util/hostEnv.ts has put the variable back for children by then).
 */
export function trustDeferredCa(deferred: boolean, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!deferred || !file) return;
  try {
    accessSync(file, constants.R_OK);
  } catch (err) {
    // Node's own words at start for the same case: the run goes on with the bundled roots.
    logWarning(`Ignoring extra certs from \`${file}\`, load failed: ${(err as Error).message}`);
    return;
  }
  const tls = loadExternal<Tls>('node:tls');
  const original = tls.createSecureContext;
  let extra: string[] | undefined;
  /** The file's certificates that Node's roots do not hold, read once. */
  const extraCerts = (): string[] => {
    if (extra) return extra;
    let found: string[] = [];
    try {
      found = readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
      if (found.length === 0) logWarning(`Ignoring extra certs from \`${file}\`, load failed: no certificate in it`);
    } catch (err) {
      logWarning(`Ignoring extra certs from \`${file}\`, load failed: ${(err as Error).message}`);
    }
    extra = newCertificates(tls.rootCertificates, found);
    return extra;
  };
  // A context made without a `ca` trusts Node's root store, whose certificates are parsed once per
  // process; the file's are added to the context's own copy of it (`addCACert`, what Node does with
  // NODE_EXTRA_CA_CERTS at start): about 1 ms of CPU a context. A `ca` list of Node's roots plus
  // the file's instead parses every certificate in it at each context, about 25 ms, which a
  // connection with a client certificate paid each time (tls.connect makes a context per
  // connection from its options). The list stays as the fallback should the native context lose
  // that method.
  const make = (self: unknown, options: ContextOptions | undefined) => {
    const context = original.call(self, options);
    const native = (context as { context?: { addCACert?: (pem: string) => void } }).context;
    if (typeof native?.addCACert !== 'function')
      return original.call(self, { ...options, ca: [...tls.rootCertificates, ...extraCerts()] });
    for (const pem of extraCerts()) native.addCACert(pem);
    return context;
  };
  // Connections that set nothing else a context holds share one, as Node's default context is.
  let shared: ReturnType<Tls['createSecureContext']> | undefined;
  tls.createSecureContext = function createSecureContext(this: unknown, options?: ContextOptions) {
    // A context with a `ca` of its own trusts only that, with or without the variable.
    if (options?.ca !== undefined) return original.call(this, options);
    const opts = options as Record<string, unknown> | undefined;
    if (!opts || CONTEXT_OPTIONS.every((k) => opts[k] === undefined)) {
      shared ??= make(this, undefined);
      return shared;
    }
    return make(this, options);
  } as Tls['createSecureContext'];
}
