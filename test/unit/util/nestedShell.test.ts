// bash runs ~/.bashrc when its stdin is a socket (Node's pipes are socketpairs) and SHLVL says it
// is the top-level shell: the agent's shell children must not, whatever SHLVL the agent was given.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nestedShellEnv, runShellCommand } from '../../../src/util/processGroup.js';
import { makeTempDir } from '../../tempDirs.js';

function home(): { dir: string; marker: string } {
  const dir = makeTempDir('agent-bashrc-');
  const marker = join(dir, 'bashrc-ran');
  writeFileSync(join(dir, '.bashrc'), `touch '${marker}'\n`);
  return { dir, marker };
}

describe('shell children do not run ~/.bashrc', () => {
  for (const shlvl of [undefined, '0', 'x']) {
    it(`a command fed on stdin, with the agent's SHLVL ${shlvl ?? 'unset'}`, async () => {
      const h = home();
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: h.dir, SHLVL: shlvl };
      if (shlvl === undefined) delete env.SHLVL;
      // Without the fix this bash runs the file (the premise; it holds for Debian's bash).
      spawnSync('/bin/bash', ['-c', 'true'], { env, input: '{}', stdio: ['pipe', 'ignore', 'ignore'] });
      expect(existsSync(h.marker)).toBe(true);
      rmSync(h.marker);
      const r = await runShellCommand('cat > /dev/null; echo ran', { cwd: h.dir, env, stdin: '{}' });
      expect(r.stdout).toBe('ran\n');
      expect(existsSync(h.marker)).toBe(false);
    });
  }

  it('keeps a SHLVL of 1 or more as it is', () => {
    expect(nestedShellEnv({ SHLVL: '3' }).SHLVL).toBe('3');
    expect(nestedShellEnv({}).SHLVL).toBe('1');
  });
});
