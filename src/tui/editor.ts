// The prompt editor's state and keys, as pure functions: a text with a cursor, several lines.
// Enter sends; Shift+Enter or Alt+Enter (terminals that cannot tell Shift) or a `\` typed just
// before Enter adds a line instead.

export interface EditorState {
  text: string;
  /** Index into text. */
  cursor: number;
}

/** The parts of Ink's Key the editor reads. */
export interface EditorKey {
  return?: boolean;
  shift?: boolean;
  meta?: boolean;
  ctrl?: boolean;
  backspace?: boolean;
  delete?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  home?: boolean;
  end?: boolean;
  tab?: boolean;
  escape?: boolean;
}

export const EMPTY: EditorState = { text: '', cursor: 0 };

export type EditorResult = { state: EditorState; submit?: string; unhandled?: boolean };

export function editorKey(s: EditorState, input: string, key: EditorKey): EditorResult {
  // Text and Enter read in one chunk (typed fast, or sent by a program): the text, then Enter.
  // A chunk with line ends inside is a paste: they become the editor's lines.
  if (input.length > 1 && input.endsWith('\r') && !input.slice(0, -1).includes('\r'))
    return editorKey(insert(s, input.slice(0, -1)), '', { return: true });
  const { text, cursor } = s;
  if (key.return) {
    if (key.shift || key.meta) return { state: insert(s, '\n') };
    if (cursor > 0 && text[cursor - 1] === '\\') {
      return { state: { text: `${text.slice(0, cursor - 1)}\n${text.slice(cursor)}`, cursor } };
    }
    return { state: EMPTY, submit: text };
  }
  // Many terminals send DEL (Ink's "delete") for the Backspace key: both erase backwards.
  if (key.backspace || (key.delete && !key.ctrl)) {
    if (cursor === 0) return { state: s };
    return { state: { text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 } };
  }
  if (key.leftArrow) return { state: { text, cursor: Math.max(0, cursor - 1) } };
  if (key.rightArrow) return { state: { text, cursor: Math.min(text.length, cursor + 1) } };
  if (key.upArrow || key.downArrow) {
    const moved = moveLine(s, key.upArrow ? -1 : 1);
    // On the first (last) line the arrow is left to the caller (history).
    return moved ? { state: moved } : { state: s, unhandled: true };
  }
  if (key.home || (key.ctrl && input === 'a')) return { state: { text, cursor: lineStart(text, cursor) } };
  if (key.end || (key.ctrl && input === 'e')) return { state: { text, cursor: lineEnd(text, cursor) } };
  if (key.ctrl && input === 'u') {
    const start = lineStart(text, cursor);
    return { state: { text: text.slice(0, start) + text.slice(cursor), cursor: start } };
  }
  if (key.ctrl && input === 'k')
    return { state: { text: text.slice(0, cursor) + text.slice(lineEnd(text, cursor)), cursor } };
  if (key.ctrl && input === 'w') {
    const before = text.slice(0, cursor).replace(/\S+\s*$/, '');
    return { state: { text: before + text.slice(cursor), cursor: before.length } };
  }
  if (key.ctrl || key.escape || key.tab || key.meta || !input) return { state: s, unhandled: true };
  // Typed or pasted text; a paste's line ends become the editor's.
  return { state: insert(s, input.replace(/\r\n?/g, '\n')) };
}

function insert(s: EditorState, t: string): EditorState {
  return { text: s.text.slice(0, s.cursor) + t + s.text.slice(s.cursor), cursor: s.cursor + t.length };
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
  const i = text.indexOf('\n', cursor);
  return i < 0 ? text.length : i;
}

function moveLine(s: EditorState, dir: -1 | 1): EditorState | null {
  const start = lineStart(s.text, s.cursor);
  const col = s.cursor - start;
  if (dir < 0) {
    if (start === 0) return null;
    const prevStart = lineStart(s.text, start - 1);
    return { text: s.text, cursor: Math.min(prevStart + col, start - 1) };
  }
  const end = lineEnd(s.text, s.cursor);
  if (end === s.text.length) return null;
  const nextEnd = lineEnd(s.text, end + 1);
  return { text: s.text, cursor: Math.min(end + 1 + col, nextEnd) };
}
