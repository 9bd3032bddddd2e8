import { describe, expect, it } from 'vitest';
import { EMPTY, editorKey } from '../../../src/tui/editor.js';

const type = (s: string) => editorKey(EMPTY, s, {}).state;

describe('prompt editor keys', () => {
  it('Enter sends the text; a backslash before Enter, Shift+Enter or Alt+Enter adds a line instead', () => {
    expect(editorKey(type('hi'), '', { return: true })).toEqual({ state: EMPTY, submit: 'hi' });
    expect(editorKey(type('a\\'), '', { return: true }).state).toEqual({ text: 'a\n', cursor: 2 });
    expect(editorKey(type('a'), '', { return: true, shift: true }).state.text).toBe('a\n');
    expect(editorKey(type('a'), '', { return: true, meta: true }).state.text).toBe('a\n');
  });

  it('text and Enter read in one chunk are the text, then Enter; a pasted chunk keeps its lines', () => {
    expect(editorKey(EMPTY, 'count\r', {})).toEqual({ state: EMPTY, submit: 'count' });
    expect(editorKey(EMPTY, 'a\rb', {}).state.text).toBe('a\nb');
  });

  it('edits at the cursor: arrows, backspace, Ctrl+U, Ctrl+W; Up on the first line is left to the caller', () => {
    let s = type('abc');
    s = editorKey(s, '', { leftArrow: true }).state;
    s = editorKey(s, 'X', {}).state;
    expect(s).toEqual({ text: 'abXc', cursor: 3 });
    s = editorKey(s, '', { backspace: true }).state;
    expect(s.text).toBe('abc');
    expect(editorKey(type('one two'), 'w', { ctrl: true }).state.text).toBe('one ');
    expect(editorKey(type('one two'), 'u', { ctrl: true }).state.text).toBe('');
    expect(editorKey(type('x'), '', { upArrow: true }).unhandled).toBe(true);
    const two = { text: 'ab\ncd', cursor: 4 };
    expect(editorKey(two, '', { upArrow: true }).state.cursor).toBe(1);
  });
});
