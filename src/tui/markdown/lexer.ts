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
  if (!marked) return undefined;
  return plainTokens(text) ?? marked.Lexer.lex(text, { gfm: true });
}

/**
 * Lines of nothing Markdown reads as markup: each begins with a letter and holds only letters,
 * digits, spaces and plain punctuation, and none but the last ends in a space (two make a line
 * break before the next line); no `www.` (GFM links it). Such text is one paragraph of one text
 * token, as marked lexes it. The last line's spaces matter: a streamed answer is drawn at every
 * delta, and most deltas end between words.
 */
const PLAIN_LINE = /^\p{L}(?:[\p{L}\p{N} ,.;:!?'"()-]*[\p{L}\p{N},.;:!?'"()-])?$/u;

/**
 * The tokens marked gives text without markup (see PLAIN_LINE), or undefined for any other text.
 * Most answers in a session are short plain sentences; marked's first lex compiles its block
 * regexes (about 60 ms of CPU, then several ms a lex while V8 tiers them up), which such an answer never pays.
 */
export function plainTokens(text: string): Token[] | undefined {
  if (!text || /www\./i.test(text)) return undefined;
  const lines = text.split('\n');
  const last = lines.length - 1;
  lines[last] = lines[last]!.replace(/ +$/, '');
  for (const line of lines) if (!PLAIN_LINE.test(line)) return undefined;
  return [{ type: 'paragraph', raw: text, text, tokens: [{ type: 'text', raw: text, text, escaped: false }] }];
}
