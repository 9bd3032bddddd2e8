import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMPTY_FILE_NOTE, ReadTool, readLineWindow } from '../../../tools/read.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

// The smallest valid PNG (1x1, transparent).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe('Read', () => {
  let dir = '';
  beforeEach(() => {
    dir = tempDir('read-');
  });
  afterEach(() => removeDir(dir));

  it('numbers lines like cat -n and records the read', async () => {
    const f = join(dir, 'a.txt');
    writeFileSync(f, 'one\ntwo\n\tthree\n');
    const ctx = makeCtx(dir);
    const r = await run(ReadTool, { file_path: f }, ctx);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe('     1\tone\n     2\ttwo\n     3\t\tthree');
    const st = statSync(f);
    expect(ctx.readFiles.get(f)).toEqual({ mtimeMs: st.mtimeMs, size: st.size });
  });

  it('honours offset (1-based first line) and limit', async () => {
    const f = join(dir, 'n.txt');
    writeFileSync(f, Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const r = await run(ReadTool, { file_path: f, offset: 4, limit: 3 }, makeCtx(dir));
    expect(text(r).split('\n').slice(0, 3)).toEqual(['     4\tline 4', '     5\tline 5', '     6\tline 6']);
    expect(text(r)).toContain('Showing lines 4-6 of 10');
  });

  it('defaults to 2000 lines and streams big files', async () => {
    const f = join(dir, 'big.txt');
    writeFileSync(f, `${Array.from({ length: 50_000 }, (_, i) => `row ${i + 1} ${'x'.repeat(20)}`).join('\n')}\n`);
    expect(statSync(f).size).toBeGreaterThan(256 * 1024);
    const r = await run(ReadTool, { file_path: f }, makeCtx(dir));
    const lines = text(r).split('\n');
    expect(lines[0]).toBe(`     1\trow 1 ${'x'.repeat(20)}`);
    expect(lines[1999]).toBe(`  2000\trow 2000 ${'x'.repeat(20)}`);
    expect(text(r)).toContain('of 50000');
    const tail = await run(ReadTool, { file_path: f, offset: 49_999 }, makeCtx(dir));
    expect(text(tail)).toBe(` 49999\trow 49999 ${'x'.repeat(20)}\n 50000\trow 50000 ${'x'.repeat(20)}`);
  });

  it('cuts very long lines, without holding a huge line in memory', async () => {
    const f = join(dir, 'long.txt');
    writeFileSync(f, `short\n${'a'.repeat(3_000_000)}\nafter\n`);
    const win = await readLineWindow(f, 1, 10);
    expect(win.totalLines).toBe(3);
    expect(win.lines[1].length).toBeLessThan(2100);
    expect(win.lines[1]).toContain('[line truncated]');
    expect(win.lines[2]).toBe('after');
  });

  it('gives the same window from bytes read whole (small files) as from the stream (large ones)', async () => {
    const f = join(dir, 'mixed.txt');
    writeFileSync(f, `a\r\nb\n${'é'.repeat(2500)}\n\nlast without newline`);
    for (const [start, limit] of [
      [1, 10],
      [2, 2],
      [5, 1],
      [9, 3],
    ]) {
      expect(await readLineWindow(f, start, limit, undefined, readFileSync(f))).toEqual(
        await readLineWindow(f, start, limit),
      );
    }
    const big = join(dir, 'big.bin');
    writeFileSync(big, Buffer.concat([Buffer.from([0x41, 0x00]), Buffer.alloc(300 * 1024, 0x41)]));
    const r = await run(ReadTool, { file_path: big }, makeCtx(dir));
    expect(text(r)).toContain('binary'); // the streamed path's sniff
  });

  it('rejects relative paths, missing files and directories with clear errors', async () => {
    const ctx = makeCtx(dir);
    const rel = await run(ReadTool, { file_path: 'a.txt' }, ctx);
    expect(rel.isError).toBe(true);
    expect(text(rel)).toContain('absolute path');
    const missing = await run(ReadTool, { file_path: join(dir, 'nope.txt') }, ctx);
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('File does not exist');
    mkdirSync(join(dir, 'sub'));
    const isDir = await run(ReadTool, { file_path: join(dir, 'sub') }, ctx);
    expect(isDir.isError).toBe(true);
    expect(text(isDir)).toMatch(/is a directory.*ls.*Glob/s);
  });

  it('refuses binary files', async () => {
    const f = join(dir, 'bin.dat');
    writeFileSync(f, Buffer.from([0x41, 0x00, 0x42]));
    const r = await run(ReadTool, { file_path: f }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('binary');
  });

  it('returns images as base64 image blocks', async () => {
    const f = join(dir, 'pic.png');
    writeFileSync(f, PNG);
    const r = await run(ReadTool, { file_path: f }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } },
    ]);
  });

  it('notes an empty file without an error', async () => {
    const f = join(dir, 'empty.txt');
    writeFileSync(f, '');
    const r = await run(ReadTool, { file_path: f }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe(EMPTY_FILE_NOTE);
  });

  it('says when the offset is past the end', async () => {
    const f = join(dir, 's.txt');
    writeFileSync(f, 'a\nb\n');
    const r = await run(ReadTool, { file_path: f, offset: 10 }, makeCtx(dir));
    expect(text(r)).toContain('shorter than the provided offset (10). The file has 2 lines.');
  });
});
