// The print mode (-p): one prompt (argument or stdin), one turn, then exit. The output is the
// answer's text, the result as one JSON object, or every protocol line (stream-json).
import { createSession } from '../app/createSession.js';
import { StartupError } from '../session/guards.js';
import type { CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { sessionMirror } from './sessionMirror.js';
import { isErrorResult, type SessionEvent, type TurnResult } from '../session/events.js';
import type { WireLine } from '../session/wire.js';

export async function runPrint(o: CliOptions, writer: StdoutWriter): Promise<number> {
  // When the prompt comes from argv, stdin is never read: nobody may be writing to it.
  const prompt = o.prompt ?? (process.stdin.isTTY ? '' : await readAll(process.stdin));
  if (prompt.trim() === '') throw new StartupError('no prompt: give it as an argument (agent -p "…") or on stdin', 2);
  let lastResult: { result: TurnResult; line: WireLine } | undefined;
  const output = async (ev: SessionEvent, line: WireLine | null) => {
    if (ev.type === 'result' && line) lastResult = { result: ev.result, line };
    if (o.outputFormat === 'stream-json' && line) await writer.send(line);
  };
  // With JSON output the result line reports an error; only plain text needs it on stderr.
  const session = await createSession(o, {
    writer,
    output,
    mirror: sessionMirror(o, writer),
    ...(o.outputFormat === 'text' ? {} : { reportError: () => {} }),
  });
  const { runner } = session;
  session.channel.close('no host to ask in text input mode');
  runner.submit(prompt);
  runner.endInput();
  await runner.run();
  await session.close('other');
  if (o.outputFormat === 'json' && lastResult) await writer.send(lastResult.line);
  // In text mode an error result was already told on stderr by the runner; stdout carries answers only.
  if (o.outputFormat === 'text' && lastResult && !isErrorResult(lastResult.result)) {
    const text = lastResult.result.outcome.resultText;
    await writer.sendRaw(text.endsWith('\n') ? text : `${text}\n`);
  }
  await writer.flush();
  return runner.lastResultWasError ? 1 : 0;
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}
