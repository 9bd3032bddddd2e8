// A cheaper Output.get for Ink (ink/build/output.js), the step that turns a frame's writes into its
// text: Ink builds every cell of the live region as a fresh object on every frame, tokenizes every
// line again (its caches live one frame), and between every two cells works out the change of
// style with three Sets and four arrays, even when both cells are styled alike. That was the UI's
// largest cost per turn (a 10-turn session's profile: ~0.3 s of ~0.6 s in the UI's code, and much
// of its garbage). This get gives the same string (test/unit/tui/inkOutput.test.ts holds it to
// Ink's own on real frames and generated ones): blank cells are one shared object, lines' styled
// characters and widths are kept from frame to frame (a bounded cache; nothing writes into them),
// and a cell styled as the one before it adds no codes, which is what diffAnsiCodes gives then.
import {
  ansiCodesToString,
  diffAnsiCodes,
  type StyledChar,
  styledCharsFromTokens,
  tokenize,
} from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
// Ink's own module (its package exports only its entry): the bundle holds it once, so this is the
// class Ink draws with.
import Output from '../../node_modules/ink/build/output.js';
import stringWidth from './stringWidth.js';

type Code = StyledChar['styles'][number];
type Clip = { x1?: number; x2?: number; y1?: number; y2?: number };
type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: Array<(s: string, index: number) => string> }
  | { type: 'clip'; clip: Clip }
  | { type: 'unclip' };

/** Ink's get, kept for the test that holds the two to the same output. */
export const inkGet = Output.prototype.get;

/** A cache that forgets everything once it holds `max` entries (a session's lines keep changing). */
class Bounded<V> extends Map<string, V> {
  constructor(private readonly max: number) {
    super();
  }
  remember(key: string, value: V): V {
    if (this.size >= this.max) this.clear();
    this.set(key, value);
    return value;
  }
}

// A few screens' worth: the lines that come back frame after frame (borders, the editor, the status
// line) are what is worth keeping; a long answer's many lines would only hold memory.
const widths = new Bounded<number>(2000);
const blockWidths = new Bounded<number>(256);
const styledLines = new Bounded<StyledChar[]>(256);

const widthOf = (text: string) => widths.get(text) ?? widths.remember(text, stringWidth(text));

function widestLine(text: string): number {
  let w = blockWidths.get(text);
  if (w === undefined) {
    w = 0;
    for (const line of text.split('\n')) w = Math.max(w, widthOf(line));
    blockWidths.remember(text, w);
  }
  return w;
}

const styledChars = (line: string) =>
  styledLines.get(line) ?? styledLines.remember(line, styledCharsFromTokens(tokenize(line)));

/** What a cell holds before anything is written to it (Ink makes one per cell per frame). */
const BLANK: StyledChar = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: [] }) as StyledChar;

function sameStyles(a: Code[], b: Code[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].code !== b[i].code || a[i].endCode !== b[i].endCode) return false;
  return true;
}

/** @alcalzone/ansi-tokenize's styledCharsToString, without the diff between cells styled alike (it is empty). */
function rowText(chars: StyledChar[]): string {
  let ret = '';
  const last = chars.length - 1;
  for (let i = 0; i <= last; i++) {
    const char = chars[i];
    if (i === 0) {
      if (char.styles.length) ret += ansiCodesToString(char.styles);
    } else if (!sameStyles(chars[i - 1].styles, char.styles))
      ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));
    ret += char.value;
    if (i === last && char.styles.length) ret += ansiCodesToString(diffAnsiCodes(char.styles, []));
  }
  return ret;
}

/** Ink's Output.get (6.8), step for step, with the savings above. */
export function fastGet(this: Output): { output: string; height: number } {
  const { width, height } = this;
  const operations = (this as unknown as { operations: Operation[] }).operations;
  const output: StyledChar[][] = [];
  for (let y = 0; y < height; y++) output.push(new Array<StyledChar>(width).fill(BLANK));
  const clips: Clip[] = [];
  for (const operation of operations) {
    if (operation.type === 'clip') clips.push(operation.clip);
    if (operation.type === 'unclip') clips.pop();
    if (operation.type !== 'write') continue;
    const { text, transformers } = operation;
    let { x, y } = operation;
    let lines = text.split('\n');
    const clip = clips.at(-1);
    if (clip) {
      const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
      const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
      if (clipHorizontally) {
        const w = widestLine(text);
        if (x + w < clip.x1! || x > clip.x2!) continue;
      }
      if (clipVertically) {
        const h = lines.length;
        if (y + h < clip.y1! || y > clip.y2!) continue;
      }
      if (clipHorizontally) {
        lines = lines.map((line) => {
          const from = x < clip.x1! ? clip.x1! - x : 0;
          const w = widthOf(line);
          const to = x + w > clip.x2! ? clip.x2! - x : w;
          return sliceAnsi(line, from, to);
        });
        if (x < clip.x1!) x = clip.x1!;
      }
      if (clipVertically) {
        const from = y < clip.y1! ? clip.y1! - y : 0;
        const h = lines.length;
        const to = y + h > clip.y2! ? clip.y2! - y : h;
        lines = lines.slice(from, to);
        if (y < clip.y1!) y = clip.y1!;
      }
    }
    let offsetY = 0;
    for (let index = 0; index < lines.length; index++) {
      let line = lines[index];
      const currentLine = output[y + offsetY];
      if (!currentLine) continue;
      for (const transformer of transformers) line = transformer(line, index);
      let offsetX = x;
      for (const character of styledChars(line)) {
        currentLine[offsetX] = character;
        const characterWidth = Math.max(1, widthOf(character.value));
        for (let i = 1; i < characterWidth; i++)
          currentLine[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
        offsetX += characterWidth;
      }
      offsetY++;
    }
  }
  const rows: string[] = [];
  for (const line of output) rows.push(rowText(line.filter((item) => item !== undefined)).trimEnd());
  return { output: rows.join('\n'), height: output.length };
}

/** Ink draws every frame through fastGet from here on. */
export function installFastOutput(): void {
  Output.prototype.get = fastGet;
}
