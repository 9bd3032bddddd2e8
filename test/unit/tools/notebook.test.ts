import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotebookEditTool, type NotebookEditOutput } from '../../../tools/notebookEdit.js';
import { ReadTool } from '../../../tools/read.js';
import type { ToolContext } from '../../../tools/tool.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function notebook(withIds = true) {
  const id = (s: string) => (withIds ? { id: s } : {});
  return {
    nbformat: 4,
    nbformat_minor: withIds ? 5 : 4,
    metadata: { language_info: { name: 'python' } },
    cells: [
      { cell_type: 'markdown', ...id('intro'), metadata: {}, source: ['# Title\n', 'Some text'] },
      {
        cell_type: 'code',
        ...id('calc'),
        metadata: {},
        execution_count: 3,
        source: 'print(1 + 1)',
        outputs: [{ output_type: 'stream', name: 'stdout', text: ['2\n'] }],
      },
      {
        cell_type: 'code',
        ...id('plot'),
        metadata: {},
        execution_count: 4,
        source: 'plot()',
        outputs: [
          { output_type: 'display_data', data: { 'image/png': PNG, 'text/plain': '<Figure>' }, metadata: {} },
          { output_type: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['\x1b[31mValueError\x1b[0m: bad'] },
        ],
      },
    ],
  };
}

describe('Read of a notebook', () => {
  let dir = '';
  let ctx: ToolContext;
  beforeEach(() => {
    dir = tempDir('nb-');
    ctx = makeCtx(dir);
  });
  afterEach(() => removeDir(dir));

  it('shows each cell with id, type and outputs; images as image blocks; ANSI codes stripped', async () => {
    const f = join(dir, 'a.ipynb');
    writeFileSync(f, JSON.stringify(notebook()));
    const r = await run(ReadTool, { file_path: f }, ctx);
    expect(r.isError).toBeFalsy();
    const blocks = r.content as Array<{ type: string; text?: string }>;
    const all = text(r);
    expect(all).toContain('<cell id="intro" type="markdown">\n# Title\nSome text\n</cell>');
    expect(all).toContain('<cell id="calc" type="code" execution_count="3">\nprint(1 + 1)\n</cell>');
    expect(all).toContain('<outputs cell="calc">\n2\n');
    expect(all).toContain('ValueError: bad');
    expect(all).not.toContain('\x1b[');
    expect(blocks.filter((b) => b.type === 'image')).toHaveLength(1);
    expect(ctx.readFiles.has(f)).toBe(true);
  });

  it('names cells cell-N when the notebook has no ids; an invalid notebook is a clear error', async () => {
    const f = join(dir, 'old.ipynb');
    writeFileSync(f, JSON.stringify(notebook(false)));
    expect(text(await run(ReadTool, { file_path: f }, ctx))).toContain('<cell id="cell-1" type="code"');
    const bad = join(dir, 'bad.ipynb');
    writeFileSync(bad, '{"cells": 3');
    const r = await run(ReadTool, { file_path: bad }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('is not a valid notebook: it is not JSON');
  });
});

describe('NotebookEdit', () => {
  let dir = '';
  let ctx: ToolContext;
  let f = '';
  beforeEach(async () => {
    dir = tempDir('nbedit-');
    ctx = makeCtx(dir);
    f = join(dir, 'a.ipynb');
    writeFileSync(f, JSON.stringify(notebook()));
  });
  afterEach(() => removeDir(dir));
  const cells = () => JSON.parse(readFileSync(f, 'utf8')).cells as Array<Record<string, unknown>>;

  it('refuses a notebook that was not read, or changed since', async () => {
    let r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'calc', new_source: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('has not been read yet');
    await run(ReadTool, { file_path: f }, ctx);
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'calc', new_source: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('modified');
  });

  it('replace sets the source, clears outputs and the execution count, may change the type', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    const r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'calc', new_source: 'print(3)' }, ctx);
    expect(r.isError).toBeFalsy();
    const c = cells()[1];
    expect(c).toMatchObject({ id: 'calc', source: 'print(3)', outputs: [], execution_count: null });
    const data = r.data as NotebookEditOutput;
    expect(data).toMatchObject({
      cell_id: 'calc',
      cell_type: 'code',
      edit_mode: 'replace',
      old_source: 'print(1 + 1)',
      language: 'python',
      notebook_path: f,
    });
    expect(JSON.parse(data.updated_file).cells[1].source).toBe('print(3)');
    // A second edit needs no new Read: the tool recorded what it wrote.
    const r2 = await run(
      NotebookEditTool,
      { notebook_path: f, cell_id: 'calc', new_source: '# note', cell_type: 'markdown' },
      ctx,
    );
    expect(r2.isError).toBeFalsy();
    expect(cells()[1]).toEqual({ cell_type: 'markdown', id: 'calc', metadata: {}, source: '# note' });
  });

  it('insert after a cell or at the start (cell_type required); delete removes a cell', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    let r = await run(NotebookEditTool, { notebook_path: f, new_source: 'x = 1', edit_mode: 'insert' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('cell_type is required');
    r = await run(
      NotebookEditTool,
      { notebook_path: f, cell_id: 'intro', new_source: 'x = 1', edit_mode: 'insert', cell_type: 'code' },
      ctx,
    );
    expect(r.isError).toBeFalsy();
    expect(cells()[1]).toMatchObject({ cell_type: 'code', source: 'x = 1', outputs: [], execution_count: null });
    expect(typeof cells()[1].id).toBe('string');
    r = await run(
      NotebookEditTool,
      { notebook_path: f, new_source: '# top', edit_mode: 'insert', cell_type: 'markdown' },
      ctx,
    );
    expect(cells()[0]).toMatchObject({ cell_type: 'markdown', source: '# top' });
    r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'plot', new_source: '', edit_mode: 'delete' }, ctx);
    expect(r.isError).toBeFalsy();
    expect(cells().map((c) => c.id)).not.toContain('plot');
    expect(cells()).toHaveLength(4);
  });

  it('clear errors: unknown cell (listing the ids), not a notebook, relative path', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    let r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'nope', new_source: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('Cell with ID "nope" not found in notebook. Its cells are: intro, calc, plot.');
    const py = join(dir, 'a.py');
    writeFileSync(py, 'x');
    r = await run(NotebookEditTool, { notebook_path: py, cell_id: 'x', new_source: 'x' }, ctx);
    expect(text(r)).toContain('is not a Jupyter notebook');
    r = await run(NotebookEditTool, { notebook_path: 'a.ipynb', cell_id: 'x', new_source: 'x' }, ctx);
    expect(text(r)).toContain('must be an absolute path');
  });

  it('edits cells of a notebook without ids by position', async () => {
    writeFileSync(f, JSON.stringify(notebook(false)));
    await run(ReadTool, { file_path: f }, ctx);
    const r = await run(NotebookEditTool, { notebook_path: f, cell_id: 'cell-1', new_source: 'y = 2' }, ctx);
    expect(r.isError).toBeFalsy();
    expect(cells()[1].source).toBe('y = 2');
    expect(cells()[1].id).toBeUndefined();
  });
});
