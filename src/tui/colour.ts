// How many colours the terminal UI draws with, decided once from the environment. Ink colours
// through chalk, whose own guess turns colour off whenever CI is set; the UI only runs on a
// terminal, so the guess is ours: NO_COLOR or FORCE_COLOR=0 turn it off, TERM=dumb has none,
// COLORTERM and TERM tell how many colours there are.

/** 0 none, 1 the 16 basic colours, 2 256 colours, 3 true colour (chalk's levels). */
export type ColourLevel = 0 | 1 | 2 | 3;

export function colourLevel(env: NodeJS.ProcessEnv): ColourLevel {
  // no-color.org: present and not empty.
  if (env.NO_COLOR) return 0;
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return 0;
  const term = env.TERM ?? '';
  if (term === 'dumb') return 0;
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  if (colorterm === 'truecolor' || colorterm === '24bit') return 3;
  if (/-256(color)?$/.test(term)) return 2;
  return 1;
}
