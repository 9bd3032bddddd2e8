// Grep's pure-JS impl (no rg installed): walks in rg's order with rg's rules, reads files sync, matches lines.
import { closeSync, fstatSync, openSync, promises as fsp, readSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ToolError } from '../tool.js';
import { IgnoreRules, makeGlobOverride, makeTypeFilter } from './ignoreRules.js';
import {
  capLine,
  compilePattern,
  JS_MAX_FILE_BYTES,
  MAX_FILES,
  RG_TIMEOUT_MS,
  type ContentResult,
  type FileHits,
  type SearchSpec,
} from './shared.js';

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Walk `root` in rg --sort path order (per directory, entries by name, depth first), yielding the files rg would search. */
async function* walkFilesSorted(spec: SearchSpec): AsyncGenerator<string> {
  if (spec.file) {
    yield spec.file;
    return;
  }
  const rules = new IgnoreRules();
  const globOverride = makeGlobOverride(spec.globs);
  const typeFilter = makeTypeFilter(spec.type);
  const keep = (abs: string, name: string, isDir: boolean): boolean => {
    const rel = relative(spec.root, abs).split(sep).join('/');
    // rg's order: a --glob decides alone; else ignore files, then --type (which can still
    // exclude a file an ignore file re-included); hidden only counts when nothing whitelisted.
    if (!isDir && spec.readable && !spec.readable(abs)) return false;
    const o = globOverride?.(rel, isDir);
    if (o !== undefined) return o !== 'ignore';
    const m = rules.decide(abs, isDir);
    if (m === 'ignore') return false;
    const t = typeFilter?.(name, isDir);
    if (t === 'ignore') return false;
    if (m === undefined && t === undefined && name.startsWith('.')) return false;
    return true;
  };
  async function* visit(dir: string): AsyncGenerator<string> {
    if (spec.signal.aborted) throw new ToolError('Grep was interrupted.');
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => byteCompare(a.name, b.name));
    for (const e of entries) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (keep(abs, e.name, true)) yield* visit(abs);
      } else if (e.isFile() && keep(abs, e.name, false)) {
        yield abs;
      }
    }
  }
  yield* visit(spec.root);
}

/** The file's text, or undefined when it is binary, too big or unreadable (open, fstat, read, close). */
export function readSearchableSync(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const { size } = fstatSync(fd);
    if (size > JS_MAX_FILE_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    const data = got === size ? buf : buf.subarray(0, got);
    if (data.includes(0)) return undefined;
    return data.toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

/** Indexes (0-based) of the lines a match touches. */
function matchedLineIndexes(text: string, lines: string[], re: RegExp, multiline: boolean): number[] {
  if (!multiline) {
    const out: number[] = [];
    lines.forEach((l, i) => {
      if (re.test(l)) out.push(i);
    });
    return out;
  }
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const hit = new Set<number>();
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    if (m[0].length === 0) continue;
    const first = lineOf(m.index);
    const last = lineOf(m.index + m[0].length - 1);
    for (let i = first; i <= last && i < lines.length; i++) hit.add(i);
  }
  return [...hit].sort((a, b) => a - b);
}

function hitsForFile(
  path: string,
  text: string,
  spec: SearchSpec,
  re: RegExp,
  keepLines: boolean,
): FileHits | undefined {
  const lines = splitLines(text);
  const matched = matchedLineIndexes(text, lines, re, spec.multiline);
  if (matched.length === 0) return undefined;
  const hits: FileHits = { path, lines: [], count: matched.length };
  if (!keepLines) return hits;
  const isMatch = new Set(matched);
  const shown = new Set<number>();
  for (const m of matched) {
    for (let i = Math.max(0, m - spec.before); i <= Math.min(lines.length - 1, m + spec.after); i++) shown.add(i);
  }
  for (const i of [...shown].sort((a, b) => a - b)) {
    hits.lines.push({ line: i + 1, text: capLine(lines[i]), match: isMatch.has(i) });
  }
  return hits;
}

/**
 * The walk's files with their text. Reads are synchronous: for the small files a search meets,
 * a promise-based read costs several times more in thread-pool round trips than the read itself
 * (measured: 20,000 files in ~0.15 s sync, ~1 s through fs.promises). The event loop still gets a
 * turn every few milliseconds, so an interrupt is heard at once.
 */
async function* withText(files: AsyncIterable<string>): AsyncGenerator<[string, string | undefined]> {
  let slice = Date.now();
  for await (const file of files) {
    yield [file, readSearchableSync(file)];
    if (Date.now() - slice > 8) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = Date.now();
    }
  }
}

export async function jsFiles(spec: SearchSpec): Promise<string[]> {
  const re = compilePattern(spec.pattern, spec.ignoreCase, spec.multiline);
  const out: string[] = [];
  const deadline = Date.now() + RG_TIMEOUT_MS;
  for await (const [file, text] of withText(walkFilesSorted(spec))) {
    if (Date.now() > deadline) break;
    if (text === undefined) continue;
    if (matchedLineIndexes(text, splitLines(text), re, spec.multiline).length > 0) out.push(file);
    if (out.length >= MAX_FILES) break;
  }
  return out;
}

export async function jsContent(spec: SearchSpec, wantLines: number, keepLines: boolean): Promise<ContentResult> {
  const re = compilePattern(spec.pattern, spec.ignoreCase, spec.multiline);
  const files: FileHits[] = [];
  let total = 0;
  const deadline = Date.now() + RG_TIMEOUT_MS;
  for await (const [file, text] of withText(walkFilesSorted(spec))) {
    if (Date.now() > deadline) return { files, timedOut: true };
    if (text === undefined) continue;
    const hits = hitsForFile(file, text, spec, re, keepLines);
    if (!hits) continue;
    files.push(hits);
    total += keepLines ? hits.lines.length : hits.count;
    if (wantLines > 0 && total >= wantLines) break;
  }
  return { files, timedOut: false };
}
