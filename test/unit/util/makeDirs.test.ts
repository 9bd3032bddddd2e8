import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirs } from '../../../src/util/makeDirs.js';

describe('makeDirs', () => {
  it('creates the missing levels, private, and accepts an existing directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'makedirs-'));
    const dir = join(root, 'a', 'b', 'c');
    makeDirs(dir);
    makeDirs(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    rmSync(root, { recursive: true, force: true });
  });

  it("fails at once where Node's recursive mkdir would spin forever (under /proc), and on a file in the way", () => {
    expect(() => makeDirs('/proc/no-such-dir/agent-runtime-x')).toThrow(/ENOENT/);
    const root = mkdtempSync(join(tmpdir(), 'makedirs-'));
    writeFileSync(join(root, 'file'), '');
    expect(() => makeDirs(join(root, 'file', 'sub'))).toThrow(/ENOTDIR|EEXIST/);
    expect(existsSync(join(root, 'file', 'sub'))).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });
});
