// Whether to ask the terminal for the kitty keyboard protocol, in which Shift+Enter comes apart
// from Enter (CSI 13;2u). kitty, WezTerm and Ghostty have it; Ink pushes the protocol's flags at the
// start and pops them at exit. Not asked with a query and a wait: a reply read after the first
// frame (a slow start) would be typed into the editor, and a wait would delay the first frame.
// Not inside tmux or screen, which sit between us and the terminal and do not speak it.

export function kittyKeyboardTerminal(env: NodeJS.ProcessEnv): boolean {
  if (env.TMUX || env.STY) return false;
  return (
    'KITTY_WINDOW_ID' in env ||
    env.TERM === 'xterm-kitty' ||
    env.TERM_PROGRAM === 'WezTerm' ||
    env.TERM_PROGRAM === 'ghostty'
  );
}
