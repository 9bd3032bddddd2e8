// A refused resume's result line, made by the turn results' own builder (wire.ts resultLine): it
// parses with the strict outbound result schema and says what was refused, in each output format.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeRefusedResume } from '../../../src/app/refusedResume.js';
import { resultSchema } from '../../../src/protocol/outbound.js';
import { StdoutWriter } from '../../../src/protocol/writer.js';

async function refusedLines(
  outputFormat: 'text' | 'json' | 'stream-json',
  ids: { sessionId?: string; resume?: string },
) {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (c: Buffer) => (written += c.toString()));
  const writer = new StdoutWriter(stream as unknown as NodeJS.WriteStream);
  await writeRefusedResume(
    'Resume rejected by --resume-drops-turn: it would drop 2 turns',
    { outputFormat, ...ids },
    writer,
  );
  return written.split('\n').filter(Boolean);
}

describe('a refused resume', () => {
  it.each(['json', 'stream-json'] as const)('is one strict result line in %s output', async (format) => {
    const lines = await refusedLines(format, { resume: '0f0e0d0c-0b0a-4909-8807-060504030201' });
    expect(lines).toHaveLength(1);
    const line = resultSchema.parse(JSON.parse(lines[0]));
    const reason = 'Resume rejected by --resume-drops-turn: it would drop 2 turns';
    expect(line).toEqual({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: reason,
      errors: [reason],
      num_turns: 0,
      duration_ms: 0,
      duration_api_ms: 0,
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      modelUsage: {},
      permission_denials: [],
      stop_reason: null,
      session_id: '0f0e0d0c-0b0a-4909-8807-060504030201',
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('names --session-id before --resume, and writes nothing in text output', async () => {
    const [line] = await refusedLines('stream-json', { sessionId: 'chosen', resume: 'resumed' });
    expect(JSON.parse(line).session_id).toBe('chosen');
    expect(await refusedLines('text', { resume: 'resumed' })).toEqual([]);
  });
});
