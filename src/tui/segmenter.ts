// Ink and the libraries it draws through (ansi-tokenize, string-width, slice-ansi) each make an
// Intl.Segmenter when they load, to split text into graphemes; the first one made loads ICU's
// break-iterator data, 40-250 ms on this machine, before the first frame. The UI bundle gives them
// this class instead (scripts/bundle.mjs): for text in which each UTF-16 unit is a grapheme of its
// own (the characters this UI draws, colour codes included) it splits the text itself, and it makes
// the real segmenter only for other text (test/unit/tui/segmenter.test.ts checks the two agree).

/** Each unit its own grapheme: no CR (CR LF is one), no combining marks, joiners, surrogates or Hangul. */
export const SIMPLE =
  /^[\x00-\x0c\x0e-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2200-\u22ff\u2387\u23bf\u23f5\u2500-\u25fc\u2610\u2612\u2713\u2717\u273b\u276f\u2800-\u28ff]*$/;

/** The engine's own (read around the bundle's define, which renames `Intl.Segmenter` to UiSegmenter). */
const RealSegmenter = Reflect.get(Reflect.get(globalThis, 'Intl'), 'Segmenter') as typeof Intl.Segmenter;

type Segment = { segment: string; index: number; input: string };

class SimpleSegments implements Iterable<Segment> {
  constructor(private readonly input: string) {}

  containing(index = 0): Segment | undefined {
    const i = Math.trunc(Number(index) || 0);
    if (i < 0 || i >= this.input.length) return undefined;
    return { segment: this.input[i], index: i, input: this.input };
  }

  *[Symbol.iterator](): Iterator<Segment> {
    for (let i = 0; i < this.input.length; i++) yield { segment: this.input[i], index: i, input: this.input };
  }
}

export class UiSegmenter {
  private real: Intl.Segmenter | undefined;
  private readonly graphemes: boolean;

  constructor(
    private readonly locales?: string | string[],
    private readonly options?: Intl.SegmenterOptions,
  ) {
    this.graphemes = (options?.granularity ?? 'grapheme') === 'grapheme';
  }

  segment(input: string): Intl.Segments | SimpleSegments {
    const text = String(input);
    if (this.graphemes && SIMPLE.test(text)) return new SimpleSegments(text);
    this.real ??= new RealSegmenter(this.locales, this.options);
    return this.real.segment(text);
  }

  resolvedOptions(): Intl.ResolvedSegmenterOptions {
    this.real ??= new RealSegmenter(this.locales, this.options);
    return this.real.resolvedOptions();
  }
}
