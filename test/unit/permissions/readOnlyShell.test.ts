// Read-only shell commands inside the working directories run unasked in default mode, as the
// reference allows them (measured with `--permission-prompt-tool stdio`: which Bash calls got a
// can_use_tool request); everything else still asks, and deny and ask rules still win.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decidePermission } from '../../../src/permissions/index.js';
import { BashTool } from '../../../tools/bash.js';
import type { Tool } from '../../../tools/tool.js';
import { Bash, fakeTool, state, tmpDir } from './helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

const cwd = tmpDir();
writeFileSync(join(cwd, 'f.txt'), 'hello\n');
const decide = (command: string, opts: Parameters<typeof state>[0] = { cwd }) =>
  decidePermission(state(opts), { call: callFacts(Bash, 'Bash', { command }) });

describe('read-only Bash in default mode', () => {
  it('allows what the reference allows unasked', () => {
    for (const command of [
      'ls',
      'ls -la .',
      'cat f.txt',
      'pwd',
      'git status',
      'git log',
      'git diff',
      'git branch',
      'grep hello f.txt',
      'head -1 f.txt',
      'wc -l f.txt',
      'echo hi',
      'find . -name x',
      'rg hello',
      'ls && pwd',
      'cat f.txt | grep h',
      'which ls',
      'stat f.txt',
      'du -sh .',
      'sort f.txt',
      'tree',
      'diff f.txt f.txt',
      'date',
      'whoami',
    ])
      expect([command, decide(command).behavior]).toEqual([command, 'allow']);
  });

  it('asks for what the reference asks about: outside paths, redirects, substitutions, writes, env, unknown commands', () => {
    for (const command of [
      'cat /etc/hostname',
      'ls > out.txt',
      'cat $(echo f.txt)',
      'ls; touch z',
      'uniq f.txt',
      'env',
      'printenv',
      'find . -delete',
      'awk 1 f.txt',
      'npm test',
      'FOO=1 ls',
      'cat < /etc/hostname',
    ])
      expect([command, decide(command).behavior]).toEqual([command, 'ask']);
    expect(decide('cat /etc/hostname')).toMatchObject({ blockedPath: '/etc/hostname' });
  });

  it('deny and ask rules still win', () => {
    expect(decide('ls', { cwd, deny: ['Bash(ls:*)'] }).behavior).toBe('deny');
    expect(decide('git status', { cwd, ask: ['Bash(git status:*)'] }).behavior).toBe('ask');
  });

  it("takes the prepared call's read-only answer, trusting it for a single command only", () => {
    // A shell tool that knows `mytool --dry` only reads (our own list does not).
    let asked = 0;
    const Shell = fakeTool(
      'Shell',
      (i: { command: string }) => (asked++, i.command.startsWith('mytool --dry')),
      BashTool as Tool,
    );
    const facts = (command: string) => callFacts(Shell, 'Shell', { command });
    const one = facts('mytool --dry');
    expect(asked).toBe(1);
    expect(decidePermission(state({ cwd }), { call: one }).behavior).toBe('allow');
    // The decision reads the answer and does not ask the tool again.
    expect(asked).toBe(1);
    expect(decidePermission(state({ cwd }), { call: { ...one, readOnly: false } }).behavior).toBe('ask');
    // Its answer judged the whole line: in a compound line each part must be one our list knows reads.
    expect(decidePermission(state({ cwd }), { call: facts('mytool --dry && touch X') }).behavior).toBe('ask');
    expect(decidePermission(state({ cwd }), { call: facts('mytool --dry && ls') }).behavior).toBe('ask');
    expect(decidePermission(state({ cwd }), { call: facts('ls && pwd') }).behavior).toBe('allow');
  });
});
