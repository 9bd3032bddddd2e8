import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import width, { ONE_CELL } from '../../../src/tui/stringWidth.js';

describe('the UI string width', () => {
  it('counts one cell for each character it counts itself, as string-width does', () => {
    const wrong: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) {
      const ch = String.fromCharCode(cp);
      if (ONE_CELL.test(ch) && stringWidth(ch) !== 1) wrong.push(`U+${cp.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('agrees with string-width on what the UI draws, with colours, and on what it hands over', () => {
    for (const s of [
      '╭──────╮',
      '│ > hello │',
      '\x1b[90m│\x1b[39m > draft',
      '⏵ default (shift+tab) · claude · ⎇ main',
      '✓ Edit(notes.txt) ⎿ ⋮ ☐ ☒ ✻ ❯ ⠋',
      'emoji ✅ and 漢字 and ◽',
      'a\ttab',
      '',
    ])
      expect(width(s)).toBe(stringWidth(s));
    expect(width('漢字')).toBe(4);
    expect(width('\x1b[31mred\x1b[39m', { countAnsiEscapeCodes: true })).toBe(
      stringWidth('\x1b[31mred\x1b[39m', { countAnsiEscapeCodes: true }),
    );
  });
});
