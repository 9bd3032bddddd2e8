// NDJSON framing for stdin: split on "\n" only (U+2028/U+2029 are legal inside JSON strings, so
// readline's splitting is wrong here), strip a trailing "\r", skip blank lines.
//
// Lines are framed as bytes and decoded whole: byte 0x0A never occurs inside a multi-byte UTF-8
// character, so a character cut across chunks survives. Only each new chunk is searched for "\n"
// and a line's chunks are joined once, at its end, so a 50 MB line costs one pass, not one pass
// per chunk. Lines are capped so a runaway line cannot exhaust memory; the reader goes on after it.

export interface Line {
  /** 1-based line number in the stream (blank lines count). */
  lineNo: number;
  text: string;
}

/** The longest line we accept, in bytes. */
export const MAX_LINE_BYTES = 100 * 1024 * 1024;

export class LineTooLongError extends Error {
  constructor(
    readonly lineNo: number,
    maxBytes: number,
  ) {
    super(`line ${lineNo} is longer than ${maxBytes} bytes (the cap); it was dropped`);
  }
}

const NEWLINE = 0x0a;

export async function* readLines(
  stream: AsyncIterable<Buffer | string>,
  opts: { maxLineBytes?: number } = {},
): AsyncGenerator<Line | LineTooLongError> {
  const max = opts.maxLineBytes ?? MAX_LINE_BYTES;
  let parts: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 0;
  let skipping = false; // inside an over-long line: drop until its newline

  const finishLine = (tail: Buffer): Line | LineTooLongError | null => {
    lineNo++;
    if (skipping) {
      skipping = false;
      return null;
    }
    if (pendingBytes + tail.length > max) return new LineTooLongError(lineNo, max);
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail], pendingBytes + tail.length);
    parts = [];
    pendingBytes = 0;
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    return text.trim() === '' ? null : { lineNo, text };
  };

  for await (const raw of stream) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf(NEWLINE, start)) !== -1) {
      const item = finishLine(chunk.subarray(start, nl));
      parts = [];
      pendingBytes = 0;
      if (item) yield item;
      start = nl + 1;
    }
    if (start < chunk.length && !skipping) {
      const rest = chunk.subarray(start);
      if (pendingBytes + rest.length > max) {
        yield new LineTooLongError(lineNo + 1, max);
        skipping = true;
        parts = [];
        pendingBytes = 0;
      } else {
        parts.push(rest);
        pendingBytes += rest.length;
      }
    }
  }
  if (pendingBytes > 0 && !skipping) {
    const item = finishLine(Buffer.alloc(0));
    if (item) yield item;
  }
}
