// The session's shared network namespace (src/sandbox/sessionNetwork.ts): a real holder sandbox
// (bubblewrap + socat), how it says it could not start, and that nothing enters it once it is gone.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onPath, SessionNetwork } from '../../../src/sandbox/sessionNetwork.js';
import { sandboxUnavailableReason } from '../../e2e/sandboxAvailable.js';
import { makeTempDir } from '../../tempDirs.js';

const reason = sandboxUnavailableReason() ?? (onPath('nsenter') ? undefined : 'nsenter is not on PATH');
if (reason) console.log(`SKIPPED: the session network tests: ${reason}`);

function options(over: Partial<Parameters<typeof SessionNetwork.start>[0]> = {}) {
  const dir = makeTempDir('sessnet-');
  // The bridges connect to it only when a connection comes; bubblewrap needs it to exist to bind it.
  const socket = join(dir, 'proxy.sock');
  writeFileSync(socket, '');
  return {
    bwrap: onPath('bwrap') ?? 'bwrap',
    socat: 'socat',
    nsenter: onPath('nsenter') ?? 'nsenter',
    shell: '/bin/bash',
    httpSocket: socket,
    socksSocket: socket,
    ...over,
  };
}

describe.skipIf(reason !== undefined)('SessionNetwork', () => {
  it('starts a holder whose two bridges listen; a command entered through nsenter sees them; once closed, nothing enters', async () => {
    const net = await SessionNetwork.start(options());
    const enter = net.enterWords()!;
    expect(enter[0]).toMatch(/nsenter$/);
    const r = spawnSync(enter[0], [...enter.slice(1), '/bin/bash', '-c', 'cat /proc/net/tcp'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/:0C38 00000000:0000 0A/);
    expect(r.stdout).toMatch(/:0438 00000000:0000 0A/);
    net.close();
    expect(net.enterWords()).toBeUndefined();
  });

  it('says why it could not start: no bubblewrap there; a bridge that cannot run', async () => {
    await expect(SessionNetwork.start(options({ bwrap: '/nonexistent/bwrap' }))).rejects.toThrow(
      /the holder sandbox did not start: .*ENOENT/,
    );
    await expect(SessionNetwork.start(options({ socat: '/nonexistent/socat' }))).rejects.toThrow(
      /ended before its bridges listened|did not start/,
    );
  });

  it('a holder that ends by itself is told once, and is not entered after', async () => {
    const net = await SessionNetwork.start(options());
    const ended = new Promise<string>((resolve) => net.onEnd(resolve));
    // Its bridges run in its own PID namespace; ending the holder's bubblewrap ends them all.
    const enter = net.enterWords()!;
    const pid = Number(/\/proc\/(\d+)\//.exec(enter[1])![1]);
    process.kill(pid, 'SIGKILL');
    expect(await ended).toMatch(/exit code|signal/);
    expect(net.enterWords()).toBeUndefined();
  });
});

describe('onPath', () => {
  it('finds an executable on PATH, and nothing where there is none', () => {
    expect(onPath('sh', '/nonexistent:/bin')).toBe('/bin/sh');
    expect(onPath('sh', '/nonexistent')).toBeUndefined();
  });
});
