// A large paste is kept out of the editor: a placeholder line stands for it and the whole text is
// put back when the prompt is sent.

/** A paste this long (characters or lines) is collapsed. */
const MIN_CHARS = 800;
const MIN_LINES = 10;

export function isLargePaste(input: string): boolean {
  return input.length >= MIN_CHARS || input.split(/\r\n?|\n/).length >= MIN_LINES;
}

/** Line ends as the editor keeps them (a terminal in raw mode sends \r). */
export function normalise(input: string): string {
  return input.replace(/\r\n?/g, '\n');
}

export function placeholder(n: number, text: string): string {
  const lines = text.replace(/\n$/, '').split('\n').length;
  return `[Pasted text #${n} +${lines} line${lines === 1 ? '' : 's'}]`;
}

const PLACEHOLDER = /\[Pasted text #(\d+) \+\d+ lines?\]/g;

/** The prompt with each placeholder replaced by the text it stands for. */
export function expandPastes(text: string, pastes: ReadonlyMap<number, string>): string {
  return text.replace(PLACEHOLDER, (m, n) => pastes.get(Number(n)) ?? m);
}

/** The placeholder that ends right at `cursor`, if any (Backspace removes it whole). */
export function placeholderBefore(text: string, cursor: number): { start: number; n: number } | undefined {
  const m = /\[Pasted text #(\d+) \+\d+ lines?\]$/.exec(text.slice(0, cursor));
  return m ? { start: m.index, n: Number(m[1]) } : undefined;
}
