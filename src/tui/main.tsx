// The terminal UI's entry: its own bundle (dist/tui.mjs), imported only by the interactive mode,
// so headless starts never load Ink or React.
import { render } from 'ink';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import type { SessionEvent } from '../session/events.js';
import { App } from './App.js';
import { Picker, type PickerItem } from './components/Picker.js';
import { ago, oneLine } from './format.js';
import type { TuiDeps } from './deps.js';
import { TuiStore } from './store.js';
import { makeTheme, ThemeContext } from './theme.js';

export interface Tui {
  show(ev: SessionEvent): Promise<void>;
  ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer>;
  /** An MCP elicitation form; resolves with its answer ({action, content}). */
  elicit(payload: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Draws the UI; resolves when the person leaves (/exit, Ctrl+D, Ctrl+C twice). */
  run(): Promise<void>;
}

/** The --resume picker, before the session starts: the chosen session id, or undefined (Esc). */
export function pickSession(
  sessions: Array<{ sessionId: string; title?: string; firstPrompt: string; modifiedMs: number }>,
  color: boolean,
  io: { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream } = {},
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let chosen: string | undefined;
    const items: PickerItem[] = sessions.map((s) => ({
      value: s.sessionId,
      label: oneLine(s.title ?? s.firstPrompt, 70),
      note: ago(s.modifiedMs),
      detail: s.title ? oneLine(s.firstPrompt, 200) : s.sessionId,
    }));
    const instance = render(
      <ThemeContext.Provider value={makeTheme(color)}>
        <Picker
          title={`Resume a session of this project (${sessions.length})`}
          items={items}
          onPick={(v) => {
            chosen = v;
            instance.unmount();
          }}
        />
      </ThemeContext.Provider>,
      { stdin: io.stdin ?? process.stdin, stdout: io.stdout ?? process.stdout, exitOnCtrlC: true, patchConsole: false },
    );
    void instance.waitUntilExit().then(() => resolve(chosen));
  });
}

export function createTui(deps: TuiDeps, io: { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream } = {}): Tui {
  const store = new TuiStore({ highlight: deps.color });
  store.push({ kind: 'banner', text: deps.banner });
  return {
    show: (ev) => {
      store.show(ev);
      return Promise.resolve();
    },
    ask: (req, signal) => store.ask(req, signal),
    elicit: (payload, signal) => store.elicit(payload, signal),
    run: () =>
      new Promise<void>((resolve) => {
        let left = false;
        const leave = () => {
          if (left) return;
          left = true;
          store.closeDialogs();
          instance.unmount();
        };
        const instance = render(
          <ThemeContext.Provider value={makeTheme(deps.color)}>
            <App store={store} deps={deps} onExit={leave} />
          </ThemeContext.Provider>,
          {
            stdin: io.stdin ?? process.stdin,
            stdout: io.stdout ?? process.stdout,
            exitOnCtrlC: false,
            patchConsole: false,
            maxFps: 30,
          },
        );
        void instance.waitUntilExit().then(() => resolve());
      }),
  };
}
