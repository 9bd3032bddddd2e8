// The print mode (-p): one prompt (argument or stdin), one turn, then exit. The output is the
// answer's text, the result as one JSON object, or every protocol line (stream-json).
import { createSession } from '../app/createSession.js';
import { StartupError } from '../session/guards.js';
import type { CliOptions } from '../options.js';
import type { StdoutWriter } from '../protocol/writer.js';

export async function runPrint(o: CliOptions, writer: StdoutWriter): Promise<number> {
  // When the prompt comes from argv, stdin is never read: nobody may be writing to it.
  const prompt = o.prompt ?? (process.stdin.isTTY ? '' : await readAll(process.stdin));
  if (prompt.trim() === '') throw new StartupError('no prompt: give it as an argument (agent -p "…") or on stdin', 2);
  let lastResult: Record<string, unknown> | undefined;
  const output =
    o.outputFormat === 'stream-json'
      ? (m: object) => writer.send(m)
      : async (m: object) => {
          if ((m as { type?: string }).type === 'result') lastResult = m as Record<string, unknown>;
        };
  const session = await createSession(o, { writer, output });
  const { runner } = session;
  session.channel.close('no host to ask in text input mode');
  runner.submit(prompt);
  runner.endInput();
  await runner.run();
  await session.close('other');
  if (o.outputFormat === 'json' && lastResult) await writer.sendRaw(JSON.stringify(lastResult) + '\n');
  if (o.outputFormat === 'text' && lastResult) {
    // An error result was already told on stderr by the runner; stdout carries answers only.
    const text = String(lastResult.result ?? '');
    if (!lastResult.is_error) await writer.sendRaw(text.endsWith('\n') ? text : text + '\n');
  }
  await writer.flush();
  return runner.lastResultWasError ? 1 : 0;
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}
