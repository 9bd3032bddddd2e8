// An edit's diff rows: from a tool's structured result, and from a pending call against the file.
import { describe, expect, it } from 'vitest';
import { diffRows, diffSummary, previewDiff, resultDiff } from '../../../src/tui/diff.js';

const file = (text: string | null) => () => text;

describe('previewDiff', () => {
  it('an Edit against the file as it is: numbered rows, context around the change', () => {
    const d = previewDiff(
      ['/p/a.txt'],
      { file_path: '/p/a.txt', old_string: 'two', new_string: 'TWO' },
      file('one\ntwo\nthree\n'),
    )!;
    expect(diffRows(d)).toEqual([
      { sign: ' ', num: 1, text: 'one' },
      { sign: '-', num: 2, text: 'two' },
      { sign: '+', num: 2, text: 'TWO' },
      { sign: ' ', num: 3, text: 'three' },
    ]);
    expect(diffSummary(d, (p) => p.split('/').pop()!)).toBe('Updated a.txt: 1 line added, 1 removed');
  });

  it('a Write of a new file is all added lines; a MultiEdit applies its edits in order', () => {
    const w = previewDiff(['/p/n.txt'], { file_path: '/p/n.txt', content: 'a\nb\n' }, file(null))!;
    expect(w.created).toBe(true);
    expect(diffRows(w).map((r) => `${r.sign}${r.text}`)).toEqual(['+a', '+b']);
    const m = previewDiff(
      ['/p/m.txt'],
      {
        file_path: '/p/m.txt',
        edits: [
          { old_string: 'x', new_string: 'y' },
          { old_string: 'y', new_string: 'z', replace_all: true },
        ],
      },
      file('x\ny\n'),
    )!;
    expect(diffRows(m).map((r) => `${r.sign}${r.text}`)).toEqual(['-x', '-y', '+z', '+z']);
  });

  it('no preview when the old text is not in the file, or for other tools', () => {
    expect(
      previewDiff(['/p/a'], { file_path: '/p/a', old_string: 'nope', new_string: 'x' }, file('abc')),
    ).toBeUndefined();
    expect(previewDiff(undefined, { command: 'ls' }, file('abc'))).toBeUndefined();
  });

  it('diffs the file the call declares, whatever its input calls the path', () => {
    const read: string[] = [];
    const d = previewDiff(['/p/s.txt'], { target: '/p/s.txt', old_string: 'a', new_string: 'b' }, (p) => {
      read.push(p);
      return 'a\n';
    })!;
    expect(read).toEqual(['/p/s.txt']);
    expect([d.file, d.added, d.removed]).toEqual(['/p/s.txt', 1, 1]);
    // A file_path field alone makes no edit: a call that declares no file has no preview.
    expect(previewDiff([], { file_path: '/p/s.txt', content: 'x' }, file(null))).toBeUndefined();
  });
});

describe('resultDiff', () => {
  it("reads an Edit's structuredPatch; hunks are separated by a skip row", () => {
    const d = resultDiff(['/p/a'], {
      filePath: '/p/a',
      originalFile: 'x',
      structuredPatch: [
        { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ['-a', '+b'] },
        { oldStart: 40, oldLines: 1, newStart: 40, newLines: 2, lines: [' c', '+d', '\\ No newline at end of file'] },
      ],
    })!;
    expect(diffRows(d)).toEqual([
      { sign: '-', num: 3, text: 'a' },
      { sign: '+', num: 3, text: 'b' },
      { sign: '…', text: '' },
      { sign: ' ', num: 40, text: 'c' },
      { sign: '+', num: 41, text: 'd' },
    ]);
    expect([d.added, d.removed, d.created]).toEqual([2, 1, false]);
  });

  it("a Write that created its file shows the content; other tools' results have no diff", () => {
    const d = resultDiff(['/p/n'], { type: 'create', filePath: '/p/n', content: 'hi\n', structuredPatch: [] })!;
    expect(diffSummary(d, (p) => p)).toBe('Created /p/n (1 line written)');
    expect(resultDiff(undefined, { structuredPatch: [] })).toBeUndefined();
  });

  it('a result that does not name its file is drawn under the file the call declares', () => {
    const hunk = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+b'] };
    expect(resultDiff(['/p/s.txt'], { originalFile: 'a', structuredPatch: [hunk] })?.file).toBe('/p/s.txt');
  });
});
