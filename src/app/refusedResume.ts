// A refused resume (unknown session, bad --resume-session-at …) is an error result the host can
// match on, as well as a line on stderr: it ends the process before any session exists.
import { randomUUID } from '../util/ids.js';
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { envelope } from '../session/wire.js';

export async function writeRefusedResume(
  message: string,
  o: Pick<CliOptions, 'outputFormat' | 'sessionId' | 'resume'>,
  writer: StdoutWriter,
): Promise<void> {
  if (o.outputFormat === 'text') return;
  const result = {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    result: message,
    errors: [message],
    num_turns: 0,
    duration_ms: 0,
    duration_api_ms: 0,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    modelUsage: {},
    permission_denials: [],
    stop_reason: null,
    ...envelope(o.sessionId ?? o.resume ?? randomUUID()),
  };
  if (o.outputFormat === 'stream-json') await writer.send(result);
  else await writer.sendRaw(`${JSON.stringify(result)}\n`);
  await writer.flush();
}
