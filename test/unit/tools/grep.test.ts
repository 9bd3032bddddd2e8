import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrepTool, findRg, runGrep, type GrepImpl, type GrepInput } from '../../../tools/grep.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

/** Deterministic pseudo-random numbers, so a failing tree can be regenerated. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['foo', 'bar', 'baz', 'qux', 'Foo', 'FOO', 'start', 'end', 'foo1', 'foo22', 'x', 'Ünïcode', 'tab\there'];

function put(root: string, rel: string, content: string | Buffer, mtimeSec?: number): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  if (mtimeSec !== undefined) utimesSync(p, mtimeSec, mtimeSec);
}

/** A tree exercising every selection rule: ignore files, hidden, binary, symlinks, odd names. */
function buildTree(root: string, withGit: boolean): void {
  if (withGit) mkdirSync(join(root, '.git'));
  let t = 1_600_000_000;
  put(root, '.gitignore', 'build/\n*.log\n!keep.log\n', t++);
  put(root, 'sub/.gitignore', 'secret.txt\n', t++);
  put(root, '.ignore', 'dotignored.txt\n', t++);
  put(root, 'sub/deeper/.rgignore', '*.md\n', t++);
  put(root, 'a.ts', 'const foo = 1;\nbar baz\nfoo bar\n', t++);
  put(root, '.hidden.ts', 'foo hidden\n', t++);
  put(root, '.hdir/x.ts', 'foo in hidden dir\n', t++);
  put(root, 'build/out.ts', 'foo built\n', t++);
  put(root, 'app.log', 'foo log\n', t++);
  put(root, 'keep.log', 'foo kept\n', t++);
  put(root, 'sub/secret.txt', 'foo secret\n', t++);
  put(root, 'sub/public.txt', 'foo public\nstart\nmiddle\nend\n', t++);
  put(root, 'sub/deeper/notes.md', 'foo notes\n', t++);
  put(root, 'sub/deeper/code.py', 'def foo():\n    return "bar"\n', t++);
  put(root, 'dotignored.txt', 'foo dotignored\n', t++);
  put(root, 'bin.dat', Buffer.from('foo\0binary\nfoo\n'), t++);
  put(root, 'a_', 'foo file a_\n', t++);
  put(root, 'a-b.txt', 'foo dash\n', t++);
  put(root, 'a.txt', 'foo dot\n', t++);
  put(root, 'a/x.txt', 'foo in dir a\n', t++);
  put(root, 'B.txt', 'FOO upper\n', t++);
  put(root, 'a b/c.txt', 'foo with space\n', t++);
  put(root, 'é.txt', 'foo accent\n', t++);
  put(root, 'crlf.txt', 'foo crlf\r\nbaz\r\nfoo again\r\n', t++);
  put(root, 'nonl.txt', 'bar\nfoo no newline', t++);
  put(root, 'long.txt', `${'y'.repeat(700)}foo${'z'.repeat(100)}\n`, t++);
  put(root, 'multi.txt', 'start here\nfoo\nbar\nend there\nfoo\nbar\n', t++);
  symlinkSync(join(root, 'a.ts'), join(root, 'link.ts'));
  const rnd = prng(42);
  for (let i = 0; i < 40; i++) {
    const lines: string[] = [];
    const n = Math.floor(rnd() * 30);
    for (let j = 0; j < n; j++) {
      const k = 1 + Math.floor(rnd() * 5);
      lines.push(Array.from({ length: k }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' '));
    }
    const ext = ['ts', 'py', 'txt', 'js', 'md'][i % 5];
    put(root, `gen/d${i % 4}/f${i}.${ext}`, lines.join('\n') + (i % 3 ? '\n' : ''), t + ((i * 7) % 13));
  }
}

const QUERIES: GrepInput[] = [
  { pattern: 'foo' },
  { pattern: 'foo', output_mode: 'content' },
  { pattern: 'foo', output_mode: 'count' },
  { pattern: 'foo', output_mode: 'content', '-i': true },
  { pattern: 'fo+\\d+', output_mode: 'content' },
  { pattern: '^bar', output_mode: 'content' },
  { pattern: 'baz$', output_mode: 'content' },
  { pattern: 'foo', glob: '*.ts' },
  { pattern: 'foo', glob: '*.{ts,txt}', output_mode: 'content' },
  { pattern: 'foo', glob: '!*.txt', output_mode: 'count' },
  { pattern: 'foo', glob: 'sub/**/*.txt', output_mode: 'content' },
  { pattern: 'foo', type: 'ts' },
  { pattern: 'foo', type: 'py', output_mode: 'content' },
  { pattern: 'foo', output_mode: 'content', '-C': 1 },
  { pattern: 'baz', output_mode: 'content', '-A': 2, '-B': 1 },
  { pattern: 'foo', output_mode: 'content', '-n': false },
  { pattern: 'foo', output_mode: 'content', head_limit: 5, offset: 3 },
  { pattern: 'foo', head_limit: 3, offset: 1 },
  { pattern: 'foo', output_mode: 'count', head_limit: 4 },
  { pattern: 'foo', output_mode: 'content', head_limit: 0 },
  { pattern: 'start.*?end', multiline: true, output_mode: 'content' },
  { pattern: 'foo\\nbar', multiline: true, output_mode: 'count' },
  { pattern: 'foo', path: 'sub', output_mode: 'content' },
  { pattern: 'foo', path: 'sub/public.txt', output_mode: 'content' },
  { pattern: 'foo', path: 'bin.dat' },
  { pattern: 'Ünïcode', output_mode: 'count' },
  { pattern: 'nomatchanywhere' },
  { pattern: '(?i)foo bar', output_mode: 'content' },
  { pattern: 'nomatchanywhere', output_mode: 'content' },
];

const rg = findRg();

describe('Grep: rg and JS impls agree', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));

  it.skipIf(!rg)('equivalence needs ripgrep on PATH (apt-get install ripgrep)', () => {
    expect(rg).toBeTruthy();
  });
  if (!rg) {
    it.skip('SKIPPED: ripgrep (rg) is not on PATH, so the rg/JS equivalence test cannot run', () => {});
  }

  for (const withGit of [true, false]) {
    describe(withGit ? 'inside a git repository' : 'outside any git repository', () => {
      let root = '';
      beforeAll(() => {
        root = tempDir('grep-eq-');
        dirs.push(root);
        buildTree(root, withGit);
      });
      for (const q of QUERIES) {
        it.skipIf(!rg)(`same output for ${JSON.stringify(q)}`, async () => {
          const ctx = { cwd: root, signal: new AbortController().signal };
          const viaRg = await runGrep(q, ctx, { impl: 'rg' });
          const viaJs = await runGrep(q, ctx, { impl: 'js' });
          expect(viaJs.content).toBe(viaRg.content);
          expect(viaJs.data).toEqual(viaRg.data);
        });
      }
    });
  }
});

describe.each<GrepImpl>(['js', ...(rg ? (['rg'] as GrepImpl[]) : [])])('Grep behaviour (%s impl)', (impl) => {
  let root = '';
  beforeAll(() => {
    root = tempDir('grep-');
    buildTree(root, true);
  });
  afterAll(() => removeDir(root));
  const grep = (q: GrepInput) => runGrep(q, { cwd: root, signal: new AbortController().signal }, { impl });

  it('files mode lists absolute paths, newest first, skipping hidden, ignored, binary and symlinked files', async () => {
    const r = await grep({ pattern: 'foo' });
    const lines = r.content.split('\n');
    expect(lines[0]).toMatch(/^Found \d+ files$/);
    const files = lines.slice(1);
    expect(files.every((f) => f.startsWith(`${root}/`))).toBe(true);
    const rel = files.map((f) => f.slice(root.length + 1));
    expect(rel).toContain('a.ts');
    expect(rel).toContain('keep.log'); // re-included by !keep.log
    expect(rel).toContain('sub/public.txt');
    for (const gone of [
      '.hidden.ts',
      '.hdir/x.ts',
      'build/out.ts',
      'app.log',
      'sub/secret.txt',
      'sub/deeper/notes.md',
      'dotignored.txt',
      'bin.dat',
      'link.ts',
    ]) {
      expect(rel).not.toContain(gone);
    }
    // The generated files have mtimes spread over 13 s; the list must be sorted by them.
    expect(r.data.filenames.length).toBe(files.length);
    const { statSync } = await import('node:fs');
    const times = files.map((f) => statSync(f).mtimeMs);
    for (let i = 1; i < times.length; i++) expect(times[i - 1]).toBeGreaterThanOrEqual(times[i]);
  });

  it('content mode prints path:line:text relative to cwd, context with - and --', async () => {
    const r = await grep({ pattern: 'foo', output_mode: 'content', path: 'sub' });
    expect(r.content.split('\n')).toEqual(['sub/deeper/code.py:1:def foo():', 'sub/public.txt:1:foo public']);
    const c = await grep({ pattern: '^foo', output_mode: 'content', glob: 'multi.txt', '-A': 1 });
    expect(c.content.split('\n')).toEqual([
      'multi.txt:2:foo',
      'multi.txt-3-bar',
      '--',
      'multi.txt:5:foo',
      'multi.txt-6-bar',
    ]);
  });

  it('count mode prints path:N and a total', async () => {
    const r = await grep({ pattern: 'foo', output_mode: 'count', glob: '{a.ts,crlf.txt}' });
    expect(r.content).toBe('a.ts:2\ncrlf.txt:2\n\nFound 4 total occurrences across 2 files.');
  });

  it('a glob whitelists hidden files, and -i matches case-insensitively', async () => {
    const r = await grep({ pattern: 'FOO', '-i': true, glob: '*.ts' });
    const rel = r.data.filenames.map((f) => f.slice(root.length + 1));
    expect(rel).toContain('.hidden.ts');
    expect(rel).toContain('a.ts');
    expect(rel).not.toContain('.hdir/x.ts'); // the hidden directory is still not entered
    expect(rel).not.toContain('build/out.ts');
    expect(rel.every((f) => f.endsWith('.ts'))).toBe(true);
    // --type lets hidden files of its type through but not files an ignore file re-included
    const t = await grep({ pattern: 'foo', type: 'ts' });
    const trel = t.data.filenames.map((f) => f.slice(root.length + 1));
    expect(trel).toContain('.hidden.ts');
    expect(trel).not.toContain('keep.log');
  });

  it('head_limit and offset page the output and say so', async () => {
    const all = await grep({ pattern: 'foo', output_mode: 'content', head_limit: 0 });
    const page = await grep({ pattern: 'foo', output_mode: 'content', head_limit: 2, offset: 1 });
    const allLines = all.content.split('\n');
    expect(page.content).toBe(
      `${allLines.slice(1, 3).join('\n')}\n\n[Showing results with pagination = limit: 2, offset: 1]`,
    );
  });

  it('long lines are cut', async () => {
    const r = await grep({ pattern: 'foo', output_mode: 'content', glob: 'long.txt' });
    expect(r.content.length).toBeLessThan(600);
    expect(r.content).toContain('[... line truncated]');
  });

  it('multiline matches span lines', async () => {
    const r = await grep({ pattern: 'start.*?end', multiline: true, output_mode: 'content', glob: 'multi.txt' });
    expect(r.content.split('\n')).toEqual([
      'multi.txt:1:start here',
      'multi.txt:2:foo',
      'multi.txt:3:bar',
      'multi.txt:4:end there',
    ]);
  });

  it('no match and bad input give clear answers', async () => {
    expect((await grep({ pattern: 'zzzzqqq' })).content).toBe('No files found');
    expect((await grep({ pattern: 'zzzzqqq', output_mode: 'count' })).content).toBe('No matches found');
    await expect(grep({ pattern: 'foo', path: 'missing' })).rejects.toThrow(/Path does not exist/);
    await expect(grep({ pattern: 'foo', type: 'nosuchtype' })).rejects.toThrow(/unrecognized file type/);
    await expect(grep({ pattern: '(unclosed' })).rejects.toThrow();
  });
});

describe('Grep tool through the registry', () => {
  it('validates input and returns is_error for a bad regex', async () => {
    const root = tempDir();
    try {
      put(root, 'x.txt', 'foo\n');
      const ctx = makeCtx(root);
      const ok = await run(GrepTool, { pattern: 'foo' }, ctx);
      expect(text(ok)).toBe(`Found 1 file\n${join(root, 'x.txt')}`);
      const bad = await run(GrepTool, { pattern: '(' }, ctx);
      expect(bad.isError).toBe(true);
      const invalid = await run(GrepTool, { pattern: 'foo', head_limit: 'ten' }, ctx);
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toContain('`head_limit`');
    } finally {
      removeDir(root);
    }
  });
});
