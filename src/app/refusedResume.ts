// A refused resume (unknown session, bad --resume-session-at …) is an error result the host can
// match on, as well as a line on stderr: it ends the process before any session exists. Its line
// is made as every turn's result is (wire.ts resultLine), from an outcome that never ran a turn.
import { randomUUID } from '../util/ids.js';
import type { CliOptions } from '../cli/options.js';
import { makeOutcome } from '../loop/events.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { resultLine } from '../session/wire.js';

export async function writeRefusedResume(
  message: string,
  o: Pick<CliOptions, 'outputFormat' | 'sessionId' | 'resume'>,
  writer: StdoutWriter,
): Promise<void> {
  if (o.outputFormat === 'text') return;
  const result = resultLine(
    {
      outcome: makeOutcome('error_during_execution', message),
      durationMs: 0,
      costUsd: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      modelUsage: {},
      permissionDenials: [],
    },
    o.sessionId ?? o.resume ?? randomUUID(),
  );
  // The same line for json and stream-json output: one result object.
  await writer.send(result);
  await writer.flush();
}
