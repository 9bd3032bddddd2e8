// Completion: the `/` and `@` queries, fuzzy matching, the mention's replacement.
import { describe, expect, it } from 'vitest';
import { atQuery, completeAt, matchCommands, matchFiles, slashQuery } from '../../../src/tui/complete.js';
import { mentionedPaths } from '../../../src/modes/fileMentions.js';

const cmd = (name: string) => ({ name, description: '', argumentHint: '' });

describe('completion', () => {
  it('reads the / query only while the prompt is one word, and the @ query before the cursor', () => {
    expect(slashQuery({ text: '/co', cursor: 3 })).toBe('co');
    expect(slashQuery({ text: '/cost x', cursor: 7 })).toBeUndefined();
    expect(atQuery({ text: 'see @src/a', cursor: 10 })).toEqual({ start: 4, query: 'src/a' });
    expect(atQuery({ text: 'mail a@b', cursor: 8 })).toBeUndefined();
  });

  it('orders prefix matches before fuzzy ones, and file-name matches before folder ones', () => {
    expect(matchCommands([cmd('help'), cmd('compact'), cmd('cost'), cmd('context')], 'co').map((c) => c.name)).toEqual([
      'compact',
      'cost',
      'context',
    ]);
    expect(matchCommands([cmd('help'), cmd('clear')], 'cr').map((c) => c.name)).toEqual(['clear']);
    expect(matchFiles(['notes/readme.md', 'src/notes.ts', 'docs/n.txt'], 'notes')[0]).toBe('src/notes.ts');
    expect(matchFiles(['a.ts'], 'zz')).toEqual([]);
  });

  it('replaces the mention with the chosen path and a space', () => {
    expect(completeAt({ text: 'see @sr please', cursor: 7 }, 4, 'src/a.ts')).toEqual({
      text: 'see @src/a.ts  please',
      cursor: 14,
    });
  });

  it('finds the paths a prompt mentions, quoted ones too', () => {
    expect(mentionedPaths('read @a.ts and @"b c.md", then @a.ts.')).toEqual(['a.ts', 'b c.md']);
  });
});
