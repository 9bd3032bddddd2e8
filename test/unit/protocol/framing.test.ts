// NDJSON framing and the one stdout writer, as units.
import { PassThrough } from 'node:stream';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { LineTooLongError, MAX_LINE_BYTES, readLines } from '../../../src/protocol/lineReader.js';
import type { Outbound, ResultMessage } from '../../../src/protocol/outbound.js';
import { StdoutWriter } from '../../../src/protocol/writer.js';

async function collect(chunks: Array<Buffer | string>, opts?: { maxLineBytes?: number }) {
  async function* source() {
    for (const c of chunks) yield c;
  }
  const out: Array<{ lineNo: number; text: string } | string> = [];
  for await (const item of readLines(source(), opts))
    out.push(item instanceof LineTooLongError ? `TOO LONG: ${item.message}` : item);
  return out;
}

describe('readLines', () => {
  it('splits on \\n only, keeps U+2028/U+2029 inside a line, strips \\r, skips blank lines but counts them', async () => {
    const out = await collect(['{"a":"x\u2028y\u2029z"}\r\n', '\n   \n', '{"b":1}\n{"c"', ':2}']);
    expect(out).toEqual([
      { lineNo: 1, text: '{"a":"x\u2028y\u2029z"}' },
      { lineNo: 4, text: '{"b":1}' },
      { lineNo: 5, text: '{"c":2}' },
    ]);
  });

  it('decodes UTF-8 as a stream: a character split across chunks survives', async () => {
    const bytes = Buffer.from('{"t":"naïve 🙂"}\n', 'utf8');
    const chunks = [...bytes].map((b) => Buffer.from([b])); // one byte per chunk
    expect(await collect(chunks)).toEqual([{ lineNo: 1, text: '{"t":"naïve 🙂"}' }]);
  });

  it('drops an over-long line with one error naming its line number, and goes on with the next line', async () => {
    const max = 1000;
    const big = 'x'.repeat(max + 10);
    const out = await collect(
      ['{"first":1}\n', big.slice(0, max / 2), big.slice(max / 2), 'tail of the long line\n{"after":2}\n'],
      { maxLineBytes: max },
    );
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({ lineNo: 1, text: '{"first":1}' });
    expect(out[1]).toMatch(/^TOO LONG: line 2 is longer than 1000 bytes/);
    expect(out[2]).toEqual({ lineNo: 3, text: '{"after":2}' });
  });

  it('caps a line at 100 MB by default', () => {
    expect(MAX_LINE_BYTES).toBe(100 * 1024 * 1024);
  });

  it('reads a long line in time linear in its length: 20 MB in 64 KiB chunks well under a second', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const count = (20 * 1024 * 1024) / chunk.length;
    async function* source() {
      yield Buffer.from('{"pad":"');
      for (let i = 0; i < count; i++) yield chunk;
      yield Buffer.from('"}\n{"next":1}\n');
    }
    const started = Date.now();
    const lines: number[] = [];
    for await (const item of readLines(source())) if (!(item instanceof LineTooLongError)) lines.push(item.text.length);
    const took = Date.now() - started;
    expect(lines).toEqual([20 * 1024 * 1024 + 10, 10]);
    // The old reader searched the whole pending buffer on every chunk: ~4 s here on a quiet machine.
    expect(took).toBeLessThan(1500);
  });
});

describe('StdoutWriter', () => {
  it('writes one line per message, and the guard sends every other stdout write to stderr', async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (c: Buffer) => (written += c.toString()));
    const writer = new StdoutWriter(stream);
    const stderrWrite = process.stderr.write;
    let diverted = '';
    process.stderr.write = ((chunk: string) => ((diverted += chunk), true)) as typeof process.stderr.write;
    try {
      writer.guard();
      stream.write('a library printing to stdout\n');
    } finally {
      process.stderr.write = stderrWrite;
    }
    await writer.send({ type: 'prompt_suggestion', suggestion: 'one', uuid: 'u1', session_id: 's' });
    await writer.send({ type: 'prompt_suggestion', suggestion: 'two', uuid: 'u2', session_id: 's' });
    await writer.flush();
    expect(written).toBe(
      '{"type":"prompt_suggestion","suggestion":"one","uuid":"u1","session_id":"s"}\n' +
        '{"type":"prompt_suggestion","suggestion":"two","uuid":"u2","session_id":"s"}\n',
    );
    expect(diverted).toBe('a library printing to stdout\n');
  });

  it('treats EPIPE as the host going away: listeners hear it once, later writes are dropped', async () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const writer = new StdoutWriter(stream);
    let gone = 0;
    writer.onHostGone(() => gone++);
    (stream as unknown as PassThrough).emit('error', Object.assign(new Error('broken pipe'), { code: 'EPIPE' }));
    (stream as unknown as PassThrough).emit('error', Object.assign(new Error('broken pipe'), { code: 'EPIPE' }));
    expect(gone).toBe(1);
    expect(writer.hostGone).toBe(true);
    // Resolves at once, writes nothing.
    await writer.send({ type: 'prompt_suggestion', suggestion: 'dropped', uuid: 'u', session_id: 's' });
  });

  it("takes the outbound schemas' lines only: a line they do not have does not compile", async () => {
    expectTypeOf<Parameters<StdoutWriter['send']>[0]>().toEqualTypeOf<Outbound>();
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    const writer = new StdoutWriter(stream);
    (stream as unknown as PassThrough).emit('error', Object.assign(new Error('broken pipe'), { code: 'EPIPE' }));
    // The host is gone: nothing below is written; each line's error is what `npm run typecheck` expects.
    // @ts-expect-error no outbound line has type `system` with a field `n`
    await writer.send({ type: 'system', n: 1 });
    const result: ResultMessage = {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: 'refused',
      num_turns: 0,
      duration_ms: 0,
      duration_api_ms: 0,
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      modelUsage: {},
      permission_denials: [],
      stop_reason: null,
      session_id: 's',
      uuid: 'u',
    };
    await writer.send(result);
    // @ts-expect-error a result's turns are `num_turns`
    await writer.send({ ...result, numTurns: 0 });
    // @ts-expect-error no such result subtype
    await writer.send({ ...result, subtype: 'refused' });
    expect(writer.hostGone).toBe(true);
  });
});
