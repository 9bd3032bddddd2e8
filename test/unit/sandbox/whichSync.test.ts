import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { whichSync } from '../../../src/sandbox/whichSync.js';

// The sandbox runtime's `which`, in process (dist/sandbox.cjs): it must find what `which` finds.
const dir = mkdtempSync(join(tmpdir(), 'agent-which-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function which(bin: string, PATH: string): string | null {
  const r = spawnSync('which', [bin], { encoding: 'utf8', env: { PATH } });
  return r.status === 0 ? r.stdout.trim() : null;
}

describe('whichSync', () => {
  it('finds the first executable regular file on PATH, as which does; skips directories and files without x', () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    mkdirSync(a);
    mkdirSync(b);
    mkdirSync(join(a, 'tool'));
    writeFileSync(join(a, 'plain'), 'x');
    writeFileSync(join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(join(b, 'tool'), 0o755);
    writeFileSync(join(b, 'plain'), '#!/bin/sh\n');
    chmodSync(join(b, 'plain'), 0o755);
    const PATH = `${a}:${b}:/usr/bin:/bin`;
    const saved = process.env.PATH;
    process.env.PATH = PATH;
    try {
      for (const bin of ['tool', 'plain', 'sh', 'no-such-tool-here', join(b, 'tool'), join(a, 'plain')])
        expect(whichSync(bin), bin).toBe(which(bin, PATH));
      expect(whichSync('tool')).toBe(join(b, 'tool'));
      expect(whichSync('no-such-tool-here')).toBeNull();
    } finally {
      process.env.PATH = saved;
    }
  });
});
