import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GLOB_TRUNCATED_NOTE, GlobTool, type GlobOutput } from '../../../tools/glob.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

function put(root: string, rel: string, mtimeSec: number): string {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, rel);
  utimesSync(p, mtimeSec, mtimeSec);
  return p;
}

describe('Glob', () => {
  let dir = '';
  beforeEach(() => {
    dir = tempDir('glob-');
  });
  afterEach(() => removeDir(dir));

  it('returns absolute paths, newest first, without dot files, .git or node_modules', async () => {
    const old = put(dir, 'src/old.ts', 1_600_000_000);
    const mid = put(dir, 'mid.ts', 1_600_000_100);
    const newest = put(dir, 'src/deep/new.ts', 1_600_000_200);
    put(dir, '.hidden.ts', 1_600_000_300);
    put(dir, '.git/x.ts', 1_600_000_300);
    put(dir, 'node_modules/pkg/index.ts', 1_600_000_300);
    put(dir, 'readme.md', 1_600_000_300);
    const r = await run(GlobTool, { pattern: '**/*.ts' }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe([newest, mid, old].join('\n'));
    expect(r.data).toMatchObject({ filenames: [newest, mid, old], numFiles: 3, truncated: false });
    // named explicitly, node_modules is searched
    const nm = await run(GlobTool, { pattern: 'node_modules/**/*.ts' }, makeCtx(dir));
    expect((nm.data as GlobOutput).numFiles).toBe(1);
  });

  it('searches under path, and says when nothing matched', async () => {
    put(dir, 'a/one.txt', 1_600_000_000);
    put(dir, 'b/two.txt', 1_600_000_000);
    const r = await run(GlobTool, { pattern: '*.txt', path: join(dir, 'b') }, makeCtx(dir));
    expect(text(r)).toBe(join(dir, 'b/two.txt'));
    const none = await run(GlobTool, { pattern: '*.nothing' }, makeCtx(dir));
    expect(text(none)).toBe('No files found');
  });

  it('caps results at 100 with a note', async () => {
    for (let i = 0; i < 120; i++) put(dir, `f${i}.txt`, 1_600_000_000 + i);
    const r = await run(GlobTool, { pattern: '*.txt' }, makeCtx(dir));
    const lines = text(r).split('\n');
    expect(lines.length).toBe(101);
    expect(lines[0]).toBe(join(dir, 'f119.txt'));
    expect(lines[100]).toBe(GLOB_TRUNCATED_NOTE);
    expect(r.data).toMatchObject({ numFiles: 100, truncated: true });
  });

  it('rejects a path that is missing or not a directory', async () => {
    const f = put(dir, 'file.txt', 1_600_000_000);
    const missing = await run(GlobTool, { pattern: '*', path: join(dir, 'nope') }, makeCtx(dir));
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('Directory does not exist');
    const notDir = await run(GlobTool, { pattern: '*', path: f }, makeCtx(dir));
    expect(notDir.isError).toBe(true);
    expect(text(notDir)).toContain('not a directory');
  });
});
