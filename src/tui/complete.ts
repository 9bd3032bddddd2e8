// What the prompt offers to complete: a slash command while the prompt is `/name` (no space yet),
// a file path after an `@`. Pure functions over the editor's text and cursor.
import type { EditorState } from './editor.js';

export interface CommandEntry {
  name: string;
  description: string;
  argumentHint: string;
}

/** The `/` query: the prompt is one word starting with `/`, the cursor inside it. */
export function slashQuery(e: EditorState): string | undefined {
  if (!e.text.startsWith('/') || /\s/.test(e.text.slice(0, e.cursor))) return undefined;
  return e.text.slice(1, e.cursor);
}

/** The `@` mention before the cursor: where it starts and what follows the `@`. */
export function atQuery(e: EditorState): { start: number; query: string } | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(e.text.slice(0, e.cursor));
  if (!m) return undefined;
  return { start: m.index + m[1].length, query: m[2] };
}

/**
 * How well `query` matches `target` as a subsequence (case-insensitive); higher is better,
 * undefined when it does not. Consecutive letters, a match at a word start, and shorter targets win.
 */
export function fuzzyScore(query: string, target: string): number | undefined {
  const q = query.toLowerCase();
  const t = target.toLowerCase();
  if (!q) return 0;
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of q) {
    const i = t.indexOf(ch, at + 1);
    if (i < 0) return undefined;
    run = i === at + 1 ? run + 1 : 0;
    score += 1 + run * 2 + (i === 0 || '/._- '.includes(t[i - 1]) ? 3 : 0);
    at = i;
  }
  return score * 100 - t.length;
}

/** Commands for a `/` query: name prefix matches first, then fuzzy ones. */
export function matchCommands(cmds: CommandEntry[], query: string, max = 8): CommandEntry[] {
  const q = query.toLowerCase();
  const prefix = cmds.filter((c) => c.name.toLowerCase().startsWith(q));
  const fuzzy = cmds
    .filter((c) => !prefix.includes(c))
    .map((c) => ({ c, s: fuzzyScore(q, c.name) }))
    .filter((x) => x.s !== undefined)
    .sort((a, b) => b.s! - a.s!)
    .map((x) => x.c);
  return [...prefix, ...fuzzy].slice(0, max);
}

/** Paths for an `@` query, best first; the file's own name counts more than its folders. */
export function matchFiles(files: string[], query: string, max = 8): string[] {
  if (!query) return files.slice(0, max);
  const scored: Array<{ f: string; s: number }> = [];
  for (const f of files) {
    const whole = fuzzyScore(query, f);
    if (whole === undefined) continue;
    const base = fuzzyScore(query, f.slice(f.lastIndexOf('/') + 1));
    scored.push({ f, s: Math.max(whole, base === undefined ? -Infinity : base + 1000) });
  }
  return scored
    .sort((a, b) => b.s - a.s)
    .slice(0, max)
    .map((x) => x.f);
}

/** The editor with the `@` mention replaced by the chosen path (and a space after it). */
export function completeAt(e: EditorState, start: number, path: string): EditorState {
  const insert = `@${path} `;
  const text = e.text.slice(0, start) + insert + e.text.slice(e.cursor);
  return { text, cursor: start + insert.length };
}
