// The terminal UI's entry: its own bundle (dist/tui.mjs), imported only by the interactive mode,
// so headless starts never load Ink or React.
import chalk from 'chalk';
import { render } from 'ink';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import type { SessionEvent } from '../session/events.js';
import type { HistoryMessage } from '../loop/events.js';
import { App } from './App.js';
import { installFastOutput } from './inkOutput.js';
import { KeyRoot } from './keys.js';
import { loadLexer } from './markdown/lexer.js';
import { replayItems } from './replay.js';
import { DISABLE as BRACKETED_PASTE_OFF, ENABLE as BRACKETED_PASTE_ON, pasteAwareStdin } from './bracketedPaste.js';
import { Picker, sessionItems } from './components/Picker.js';
import type { TuiDeps } from './deps.js';
import type { ColourLevel } from './colour.js';
import { TuiStore } from './store.js';
import { makeTheme, ThemeContext } from './theme.js';

// Ink's frames are turned into text by src/tui/inkOutput.ts's get (the same text, cheaper).
installFastOutput();

/** Resolves once Ink's layout engine (yoga's WebAssembly) is loaded: draw nothing before. */
export { yogaReady as ready } from './yoga.js';

export interface Tui {
  show(ev: SessionEvent): Promise<void>;
  ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer>;
  /** An MCP elicitation form; resolves with its answer ({action, content}). */
  elicit(payload: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Draws the UI; resolves when the person leaves (/exit, Ctrl+D, Ctrl+C twice). */
  run(): Promise<void>;
  /**
   * A resumed session's conversation, drawn as it ran (below the banner, above what was typed while
   * the session started); toolResults: the tools' structured results by tool_use id (diffs).
   */
  replay(history: readonly HistoryMessage[], toolResults?: ReadonlyMap<string, unknown>): void;
  /** Draw again: what deps.status() reports has changed (the session has started). */
  refresh(): void;
  /** Take the UI down (the session could not start): run() resolves. */
  close(): void;
}

/** The --resume picker, before the session starts: the chosen session id, or undefined (Esc). */
export function pickSession(
  sessions: Array<{ sessionId: string; title?: string; firstPrompt: string; modifiedMs: number }>,
  colour: ColourLevel,
  io: { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream } = {},
): Promise<string | undefined> {
  setColourLevel(colour);
  return new Promise((resolve) => {
    let chosen: string | undefined;
    const items = sessionItems(sessions);
    const instance = render(
      <ThemeContext.Provider value={makeTheme(colour > 0)}>
        <KeyRoot>
          <Picker
            title={`Resume a session of this project (${sessions.length})`}
            items={items}
            onPick={(v) => {
              chosen = v;
              instance.unmount();
            }}
          />
        </KeyRoot>
      </ThemeContext.Provider>,
      { stdin: io.stdin ?? process.stdin, stdout: io.stdout ?? process.stdout, exitOnCtrlC: true, patchConsole: false },
    );
    void instance.waitUntilExit().then(() => resolve(chosen));
  });
}

/** Ink draws colours through chalk: it gets our level, not its own guess from the environment. */
function setColourLevel(level: ColourLevel): void {
  chalk.level = level;
}

export function createTui(deps: TuiDeps, io: { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream } = {}): Tui {
  setColourLevel(deps.colour);
  const store = new TuiStore({ highlight: deps.colour > 0, editedFiles: deps.editedFiles });
  store.push({ kind: 'banner', text: deps.banner });
  if (deps.resuming) store.awaitReplay();
  let close = () => {};
  return {
    refresh: () => store.refresh(),
    replay: (history, toolResults) => {
      const items = replayItems(history, toolResults, deps.editedFiles);
      store.replay(
        items.length
          ? [...items, { kind: 'note', text: '(resumed: the conversation goes on below)', tone: 'dim' }]
          : [],
      );
    },
    close: () => close(),
    show: (ev) => {
      store.show(ev);
      return Promise.resolve();
    },
    ask: (req, signal) => store.ask(req, signal),
    elicit: (payload, signal) => store.elicit(payload, signal),
    run: () =>
      new Promise<void>((resolve) => {
        let left = false;
        const stdout = io.stdout ?? process.stdout;
        // Pastes come bracketed (src/tui/bracketedPaste.ts), until the UI leaves or the process ends.
        const unbracket = () => stdout.write(BRACKETED_PASTE_OFF);
        stdout.write(BRACKETED_PASTE_ON);
        process.once('exit', unbracket);
        const leave = () => {
          if (left) return;
          left = true;
          store.closeDialogs();
          instance.unmount();
          process.removeListener('exit', unbracket);
          unbracket();
        };
        close = leave;
        const instance = render(
          <ThemeContext.Provider value={makeTheme(deps.colour > 0)}>
            <KeyRoot onKey={deps.keyTyped}>
              <App store={store} deps={deps} onExit={leave} />
            </KeyRoot>
          </ThemeContext.Provider>,
          {
            stdin: pasteAwareStdin(io.stdin ?? process.stdin),
            stdout,
            exitOnCtrlC: false,
            patchConsole: false,
            maxFps: 30,
            // Shift+Enter apart from Enter (src/tui/kittyKeys.ts); other terminals send it as Enter
            // unless set up to send CSI 13;2u or Alt+Enter.
            kittyKeyboard: { mode: deps.kittyKeyboard ? 'enabled' : 'disabled' },
          },
        );
        void instance.waitUntilExit().then(() => resolve());
        // The first frame is out: now the Markdown lexer, for the answers to come.
        void loadLexer().then(() => store.refresh());
      }),
  };
}
