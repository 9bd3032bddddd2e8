import { describe, expect, it } from 'vitest';
import { kittyKeyboardTerminal } from '../../../src/tui/kittyKeys.js';

describe('kittyKeyboardTerminal', () => {
  it('kitty, WezTerm and Ghostty have the protocol; other terminals, and tmux or screen in between, do not', () => {
    expect(kittyKeyboardTerminal({ KITTY_WINDOW_ID: '1' })).toBe(true);
    expect(kittyKeyboardTerminal({ TERM: 'xterm-kitty' })).toBe(true);
    expect(kittyKeyboardTerminal({ TERM_PROGRAM: 'WezTerm' })).toBe(true);
    expect(kittyKeyboardTerminal({ TERM_PROGRAM: 'ghostty' })).toBe(true);
    expect(kittyKeyboardTerminal({ TERM: 'xterm-256color', TERM_PROGRAM: 'iTerm.app' })).toBe(false);
    expect(kittyKeyboardTerminal({ TERM_PROGRAM: 'WezTerm', TMUX: '/tmp/tmux-1/default,1,0' })).toBe(false);
    expect(kittyKeyboardTerminal({ KITTY_WINDOW_ID: '1', STY: '1.pts-0' })).toBe(false);
  });
});
