// NDJSON framing for stdin: split on "\n" only (U+2028/U+2029 are legal inside JSON strings, so
// readline's splitting is wrong here), decode UTF-8 as a stream so a character cut across chunks
// survives, strip a trailing "\r", skip blank lines. Lines are capped so a runaway line cannot
// exhaust memory.
import { StringDecoder } from 'node:string_decoder';

export interface Line {
  /** 1-based line number in the stream (blank lines count). */
  lineNo: number;
  text: string;
}

export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export class LineTooLongError extends Error {}

export async function* readLines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<Line | LineTooLongError> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let lineNo = 0;
  let skipping = false; // inside an over-long line: drop until its newline
  const emit = function* (raw: string): Generator<Line> {
    lineNo++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    yield { lineNo, text };
  };
  for await (const chunk of stream) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let nl: number;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const raw = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (skipping) {
        skipping = false;
        lineNo++;
        continue;
      }
      yield* emit(raw);
    }
    if (pending.length > MAX_LINE_CHARS) {
      if (!skipping) yield new LineTooLongError(`line ${lineNo + 1} is longer than ${MAX_LINE_CHARS} characters; it was dropped`);
      skipping = true;
      pending = '';
    }
  }
  pending += decoder.end();
  if (pending !== '' && !skipping) yield* emit(pending);
}
