// Which `@` words of a memory file are imports.
import { describe, expect, it } from 'vitest';
import { importsOf } from '../../../src/settings/memory.js';

describe('importsOf', () => {
  it('takes paths (a slash or an extension), not @mentions, and not inside code', () => {
    const text = [
      'See @docs/style.md and @README.md, then @~/notes/x.md.',
      'Ask @alice about it.',
      'Inline `@not/this.md` is code.',
      '```',
      '@also/not.md',
      '```',
      'Escaped @my\\ file.md works.',
      'email me at bob@example.com',
    ].join('\n');
    expect(importsOf(text)).toEqual(['docs/style.md', 'README.md', '~/notes/x.md', 'my file.md']);
  });
});
