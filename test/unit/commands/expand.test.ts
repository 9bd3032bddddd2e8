import { describe, expect, it } from 'vitest';
import { expandTemplate, splitArgs, substituteArgs } from '../../../src/commands/expand.js';
import { parseSlash } from '../../../src/commands/slashCommands.js';

describe('command templates', () => {
  it('splits arguments as a shell would', () => {
    expect(splitArgs(`a "b c" 'd e' f\\ g`)).toEqual(['a', 'b c', 'd e', 'f g']);
    expect(splitArgs('  ')).toEqual([]);
  });

  it('substitutes $ARGUMENTS and $N; appends the arguments when neither is used', () => {
    expect(substituteArgs('x $1 y $2 z $3.', 'one "two words"')).toBe('x one y two words z .');
    expect(substituteArgs('all: $ARGUMENTS', 'a b')).toBe('all: a b');
    expect(substituteArgs('plain', 'a b')).toBe('plain\n\nARGUMENTS: a b');
    expect(substituteArgs('plain', '')).toBe('plain');
  });

  it('runs ! lines and inline !`cmd` in order, and appends @files once each', async () => {
    const ran: string[] = [];
    const out = await expandTemplate('!echo 1\nmid !`echo 2` end\nsee @a.txt and @a.txt, not a@b.c or @missing', '', {
      shell: async (c) => (ran.push(c), `out(${c})\n`),
      readFile: async (p) => (p === 'a.txt' ? 'A' : undefined),
    });
    expect(ran).toEqual(['echo 1', 'echo 2']);
    expect(out).toBe(
      'out(echo 1)\nmid out(echo 2) end\nsee @a.txt and @a.txt, not a@b.c or @missing\n\n<file path="a.txt">\nA\n</file>',
    );
  });

  it('a refused shell line fails the expansion with its reason', async () => {
    await expect(
      expandTemplate('!rm x', '', {
        shell: async () => Promise.reject(new Error('no')),
        readFile: async () => undefined,
      }),
    ).rejects.toThrow('no');
  });

  it('parses /name args, namespaced names, and leaves paths alone', () => {
    expect(parseSlash('/review a b')).toEqual({ name: 'review', args: 'a b' });
    expect(parseSlash('/frontend:test')).toEqual({ name: 'frontend:test', args: '' });
    expect(parseSlash('/tmp/x is broken')).toBeUndefined();
    expect(parseSlash('hello /review')).toBeUndefined();
  });
});
