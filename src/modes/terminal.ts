// The interactive mode: a person at a terminal types prompts; what the session emits is drawn for
// them (terminalUi.ts) and permission questions are asked there. No host, no protocol.
import { createSession } from '../app/createSession.js';
import { VERSION, type CliOptions } from '../options.js';
import type { StdoutWriter } from '../protocol/writer.js';

export async function runTerminal(o: CliOptions, writer: StdoutWriter): Promise<number> {
  // Loaded only for a person at a terminal: headless starts do not pay for readline.
  const { Terminal } = await import('./terminalUi.js');
  const term = new Terminal({ color: !process.env.NO_COLOR });
  const session = await createSession(o, {
    writer,
    output: (ev) => term.show(ev),
    interactive: true,
    // --permission-prompts none: nobody is asked, not even the person at the terminal.
    ...(o.permissionPrompts !== 'none' ? { askHost: (req, signal) => term.ask(req, signal) } : {}),
    // The terminal already draws an error result.
    reportError: () => {},
  });
  const { runner } = session;
  session.channel.close('no host in the interactive terminal mode');
  const running = runner.run();
  const banner = `agent ${VERSION} · ${session.settings.model} · ${process.cwd()} · permissions: ${session.permissionMode()} · /exit to quit, Ctrl+C to interrupt`;
  await term.run(runner, banner);
  runner.endInput();
  runner.interrupt(); // a run still going, background tasks
  await running;
  await session.close('prompt_input_exit');
  await writer.flush();
  return 0;
}
