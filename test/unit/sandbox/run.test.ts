// runBashCommand, the one path of foreground and background Bash, with a stand-in sandbox: what is
// wrapped, what is not, and that a sandbox that cannot prepare a command never lets it run bare.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBashCommand, violationNote } from '../../../src/sandbox/run.js';
import type { CommandSandbox } from '../../../src/sandbox/runtime.js';

function fakeSandbox(o: { fail?: boolean } = {}) {
  const wrapped: string[] = [];
  let finished = 0;
  const sb: CommandSandbox = {
    status: { enabled: true, active: true },
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: true,
    sandboxes: (command, disable) => !disable && !command.startsWith('excluded'),
    prepare: () => {},
    follow: () => {},
    async wrap(command) {
      if (o.fail) throw new Error('no room for the profile');
      wrapped.push(command);
      return {
        // Stands in for bwrap: marks the output so the test sees the wrapped text ran; the command
        // comes in through the environment, as into the real runner script.
        command: 'echo wrapped; eval "$FAKE_SANDBOXED"',
        env: { FAKE_SANDBOXED: command },
        finish: async () => {
          finished++;
          return ['deny openat /etc/x'];
        },
      };
    },
  };
  return { sb, wrapped, finished: () => finished };
}

describe('runBashCommand', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'sb-run-'));

  it('runs a sandboxed command through the wrap, once, and returns its violations', async () => {
    const f = fakeSandbox();
    const r = await runBashCommand('echo hi', { sandbox: f.sb, commandId: 'c1', cwd });
    expect(r.stdout).toBe('wrapped\nhi\n');
    expect(r.sandboxed).toBe(true);
    expect(r.violations).toEqual(['deny openat /etc/x']);
    expect(f.wrapped).toEqual(['echo hi']);
    expect(f.finished()).toBe(1);
  });

  it('excluded commands, dangerouslyDisableSandbox where honoured, and no sandbox at all run as written', async () => {
    const f = fakeSandbox();
    expect((await runBashCommand('excluded-tool; echo a', { sandbox: f.sb, commandId: 'c2', cwd })).stdout).not.toContain('wrapped');
    expect((await runBashCommand('echo b', { sandbox: f.sb, disableSandbox: true, commandId: 'c3', cwd })).sandboxed).toBe(false);
    expect((await runBashCommand('echo c', { commandId: 'c4', cwd })).stdout).toBe('c\n');
    expect(f.wrapped).toEqual([]);
  });

  it('a wrap that fails never falls back to running the command unsandboxed', async () => {
    const f = fakeSandbox({ fail: true });
    const r = await runBashCommand(`touch ${join(cwd, 'ran')}`, { sandbox: f.sb, commandId: 'c5', cwd });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/sandbox could not prepare this command, so it was not run: no room for the profile/);
    expect(existsSync(join(cwd, 'ran'))).toBe(false);
  });

  it('the violation note names what was blocked, capped', () => {
    expect(violationNote([])).toBe('');
    const many = Array.from({ length: 25 }, (_, i) => `deny openat /x${i}`);
    const note = violationNote(many);
    expect(note).toContain('<sandbox_violations>');
    expect(note).toContain('deny openat /x19');
    expect(note).not.toContain('/x20\n');
    expect(note).toContain('… and 5 more');
  });
});
