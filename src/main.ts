// One process: pick the mode (interactive terminal, stream-json, print) and run it. A session that
// cannot start exits with its startup error's code after one line on stderr.
import type { CliOptions } from './cli/options.js';
import { StdoutWriter } from './protocol/writer.js';
import { StartupError } from './session/guards.js';
import { runPrint } from './modes/print.js';
import { runStreamJson } from './modes/streamJson.js';
import { logWarning } from './util/log.js';
import { teammateIdentity } from './teams/teammateFlags.js';

/** `interactive`: a person at a terminal (src/modes/terminal.ts), not a host reading protocol lines. */
export async function main(o: CliOptions, mode: { interactive?: boolean } = {}): Promise<number> {
  const writer = new StdoutWriter();
  try {
    // A teammate process serves its inbox, whether or not it was given a terminal.
    const me = teammateIdentity(o);
    if (me) {
      writer.guard();
      return await (await import('./modes/teammate.js')).runTeammate(o, writer, me);
    }
    if (mode.interactive) return await (await import('./modes/terminal.js')).runTerminal(o, writer);
    // stdout carries protocol lines (or the answer) only: a library's stray console.log goes to stderr.
    writer.guard();
    return o.inputFormat === 'stream-json' ? await runStreamJson(o, writer) : await runPrint(o, writer);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    if (err.message) logWarning(`${err.message}`);
    return err.exitCode;
  }
}
