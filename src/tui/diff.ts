// What a file edit changed, as unified-diff rows a person reads: from a file tool's result (its
// structuredPatch, as Edit and Write give it), or, for the permission question, computed from the
// call's input (Write's content, Edit's old/new strings, a list of such edits) against the file as
// it is now. Which calls are file edits, and the files they edit, are the tool's declaration (kind
// 'edit' and `access().paths`, tools/tool.ts), looked up by the caller: no tool name here, and no
// input field named for a path. Pure functions (the file is read through a function
// passed in), so they are unit-tested without a terminal.
import { structuredPatch } from 'diff';

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface FileDiff {
  file: string;
  hunks: Hunk[];
  added: number;
  removed: number;
  /** The file did not exist before. */
  created: boolean;
}

export interface DiffRow {
  /** '+' added, '-' removed, ' ' context, '…' lines skipped between hunks. */
  sign: '+' | '-' | ' ' | '…';
  /** The line's number: the new file's for added and context lines, the old file's for removed ones. */
  num?: number;
  text: string;
}

/** Files bigger than this are not diffed for a preview (the tools draw the same line). */
const MAX_DIFF_CHARS = 1_000_000;

/**
 * The files a call of the session's tool of this name declares it edits (`access().paths` of a tool
 * of kind 'edit'); undefined when the tool does not edit files, or the session does not know it.
 * Only such calls are drawn as diffs (a NotebookEdit's result has no patch and is not).
 */
export type EditedFilesOf = (name: string, input: unknown) => readonly string[] | undefined;

function record(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

function isHunk(h: unknown): h is Hunk {
  const r = record(h);
  return typeof r.oldStart === 'number' && typeof r.newStart === 'number' && Array.isArray(r.lines);
}

function counted(file: string, hunks: Hunk[], created: boolean): FileDiff {
  let added = 0;
  let removed = 0;
  for (const h of hunks)
    for (const l of h.lines) {
      if (l[0] === '+') added++;
      else if (l[0] === '-') removed++;
    }
  return { file, hunks, added, removed, created };
}

/** A new file's whole content as one hunk of added lines. */
function creation(file: string, content: string): FileDiff {
  const lines = content.replace(/\n$/, '').split('\n');
  if (content === '') return counted(file, [], true);
  return counted(
    file,
    [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((l) => `+${l}`) }],
    true,
  );
}

/**
 * The diff a file edit's result carries (its structured output), if any; `files`: what the call
 * declares it edits (EditedFilesOf), undefined for a call that is not a file edit.
 */
export function resultDiff(files: readonly string[] | undefined, data: unknown): FileDiff | undefined {
  if (!files) return undefined;
  const d = record(data);
  const file = String(d.filePath ?? files[0] ?? '');
  if (d.type === 'create' && typeof d.content === 'string') return creation(file, d.content);
  if (!Array.isArray(d.structuredPatch)) return undefined;
  const hunks = d.structuredPatch.filter(isHunk);
  // An Edit with an empty old_string creates the file: it had no original.
  return counted(file, hunks, d.originalFile === null);
}

/** Apply one old→new replacement as the Edit tool does; undefined when old is not in the text. */
function replaceOnce(text: string, oldString: string, newString: string, all: boolean): string | undefined {
  if (oldString === '') return text === '' ? newString : undefined;
  const at = text.indexOf(oldString);
  if (at < 0) return undefined;
  if (all) return text.split(oldString).join(newString);
  return text.slice(0, at) + newString + text.slice(at + oldString.length);
}

/**
 * What a pending file edit would change to the first file it declares (`files`, EditedFilesOf),
 * against the file as it is now (`read` gives its text, or null when it does not exist), from its
 * input's shape: a `content` is the whole new file (Write), `edits` a list of old→new replacements
 * (MultiEdit's), else one `old_string`→`new_string` (Edit). Undefined when it cannot be worked out
 * (the old text is not in the file: the tool will refuse the call anyway) or the call is not a file
 * edit.
 */
export function previewDiff(
  files: readonly string[] | undefined,
  input: unknown,
  read: (path: string) => string | null,
): FileDiff | undefined {
  const file = files?.[0];
  if (!file) return undefined;
  const i = record(input);
  let before: string | null;
  try {
    before = read(file);
  } catch {
    return undefined;
  }
  let after: string | undefined;
  if (typeof i.content === 'string') {
    if (before === null) return creation(file, i.content);
    after = i.content;
  } else {
    const edits = Array.isArray(i.edits) ? i.edits.map(record) : [i as Record<string, unknown>];
    after = before ?? '';
    for (const e of edits) {
      if (typeof e.old_string !== 'string' || typeof e.new_string !== 'string') return undefined;
      after = replaceOnce(after, e.old_string, e.new_string, e.replace_all === true);
      if (after === undefined) return undefined;
    }
    if (before === null) return creation(file, after);
  }
  if (before.length + after.length > MAX_DIFF_CHARS) return undefined;
  return counted(file, structuredPatch(file, file, before, after, '', '', { context: 3 }).hunks, false);
}

/** The diff's rows with their line numbers, hunks separated by a '…' row. */
export function diffRows(d: FileDiff): DiffRow[] {
  const rows: DiffRow[] = [];
  d.hunks.forEach((h, n) => {
    if (n > 0) rows.push({ sign: '…', text: '' });
    let oldNum = h.oldStart;
    let newNum = h.newStart;
    for (const l of h.lines) {
      const sign = l[0];
      const text = l.slice(1);
      if (sign === '+') rows.push({ sign, num: newNum++, text });
      else if (sign === '-') rows.push({ sign, num: oldNum++, text });
      else if (sign === ' ') {
        rows.push({ sign, num: newNum++, text });
        oldNum++;
      }
      // '\ No newline at end of file' is not a line of the file.
    }
  });
  return rows;
}

/** "Updated a.ts: 2 lines added, 1 removed" — the diff in one line. */
export function diffSummary(d: FileDiff, baseName: (p: string) => string): string {
  const n = (k: number, what: string) => `${k} line${k === 1 ? '' : 's'} ${what}`;
  const name = baseName(d.file);
  if (d.created) return `Created ${name} (${n(d.added, 'written')})`;
  if (!d.added && !d.removed) return `No change to ${name}`;
  const parts = [
    ...(d.added ? [n(d.added, 'added')] : []),
    ...(d.removed ? [d.added ? `${d.removed} removed` : n(d.removed, 'removed')] : []),
  ];
  return `Updated ${name}: ${parts.join(', ')}`;
}
