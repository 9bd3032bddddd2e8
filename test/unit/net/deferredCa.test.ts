// NODE_EXTRA_CA_CERTS read at the first TLS connection (src/net/deferredCa.ts): the contexts it
// makes trust the file, and connections that set nothing else a context holds share one (a
// context with a CA list costs tens of ms of CPU to make). It patches the process's tls module,
// so it runs in a child process, from the compiled module the build writes (dist/src).
import { spawnSync } from 'node:child_process';
import { rootCertificates } from 'node:tls';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../tempDirs.js';
import { makeTestPki } from '../../cloud-fakes/tls.js';
import { newCertificates } from '../../../src/net/deferredCa.js';

const MODULE = join(import.meta.dirname, '../../../dist/src/net/deferredCa.js');

describe('trustDeferredCa', () => {
  it('one shared context for plain connections; a connection with its own options or CA gets its own', () => {
    const dir = makeTempDir('agent-ca-');
    const caFile = join(dir, 'extra.pem');
    writeFileSync(caFile, `${rootCertificates[0]}\n`);
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      `import tls from 'node:tls';
const { trustDeferredCa } = await import(${JSON.stringify(MODULE)});
trustDeferredCa(true);
const plain = tls.createSecureContext({ servername: 'api.example.com', rejectUnauthorized: true, ALPNProtocols: ['http/1.1'] });
console.log(JSON.stringify({
  shared: plain === tls.createSecureContext({ host: 'other.example.com' }) && plain === tls.createSecureContext(),
  ownVersion: plain !== tls.createSecureContext({ minVersion: 'TLSv1.3' }),
  ownCa: plain !== tls.createSecureContext({ ca: [tls.rootCertificates[1]] }),
}));
`,
    );
    const r = spawnSync(process.execPath, [script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ shared: true, ownVersion: true, ownCa: true });
  });

  it("a connection with a client certificate trusts the file's CA through a context made without a CA list; the shared one does too", () => {
    const dir = makeTempDir('agent-ca-');
    const pki = makeTestPki(dir);
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      `import tls from 'node:tls';
import { readFileSync } from 'node:fs';
// What the wrapper asks of Node: a \`ca\` list (an array; the server's own CA is one Buffer) parses all of
// Node's roots at every context.
const lists = [];
const node = tls.createSecureContext;
tls.createSecureContext = (o) => (Array.isArray(o?.ca) && lists.push(o.ca.length), node(o));
const { trustDeferredCa } = await import(${JSON.stringify(MODULE)});
trustDeferredCa(true);
const read = (f) => readFileSync(f);
const server = tls.createServer({ cert: read(${JSON.stringify(pki.serverCert)}), key: read(${JSON.stringify(pki.serverKey)}),
  ca: read(${JSON.stringify(pki.caCert)}), requestCert: true, rejectUnauthorized: false }, (s) => s.end('hi'));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const connect = (extra) => new Promise((resolve) => {
  const s = tls.connect({ host: '127.0.0.1', port: server.address().port, ...extra }, () => {
    resolve({ trusted: s.authorized, presented: s.getCertificate() !== null && Object.keys(s.getCertificate()).length > 0 });
    s.destroy();
  });
  s.on('error', (e) => resolve({ error: e.code ?? e.message }));
});
const mtls = await connect({ cert: read(${JSON.stringify(pki.clientCert)}), key: read(${JSON.stringify(pki.clientKey)}), passphrase: ${JSON.stringify(pki.clientKeyPassphrase)} });
const plain = await connect({});
server.close();
console.log(JSON.stringify({ mtls, plain, lists }));
`,
    );
    const r = spawnSync(process.execPath, [script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: pki.caCert },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      mtls: { trusted: true, presented: true },
      plain: { trusted: true, presented: false },
      lists: [],
    });
  });

  it("adds only the file's certificates that are not Node's roots already, each once, however they are wrapped", () => {
    const [a, b] = rootCertificates;
    const rewrapped = a.replace(/\n/g, '\r\n').replace(/(.{32})/g, '$1\n');
    const own = '-----BEGIN CERTIFICATE-----\nTUlJQm93bg==\n-----END CERTIFICATE-----';
    const other = '-----BEGIN CERTIFICATE-----\nTUlJQm90aGVy\n-----END CERTIFICATE-----';
    expect(newCertificates([a, b], [rewrapped, own, b, own, other])).toEqual([own, other]);
    expect(newCertificates([a], [])).toEqual([]);
  });
});
