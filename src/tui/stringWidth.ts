// Ink measures every line it draws with string-width, whose first call on text that is not plain
// ASCII (a border, a bullet, a spinner) pays for Intl.Segmenter's data and its Unicode-property
// regexes: tens of milliseconds of the first frame. The characters this UI draws are one cell each
// (test/unit/tui/stringWidth.test.ts checks every one against string-width): those lines are
// counted here, anything else goes to string-width. scripts/bundle.mjs points Ink's imports of
// string-width here.
import stringWidth from 'string-width';

type Options = Parameters<typeof stringWidth>[1];

/** Colour codes (SGR), which take no cell. */
const SGR = /\x1b\[[\d;]*m/g;

/**
 * One cell each: printable ASCII and Latin-1 (not the soft hyphen), Latin extended and spacing
 * modifiers, general punctuation, arrows, mathematical operators, ⎇ ⎿ ⏵, box drawing, blocks and
 * geometric shapes (not ◽◾, drawn wide), the ballot boxes ☐☒, ✓ ✗ ✻ ❯, and braille (spinners).
 */
export const ONE_CELL =
  /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2200-\u22ff\u2387\u23bf\u23f5\u2500-\u25fc\u2610\u2612\u2713\u2717\u273b\u276f\u2800-\u28ff]*$/;

export default function width(text: string, options?: Options): number {
  if (typeof text !== 'string' || !text) return 0;
  if (options?.countAnsiEscapeCodes || options?.ambiguousIsNarrow === false) return stringWidth(text, options);
  const plain = text.includes('\x1b') ? text.replace(SGR, '') : text;
  return ONE_CELL.test(plain) ? plain.length : stringWidth(text, options);
}
