// A test certificate authority and a TLS server in front of the fake Messages API, made with
// openssl at test time: the server's certificate is for 127.0.0.1 and signed by a CA no trust store
// has, and with `clientCa` the server asks for a client certificate signed by that CA.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { listenTracked } from './listen.js';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  /** Encrypted with `clientKeyPassphrase`. */
  clientKey: string;
  clientKeyPassphrase: string;
}

function openssl(cwd: string, ...args: string[]) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

const PKI_FILES = ['ca.crt', 'ca.key', 'server.crt', 'server.key', 'client.crt', 'client.key'];
/** The PKIs this worker has made, by their server names (each is six openssl runs). */
const made = new Map<string, Map<string, Buffer>>();

/**
 * Writes a CA, a server certificate for 127.0.0.1 (and `dnsNames`: a fake of a public host reached
 * through a proxy) and a client certificate into `dir`. Made with openssl once per set of names in
 * a test worker, then copied: a CA no trust store has is all a test needs of it.
 */
export function makeTestPki(dir: string, opts: { dnsNames?: string[] } = {}): TestPki {
  const key = (opts.dnsNames ?? []).join(',');
  const files = made.get(key);
  if (files) for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
  else {
    generatePki(dir, opts.dnsNames ?? []);
    made.set(key, new Map(PKI_FILES.map((name) => [name, readFileSync(join(dir, name))])));
  }
  return {
    caCert: join(dir, 'ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
    clientKeyPassphrase: 'client-pass',
  };
}

/** P-256 keys: made in milliseconds, where a 2048-bit RSA key takes a quarter of a second of CPU or more. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

function generatePki(dir: string, dnsNames: string[]): void {
  openssl(
    dir,
    'req',
    '-x509',
    ...NEW_KEY,
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=agent test CA',
  );
  const names = ['IP:127.0.0.1', ...dnsNames.map((n) => `DNS:${n}`)].join(',');
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`);
  openssl(dir, 'req', ...NEW_KEY, '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(
    dir,
    'req',
    ...NEW_KEY,
    '-passout',
    'pass:client-pass',
    '-keyout',
    'client.key',
    '-out',
    'client.csr',
    '-subj',
    '/CN=agent test client',
  );
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.crt',
    '-days',
    '2',
    '-extfile',
    'client.ext',
  );
}

export interface TlsFront {
  url: string;
  /** The subject CN of each client certificate presented, or null for a connection without one. */
  clients: Array<string | null>;
  close(): Promise<void>;
}

/**
 * An HTTPS server that forwards every request to `targetUrl` (an http:// fake API). `maxVersion`
 * 'TLSv1.2' makes a refused client certificate fail the handshake itself: under TLS 1.3 the
 * server refuses it only after the client's handshake is done, and Node 20's built-in fetch
 * (undici 6) then sometimes never settles (about one request in ten here; `https.request` and
 * undici 7 always fail), so a run expected to be refused would hang until the test kills it. The
 * agent's own WebFetch and MCP connections use undici 7's fetch for that reason (src/net/undici.ts),
 * and test/e2e/mtls-connections.test.ts refuses them under TLS 1.3 on purpose.
 */
export async function startTlsFront(
  pki: TestPki,
  targetUrl: string,
  opts: { requireClientCert?: boolean; maxVersion?: 'TLSv1.2' } = {},
): Promise<TlsFront> {
  const { readFileSync } = await import('node:fs');
  const target = new URL(targetUrl);
  const clients: Array<string | null> = [];
  const server = https.createServer(
    {
      cert: readFileSync(pki.serverCert),
      key: readFileSync(pki.serverKey),
      ...(opts.requireClientCert ? { ca: readFileSync(pki.caCert), requestCert: true, rejectUnauthorized: true } : {}),
      ...(opts.maxVersion ? { maxVersion: opts.maxVersion } : {}),
    },
    (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
      const cn = peer?.subject?.CN;
      clients.push(Array.isArray(cn) ? cn.join(',') : (cn ?? null));
      const up = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    },
  );
  const { url, close } = await listenTracked(server, 'https');
  return { url, clients, close };
}
