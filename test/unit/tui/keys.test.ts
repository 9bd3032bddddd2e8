import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { KeyRouter } from '../../../src/tui/keys.js';

const plain = { upArrow: false, downArrow: false, return: false, ctrl: false, meta: false } as Key;

describe('the key router', () => {
  it('a key that follows another waits until React has drawn what that one did', async () => {
    const router = new KeyRouter();
    const seen: string[] = [];
    const editor: { current: (input: string, key: Key) => void } = {
      current: (input) => {
        seen.push(`editor ${input}`);
      },
    };
    router.add({ handler: editor, singleKeys: false });
    let dialog: (() => void) | undefined;
    // The first key opens a dialog, mounted (and drawn) later.
    editor.current = (input) => {
      seen.push(`editor ${input}`);
      if (input === 'o')
        setTimeout(() => {
          editor.current = () => {
            seen.push('editor (dialog open)');
          };
          dialog = router.add({
            handler: {
              current: (i) => {
                seen.push(`dialog ${i}`);
              },
            },
            singleKeys: true,
          });
          router.drawn();
        }, 5);
    };
    router.dispatch('o', plain);
    router.dispatch('y', plain);
    expect(seen).toEqual(['editor o']);
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual(['editor o', 'editor (dialog open)', 'dialog y']);
    dialog?.();
  });

  it('a short burst of text goes to a dialog key by key; a paste stays whole', async () => {
    const router = new KeyRouter();
    const seen: Array<[string, boolean]> = [];
    router.add({
      handler: {
        current: (i, k) => {
          seen.push([i, k.return]);
        },
      },
      singleKeys: true,
    });
    router.dispatch('y\r', plain);
    for (let i = 0; i < 3 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 40));
    expect(seen).toEqual([
      ['y', false],
      ['', true],
    ]);
    await new Promise((r) => setTimeout(r, 40));
    seen.length = 0;
    router.dispatch('a long pasted line', plain);
    expect(seen).toEqual([['a long pasted line', false]]);
  });
});
