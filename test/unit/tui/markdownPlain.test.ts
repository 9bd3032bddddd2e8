// Plain text skips marked (src/tui/markdown/lexer.ts, plainTokens): whatever it takes as plain must
// lex to exactly the tokens marked gives it, so the answer is drawn the same.
import { Lexer } from 'marked';
import { describe, expect, it } from 'vitest';
import { plainTokens } from '../../../src/tui/markdown/lexer.js';

// (as a plain array: marked's also carries the link definitions it found, which the drawing ignores)
const marked = (s: string) => [...Lexer.lex(s, { gfm: true })];

describe('plainTokens', () => {
  it('takes short plain answers, as marked lexes them', () => {
    for (const s of [
      'first answer',
      'ok, not making it',
      'it\'s "quoted" (yes): fine; ok! no? a-b.',
      'héllo 世界 3.5',
      'two\nlines',
      'Shorter it is.',
      // A streamed answer between two words: the last line's spaces break nothing.
      'hi from ',
      'abc  ',
      'one\ntwo ',
    ]) {
      expect(plainTokens(s), s).toBeDefined();
      expect(plainTokens(s), s).toEqual(marked(s));
    }
  });

  it('leaves anything marked could read as markup to marked', () => {
    for (const s of [
      '',
      '# title',
      '- item',
      '1. item',
      'a  \nb',
      'abc\n ',
      'see www.example.com',
      'a *b*',
      'a *b* c',
      'a _b_ c',
      'a **b** c',
      'a ~~b~~ c',
      'a `b` c',
      'a [b](c) d',
      'a\n\nb',
      'a\n---',
      'a\n===',
      'x | y',
      'a <b>x</b> c',
      'a &amp; b',
      'mail a@b.dev',
      'see http://x.dev now',
      '  indented',
      'a\tb',
      'trail\n',
    ])
      expect(plainTokens(s), JSON.stringify(s)).toBeUndefined();
  });

  it('agrees with marked on random text (whatever it takes is lexed alike)', () => {
    // A small deterministic generator: plain text (letters, digits, spaces, plain punctuation,
    // newlines), often with pieces of Markdown's punctuation put in somewhere (or a pair of one).
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const plain = ['a', 'b', 'Z', 'é', '1', '2', ' ', ' ', ',', '.', ';', ':', '!', '?', "'", '"', '(', ')', '-', '\n'];
    const markup = [
      '*',
      '**',
      '_',
      '`',
      '#',
      '>',
      '[',
      ']',
      '](x)',
      '|',
      '<b>',
      '&amp;',
      '~~',
      '=',
      '+',
      '\\',
      'www.',
      '@',
      '/',
      '://',
      '\t',
      '  \n',
      '\n\n',
      '\n- ',
      '\n1. ',
      '\n---',
    ];
    const pairs = ['*', '**', '_', '__', '~', '~~', '`'];
    let taken = 0;
    for (let i = 0; i < 10000; i++) {
      let s = 'w';
      for (let j = rand(30); j >= 0; j--) s += plain[rand(plain.length)];
      const put = (piece: string) => {
        const at = rand(s.length + 1);
        s = s.slice(0, at) + piece + s.slice(at);
      };
      for (let k = rand(3); k > 0; k--) put(markup[rand(markup.length)]);
      // Emphasis and code are pairs: the same delimiter twice.
      if (rand(3) === 0) {
        const d = pairs[rand(pairs.length)];
        put(d);
        put(d);
      }
      const mine = plainTokens(s);
      if (!mine) continue;
      taken++;
      expect(mine, JSON.stringify(s)).toEqual(marked(s));
    }
    expect(taken).toBeGreaterThan(500);
  });
});
