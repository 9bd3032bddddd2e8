import { describe, expect, it } from 'vitest';
import { PasteFilter } from '../../../src/tui/bracketedPaste.js';

describe('bracketed paste', () => {
  it('hands each paste on as one chunk, its line ends as \\n, without markers or escapes', () => {
    const f = new PasteFilter();
    expect(f.push('ab')).toEqual(['ab']);
    expect(f.push('x\x1b[200~one\rtwo\r\nthree\r\x1b[201~y')).toEqual(['x', 'one\ntwo\nthree\n', 'y']);
    expect(f.push('\x1b[200~a\x1b[Ab\x1b[201~')).toEqual(['a[Ab']);
  });

  it('joins a paste read in several pieces, its end marker split too', () => {
    const f = new PasteFilter();
    expect(f.push('\x1b[200~first ')).toEqual([]);
    expect(f.pasting).toBe(true);
    expect(f.push('second\r')).toEqual([]);
    expect(f.push('third\x1b[20')).toEqual([]);
    expect(f.push('1~\r')).toEqual(['first second\nthird', '\r']);
    expect(f.pasting).toBe(false);
  });

  it('passes keys through as read (Esc, arrows, Enter)', () => {
    const f = new PasteFilter();
    expect(f.push('\x1b')).toEqual(['\x1b']);
    expect(f.push('\x1b[A')).toEqual(['\x1b[A']);
    expect(f.push('\r')).toEqual(['\r']);
  });
});
