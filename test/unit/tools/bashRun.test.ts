// runBashCommand, the one path of foreground and background Bash, with a stand-in sandbox: what is
// wrapped, what is not, and that a sandbox that cannot prepare a command never lets it run bare.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBashCommand, violationNote } from '../../../tools/bashRun.js';
import type { CommandSandbox } from '../../../tools/sandbox.js';
import { makeTempDir } from '../../tempDirs.js';

function fakeSandbox(o: { fail?: boolean } = {}) {
  const wrapped: string[] = [];
  let finished = 0;
  const sb: CommandSandbox = {
    status: { enabled: true, active: true },
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: true,
    sandboxes: (command, disable) => !disable && !command.startsWith('excluded'),
    prepare: () => {},
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
  const cwd = makeTempDir('sb-run-');

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
    expect(
      (await runBashCommand('excluded-tool; echo a', { sandbox: f.sb, commandId: 'c2', cwd })).stdout,
    ).not.toContain('wrapped');
    expect(
      (await runBashCommand('echo b', { sandbox: f.sb, disableSandbox: true, commandId: 'c3', cwd })).sandboxed,
    ).toBe(false);
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

  it("a run that entered nothing (nsenter could not open the session's namespace: its holder just ended) is run again, and its output never reaches the consumer", async () => {
    const argvs: Array<string[] | undefined> = [];
    let finished = 0;
    const entryFailure = 'nsenter: cannot open /proc/4242/ns/net: No such file or directory';
    const sb: CommandSandbox = {
      ...fakeSandbox().sb,
      async wrap(command) {
        // First the shared-namespace form (it fails to enter), then the runtime's own.
        const argv = argvs.length === 0 ? ['/bin/sh', '-c', `echo '${entryFailure}' >&2; exit 1`] : undefined;
        argvs.push(argv);
        return {
          command: `echo own; ${command}`,
          ...(argv ? { argv } : {}),
          env: {},
          finish: async () => (finished++, []),
        };
      },
    };
    const chunks: string[] = [];
    const r = await runBashCommand('echo ran', { cwd, sandbox: sb, commandId: 't', onOutput: (c) => chunks.push(c) });
    expect(r.combined).toBe('own\nran\n');
    expect(chunks.join('')).toBe('own\nran\n');
    expect(argvs.length).toBe(2);
    expect(finished).toBe(2);
    // A command that fails on its own, even one that starts with the same words, is not run twice.
    argvs.length = 0;
    const sb2: CommandSandbox = {
      ...sb,
      wrap: async (command) => (
        argvs.push([]), { command, argv: ['/bin/sh', '-c', command], env: {}, finish: async () => [] }
      ),
    };
    const chunks2: string[] = [];
    const r2 = await runBashCommand(`echo 'nsenter: is not what ran' >&2; echo more; exit 1`, {
      cwd,
      sandbox: sb2,
      commandId: 't2',
      onOutput: (c) => chunks2.push(c),
    });
    expect(r2.exitCode).toBe(1);
    expect(argvs.length).toBe(1);
    expect(chunks2.join('')).toContain('nsenter: is not what ran');
    expect(chunks2.join('')).toContain('more');
  });
});
