import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decidePermission, resolvePath } from '../../../src/permissions/index.js';
import { Bash, Edit, Glob, Grep, Read, Write, state, tmpDir } from './helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

let root: string;
let cwd: string;
let outside: string;
let extra: string;

beforeAll(() => {
  root = tmpDir();
  cwd = path.join(root, 'proj');
  outside = path.join(root, 'outside');
  extra = path.join(root, 'extra');
  for (const d of [cwd, outside, extra, path.join(cwd, 'src'), path.join(cwd, 'secret')])
    fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(cwd, 'secret', 'key'), 'k');
  fs.writeFileSync(path.join(cwd, 'src', 'a.ts'), 'a');
  fs.writeFileSync(path.join(outside, 'o.txt'), 'o');
  fs.symlinkSync(path.join(cwd, 'secret'), path.join(cwd, 'innocent'));
  fs.symlinkSync(outside, path.join(cwd, 'escape'));
});

const read = (s: ReturnType<typeof state>, file_path: string) =>
  decidePermission(s, { call: callFacts(Read, 'Read', { file_path }) });

describe('path rules and working directories', () => {
  it('resolves .. and symlinks like the kernel', () => {
    expect(resolvePath('src/../secret/key', cwd).real).toBe(path.join(cwd, 'secret', 'key'));
    expect(resolvePath('innocent/key', cwd).real).toBe(path.join(cwd, 'secret', 'key'));
    expect(resolvePath('escape/../proj/src', cwd).real).toBe(path.join(root, 'proj', 'src'));
    expect(resolvePath('escape/new/file.txt', cwd).real).toBe(path.join(outside, 'new', 'file.txt'));
  });

  it('a Read deny rule holds against .., a symlink, an absolute path and cat through Bash', () => {
    const s = state({ cwd, deny: ['Read(./secret/**)'], allow: ['Bash(cat:*)'] });
    expect(read(s, 'src/a.ts').behavior).toBe('allow');
    expect(read(s, 'secret/key').behavior).toBe('deny');
    expect(read(s, 'src/../secret/key').behavior).toBe('deny');
    expect(read(s, path.join(cwd, 'innocent', 'key')).behavior).toBe('deny');
    expect(read(s, 'innocent/key').behavior).toBe('deny');
    const bash = (command: string) => decidePermission(s, { call: callFacts(Bash, 'Bash', { command }) }).behavior;
    expect(bash('cat secret/key')).toBe('deny');
    expect(bash('cat innocent/key')).toBe('deny');
    expect(bash('cat < src/../secret/key')).toBe('deny');
    expect(bash('cat src/a.ts')).toBe('allow');
    expect(bash('cat secre?/*')).toBe('deny');
    expect(bash('cat */key')).toBe('deny');
    expect(bash('echo ok; cat "secret/key"')).toBe('deny');
  });

  it('a Read deny rule on a folder holds against Grep and Glob searching that folder', () => {
    const s = state({ cwd, deny: ['Read(./secret/**)'] });
    const search = (tool: typeof Glob, toolName: string, p: string) =>
      decidePermission(s, { call: callFacts(tool, toolName, { pattern: 'x', path: p }) }).behavior;
    expect(search(Glob, 'Glob', path.join(cwd, 'secret'))).toBe('deny');
    expect(search(Glob, 'Glob', 'innocent')).toBe('deny');
    expect(search(Glob, 'Glob', 'src')).toBe('allow');
    expect(search(Grep, 'Grep', 'src/../secret')).toBe('deny');
  });

  it('gitignore-style patterns: unanchored names match at any depth; //abs and ~ forms', () => {
    const s = state({ cwd, deny: ['Read(*.env)', `Read(/${outside}/**)`] });
    expect(read(s, 'deep/dir/.env').behavior).toBe('deny'); // as in .gitignore, * may match nothing
    expect(read(s, 'deep/dir/env.txt').behavior).toBe('allow');
    expect(read(s, 'deep/dir/prod.env').behavior).toBe('deny');
    expect(read(s, path.join(outside, 'o.txt')).behavior).toBe('deny');
    expect(read(s, 'escape/o.txt').behavior).toBe('deny');
    const h = state({ cwd, deny: ['Read(~/.ssh/**)'] });
    expect(read(h, '~/.ssh/id_rsa').behavior).toBe('deny');
  });

  it('read-only tools are allowed inside the working dirs only; a symlink out of cwd is outside', () => {
    const s = state({ cwd, additionalDirectories: [extra] });
    expect(read(s, 'src/a.ts').behavior).toBe('allow');
    expect(read(s, path.join(extra, 'x')).behavior).toBe('allow');
    const out = read(s, path.join(outside, 'o.txt'));
    expect(out.behavior).toBe('ask');
    expect(out.behavior === 'ask' && out.blockedPath).toBe(path.join(outside, 'o.txt'));
    expect(out.behavior === 'ask' && out.suggestions).toEqual([
      { type: 'addDirectories', directories: [outside], destination: 'session' },
    ]);
    expect(read(s, 'escape/o.txt').behavior).toBe('ask');
    expect(read(s, '../outside/o.txt').behavior).toBe('ask');
    expect(decidePermission(s, { call: callFacts(Glob, 'Glob', { pattern: '*', path: outside }) }).behavior).toBe(
      'ask',
    );
    expect(decidePermission(s, { call: callFacts(Glob, 'Glob', { pattern: '*' }) }).behavior).toBe('allow');
  });

  it('an allow rule reaches outside the working dirs, but not through a symlink', () => {
    const s = state({ cwd, allow: [`Read(/${outside}/**)`, 'Read(./escape/**)'] });
    expect(read(s, path.join(outside, 'o.txt')).behavior).toBe('allow');
    const t = state({ cwd, allow: ['Read(./escape/**)'] });
    expect(read(t, 'escape/o.txt').behavior).toBe('ask');
  });

  it('an Edit allow rule implies reading the same files', () => {
    const s = state({ cwd, allow: [`Edit(/${outside}/**)`] });
    expect(read(s, path.join(outside, 'o.txt')).behavior).toBe('allow');
    expect(
      decidePermission(s, { call: callFacts(Write, 'Write', { file_path: path.join(outside, 'n.txt'), content: '' }) })
        .behavior,
    ).toBe('allow');
  });

  it('acceptEdits: edits inside cwd and --add-dir pass, outside (also via symlink) asks', () => {
    const s = state({ cwd, mode: 'acceptEdits', additionalDirectories: [extra] });
    const write = (file_path: string) =>
      decidePermission(s, { call: callFacts(Write, 'Write', { file_path, content: 'x' }) }).behavior;
    expect(write('src/new.ts')).toBe('allow');
    expect(write(path.join(extra, 'n.txt'))).toBe('allow');
    expect(write(path.join(outside, 'n.txt'))).toBe('ask');
    expect(write('escape/n.txt')).toBe('ask');
    expect(
      decidePermission(s, {
        call: callFacts(Edit, 'Edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }),
      }).behavior,
    ).toBe('allow');
  });
});
