// The directory of local sessions over a real folder: cards, liveness, names and refs, the inbox,
// and the same-permission-mode rule on both ends.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerDirectory } from '../../../src/peers/peerDirectory.js';
import { makeTempDir } from '../../tempDirs.js';

const opened: PeerDirectory[] = [];
afterEach(() => {
  for (const p of opened.splice(0)) p.unregister();
});

function peer(dir: string, sessionId: string, cwd: string, mode = { value: 'default' }): PeerDirectory {
  // Every card in one process carries this pid: alive, as a real other session's would be.
  const p = new PeerDirectory({ dir, sessionId, cwd, permissionMode: () => mode.value });
  p.register();
  opened.push(p);
  return p;
}

describe('PeerDirectory', () => {
  it('lists the others by folder name with a ref, resolves a bare name, and asks for the ref when two share it', () => {
    const dir = join(makeTempDir('peers-'), 'peers');
    const a = peer(dir, 'aaaaaaaa-1111-4000-8000-000000000001', '/work/app');
    peer(dir, 'bbbbbbbb-2222-4000-8000-000000000002', '/work/api');
    peer(dir, 'cccccccc-3333-4000-8000-000000000003', '/other/api');
    expect(a.self()).toEqual({ name: 'app', ref: 'aaaaaa' });
    expect(a.list().map((p) => `${p.name} [${p.ref}]`)).toEqual(['api [bbbbbb]', 'api [cccccc]']);
    expect(() => a.resolve('api')).toThrow(
      /2 local sessions are named "api": add the ref, one of "api \[bbbbbb\]", "api \[cccccc\]"/,
    );
    expect(a.resolve('api [cccccc]')?.cwd).toBe('/other/api');
    expect(a.resolve('app')).toBeUndefined(); // itself is not a peer
  });

  it('drops the card (and inbox) of a session whose process is gone', () => {
    const dir = join(makeTempDir('peers-'), 'peers');
    const a = peer(dir, 'aaaaaaaa-1111-4000-8000-000000000001', '/work/app');
    mkdirSync(dir, { recursive: true });
    const dead = {
      sessionId: 'dddddddd',
      name: 'ghost',
      pid: 2 ** 22 + 12345,
      cwd: '/x',
      permissionMode: 'default',
      startedAt: '',
    };
    writeFileSync(join(dir, 'dddddddd.json'), JSON.stringify(dead));
    writeFileSync(join(dir, 'dddddddd.inbox'), '{}\n');
    expect(a.list()).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['aaaaaaaa-1111-4000-8000-000000000001.json']);
  });

  it('delivers between sessions in the same mode, as a <cross-session-message> naming the sender', async () => {
    const dir = join(makeTempDir('peers-'), 'peers');
    const a = peer(dir, 'aaaaaaaa-1111-4000-8000-000000000001', '/work/app');
    const b = peer(dir, 'bbbbbbbb-2222-4000-8000-000000000002', '/work/api');
    await a.send(a.resolve('api')!, 'first');
    await a.send(a.resolve('api')!, 'second');
    const got = (await b.takeMessages())!;
    expect(got).toContain('<cross-session-message from="app [aaaaaa]">\nfirst\n</cross-session-message>');
    expect(got).toContain('second');
    expect(await b.takeMessages()).toBeNull();
  });

  it('refuses to send to a session in another mode, and drops what arrives after the receiver changed mode', async () => {
    const dir = join(makeTempDir('peers-'), 'peers');
    const bMode = { value: 'default' };
    const a = peer(dir, 'aaaaaaaa-1111-4000-8000-000000000001', '/work/app');
    const b = peer(dir, 'bbbbbbbb-2222-4000-8000-000000000002', '/work/api', bMode);
    await a.send(a.resolve('api')!, 'queued while both were default');
    bMode.value = 'bypassPermissions';
    b.register();
    expect(await b.takeMessages()).toBeNull();
    await expect(a.send(a.resolve('api')!, 'x')).rejects.toThrow(
      /runs in permission mode bypassPermissions and this session in default: messages are delivered only between sessions in the same mode/,
    );
    b.unregister();
    expect(existsSync(join(dir, 'bbbbbbbb-2222-4000-8000-000000000002.json'))).toBe(false);
  });
});
