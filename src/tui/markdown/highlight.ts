// Code blocks' colours, loaded lazily: the highlighter (./highlighter.ts, with its grammars) is a
// chunk of its own, imported when a code block first appears. Until it is there code is drawn
// plain; subscribers hear when it arrives.

/** A run of code text and its highlight.js class (keyword, string, comment …). */
export interface Segment {
  text: string;
  cls?: string;
}

type Highlighter = typeof import('./highlighter.js');

let highlighter: Highlighter | undefined;
let loading: Promise<void> | undefined;
/** True once loading ended, loaded or not (a failed load leaves code plain, never waiting). */
let settled = false;
const listeners = new Set<() => void>();

export function loadHighlighter(): Promise<void> {
  loading ??= import('./highlighter.js')
    .then(
      (m) => {
        highlighter = m;
      },
      () => {},
    )
    .finally(() => {
      settled = true;
      for (const fn of listeners) fn();
    });
  return loading;
}

export function highlighterSettled(): boolean {
  return settled;
}

export function onHighlighter(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The code's lines as segments, or undefined (not loaded yet, or a language it does not know). */
export function highlight(code: string, lang: string | undefined): Segment[][] | undefined {
  if (!lang || !highlighter) return undefined;
  try {
    return highlighter.highlightLines(code, lang);
  } catch {
    return undefined;
  }
}

/** A fenced code block in Markdown text (``` or ~~~ at the start of a line). */
export function hasCodeFence(text: string): boolean {
  return /^ {0,3}(```|~~~)/m.test(text);
}
