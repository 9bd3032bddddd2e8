import { describe, expect, it } from 'vitest';
import { SIMPLE, UiSegmenter } from '../../../src/tui/segmenter.js';

const real = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const split = (segments: Iterable<{ segment: string; index: number }>) =>
  [...segments].map((s) => [s.segment, s.index]);

describe('the UI segmenter', () => {
  it('splits each text it splits itself as Intl.Segmenter does', () => {
    // Every character it takes, beside each other one of a sample (pairs are where graphemes join).
    const chars: string[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) if (SIMPLE.test(String.fromCharCode(cp))) chars.push(String.fromCharCode(cp));
    const wrong: string[] = [];
    const sample = ['a', ' ', '\n', '\x1b', '─', '✓', 'é', '\u02ff', '⠋'];
    for (const c of chars)
      for (const d of sample) {
        const text = c + d + c;
        if (JSON.stringify(split(real.segment(text))) !== JSON.stringify(split(new UiSegmenter().segment(text))))
          wrong.push(JSON.stringify(text));
      }
    expect(wrong).toEqual([]);
  });

  it('hands other text to the real one; containing() agrees', () => {
    const ui = new UiSegmenter(undefined, { granularity: 'grapheme' });
    for (const text of ['\x1b[90m╭──╮\x1b[39m │ > hi', 'e\u0301 and 👍🏽 and 🇫🇷 and 한국', 'a\r\nb', ''])
      expect(split(ui.segment(text))).toEqual(split(real.segment(text)));
    const text = '│ ✓ done';
    for (let i = -1; i <= text.length; i++)
      expect(ui.segment(text).containing(i)).toEqual(real.segment(text).containing(i));
    const words = new UiSegmenter('en', { granularity: 'word' });
    expect(split(words.segment('two words'))).toEqual(
      split(new Intl.Segmenter('en', { granularity: 'word' }).segment('two words')),
    );
  });
});
