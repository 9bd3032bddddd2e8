// Grep's output formatting: content-mode lines in rg's path:line:text layout, and head_limit/offset paging.
import { basename, relative } from 'node:path';
import type { FileHits } from './shared.js';

/** One page of `items`, and whether more lay past it. */
export function paginate<T>(items: T[], offset: number, limit: number): { page: T[]; limited: boolean } {
  const page = limit === 0 ? items.slice(offset) : items.slice(offset, offset + limit);
  return { page, limited: limit !== 0 && items.length > offset + limit };
}

export function paginationNote(limited: boolean, limit: number, offset: number): string {
  if (!limited && offset === 0) return '';
  return `\n\n[Showing results with pagination = limit: ${limit}, offset: ${offset}]`;
}

/** Content-mode output lines: `path:line:text` for matches, `path-line-text` for context, `--` between groups. */
export function formatContentLines(
  files: FileHits[],
  cwd: string,
  showNumbers: boolean,
  withContext: boolean,
): string[] {
  const out: string[] = [];
  for (const f of files) {
    const rel = relative(cwd, f.path) || basename(f.path);
    let prev = -1;
    for (const l of f.lines) {
      if (withContext && out.length > 0 && (prev === -1 || l.line !== prev + 1)) out.push('--');
      const sepChar = l.match ? ':' : '-';
      out.push(showNumbers ? `${rel}${sepChar}${l.line}${sepChar}${l.text}` : `${rel}${sepChar}${l.text}`);
      prev = l.line;
    }
  }
  return out;
}
