import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditTool, type EditOutput } from '../../../tools/edit.js';
import { ReadTool } from '../../../tools/read.js';
import { WriteTool, type WriteOutput } from '../../../tools/write.js';
import type { ToolContext } from '../../../tools/tool.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';

describe('Write', () => {
  let dir = '';
  let ctx: ToolContext;
  beforeEach(() => {
    dir = tempDir('write-');
    ctx = makeCtx(dir);
  });
  afterEach(() => removeDir(dir));

  it('creates a new file and its parent directories', async () => {
    const f = join(dir, 'a/b/new.txt');
    const r = await run(WriteTool, { file_path: f, content: 'hello\n' }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(f, 'utf8')).toBe('hello\n');
    expect((r.data as WriteOutput).type).toBe('create');
    expect(ctx.readFiles.has(f)).toBe(true);
  });

  it('refuses to overwrite a file that was not read', async () => {
    const f = join(dir, 'x.txt');
    writeFileSync(f, 'old');
    const r = await run(WriteTool, { file_path: f, content: 'new' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('File has not been read yet. Read it first before writing to it.');
    expect(readFileSync(f, 'utf8')).toBe('old');
  });

  it('refuses to overwrite a file changed since it was read', async () => {
    const f = join(dir, 'x.txt');
    writeFileSync(f, 'old');
    await run(ReadTool, { file_path: f }, ctx);
    writeFileSync(f, 'changed by someone');
    const r = await run(WriteTool, { file_path: f, content: 'new' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('File has been modified since read');
  });

  it('overwrites a read file atomically, keeping its mode, and records it again', async () => {
    const f = join(dir, 'x.sh');
    writeFileSync(f, 'old\n');
    chmodSync(f, 0o751);
    await run(ReadTool, { file_path: f }, ctx);
    const r = await run(WriteTool, { file_path: f, content: 'new\n' }, ctx);
    expect(r.isError).toBeFalsy();
    const data = r.data as WriteOutput;
    expect(data.type).toBe('update');
    expect(data.originalFile).toBe('old\n');
    expect(data.structuredPatch[0].lines).toEqual(['-old', '+new']);
    expect(readFileSync(f, 'utf8')).toBe('new\n');
    expect(statSync(f).mode & 0o777).toBe(0o751);
    expect(readdirSync(dir)).toEqual(['x.sh']);
    // A second write needs no second Read.
    const again = await run(WriteTool, { file_path: f, content: 'newer\n' }, ctx);
    expect(again.isError).toBeFalsy();
  });

  it('requires an absolute path', async () => {
    const r = await run(WriteTool, { file_path: 'rel.txt', content: 'x' }, ctx);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('absolute path');
  });
});

describe('Edit', () => {
  let dir = '';
  let ctx: ToolContext;
  let f = '';
  beforeEach(async () => {
    dir = tempDir('edit-');
    ctx = makeCtx(dir);
    f = join(dir, 'code.ts');
    writeFileSync(f, 'const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });
  afterEach(() => removeDir(dir));

  const edit = (input: Record<string, unknown>) => run(EditTool, { file_path: f, ...input }, ctx);

  it('refuses a file not read, and one changed since', async () => {
    const notRead = await edit({ old_string: 'b = 2', new_string: 'b = 3' });
    expect(notRead.isError).toBe(true);
    expect(text(notRead)).toContain('File has not been read yet');
    await run(ReadTool, { file_path: f }, ctx);
    writeFileSync(f, 'const a = 1;\nconst b = 2;\nconst c = 1;\n// more\n');
    const changed = await edit({ old_string: 'b = 2', new_string: 'b = 3' });
    expect(changed.isError).toBe(true);
    expect(text(changed)).toContain('File has been modified since read');
  });

  it('replaces a unique string, shows a numbered snippet, leaves no temp file', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    const r = await edit({ old_string: 'b = 2', new_string: 'b = $& 3' });
    expect(r.isError).toBeFalsy();
    expect(readFileSync(f, 'utf8')).toBe('const a = 1;\nconst b = $& 3;\nconst c = 1;\n');
    expect(text(r)).toContain('     2\tconst b = $& 3;');
    const data = r.data as EditOutput;
    expect(data).toMatchObject({ filePath: f, oldString: 'b = 2', newString: 'b = $& 3', replaceAll: false });
    expect(data.structuredPatch[0].lines).toContain('+const b = $& 3;');
    expect(readdirSync(dir)).toEqual(['code.ts']);
  });

  it('refuses identical strings, a missing string, and an ambiguous one', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    const same = await edit({ old_string: 'x', new_string: 'x' });
    expect(same.isError).toBe(true);
    expect(text(same)).toContain('No changes to make');
    const missing = await edit({ old_string: 'zzz', new_string: 'y' });
    expect(text(missing)).toContain('String to replace not found in file.\nString: zzz');
    const ambiguous = await edit({ old_string: '= 1', new_string: '= 9' });
    expect(ambiguous.isError).toBe(true);
    expect(text(ambiguous)).toContain(
      'Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.',
    );
    expect(readFileSync(f, 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    await run(ReadTool, { file_path: f }, ctx);
    const r = await edit({ old_string: '= 1', new_string: '= 9', replace_all: true });
    expect(r.isError).toBeFalsy();
    expect(readFileSync(f, 'utf8')).toBe('const a = 9;\nconst b = 2;\nconst c = 9;\n');
  });

  it('creates a new file from an empty old_string, but not over an existing one', async () => {
    const nf = join(dir, 'sub/new.txt');
    const r = await run(EditTool, { file_path: nf, old_string: '', new_string: 'fresh\n' }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(nf, 'utf8')).toBe('fresh\n');
    await run(ReadTool, { file_path: f }, ctx);
    const over = await edit({ old_string: '', new_string: 'x' });
    expect(over.isError).toBe(true);
    expect(text(over)).toContain('already exists');
    const absent = await run(EditTool, { file_path: join(dir, 'none.txt'), old_string: 'a', new_string: 'b' }, ctx);
    expect(text(absent)).toContain('File does not exist');
  });

  it('keeps the file mode and allows consecutive edits after one read', async () => {
    chmodSync(f, 0o640);
    utimesSync(f, 1_600_000_000, 1_600_000_000);
    await run(ReadTool, { file_path: f }, ctx);
    expect((await edit({ old_string: 'a = 1', new_string: 'a = 10' })).isError).toBeFalsy();
    expect((await edit({ old_string: 'c = 1', new_string: 'c = 10' })).isError).toBeFalsy();
    expect(readFileSync(f, 'utf8')).toBe('const a = 10;\nconst b = 2;\nconst c = 10;\n');
    expect(statSync(f).mode & 0o777).toBe(0o640);
  });
});
