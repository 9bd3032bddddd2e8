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

  it("adds only the file's certificates that are not Node's roots already, each once, however they are wrapped", () => {
    const [a, b] = rootCertificates;
    const rewrapped = a.replace(/\n/g, '\r\n').replace(/(.{32})/g, '$1\n');
    const own = '-----BEGIN CERTIFICATE-----\nTUlJQm93bg==\n-----END CERTIFICATE-----';
    const other = '-----BEGIN CERTIFICATE-----\nTUlJQm90aGVy\n-----END CERTIFICATE-----';
    expect(newCertificates([a, b], [rewrapped, own, b, own, other])).toEqual([own, other]);
    expect(newCertificates([a], [])).toEqual([]);
  });
});
