// The stream-json mode: a host writes JSON lines on stdin (prompts, control requests and answers)
// and reads protocol lines on stdout. The session runs until stdin ends and the queued work is done.
import { createSession } from '../app/createSession.js';
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { sessionMirror } from './sessionMirror.js';
import { consumeStreamJson } from './streamJsonInput.js';

export async function runStreamJson(o: CliOptions, writer: StdoutWriter): Promise<number> {
  const session = await createSession(o, {
    writer,
    output: (_ev, line) => (line ? writer.send(line) : Promise.resolve()),
    mirror: sessionMirror(o, writer),
    // The result line reports an error; the host would show a copy from stderr twice.
    reportError: () => {},
  });
  const { runner, channel } = session;
  if (o.prompt !== undefined) runner.submit(o.prompt);
  const running = runner.run();
  await consumeStreamJson(process.stdin, runner, channel, session.emit);
  channel.close('stdin is closed: the host can no longer answer');
  runner.endInput();
  await running;
  await session.close('other');
  await writer.flush();
  return runner.lastResultWasError ? 1 : 0;
}
