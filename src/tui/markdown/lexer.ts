// marked, loaded lazily: its module builds about a hundred regexes as it loads, which the first
// frame (an empty prompt) does not need. It is a chunk of its own, imported right after the first
// frame is drawn (src/tui/main.tsx); until it is there an answer is drawn as plain text and not
// written to the scrollback for good (the store waits for it, as for the highlighter).
import type { Token } from 'marked';

type Marked = typeof import('marked');

let marked: Marked | undefined;
let loading: Promise<void> | undefined;
/** True once loading ended, loaded or not (a failed load leaves answers plain, never waiting). */
let settled = false;
const listeners = new Set<() => void>();

export function loadLexer(): Promise<void> {
  loading ??= import('marked')
    .then(
      (m) => {
        marked = m;
      },
      () => {},
    )
    .finally(() => {
      settled = true;
      for (const fn of listeners) fn();
    });
  return loading;
}

export function lexerSettled(): boolean {
  return settled;
}

export function onLexer(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The Markdown's tokens, or undefined while marked is not loaded. */
export function lex(text: string): Token[] | undefined {
  return marked?.Lexer.lex(text, { gfm: true });
}
