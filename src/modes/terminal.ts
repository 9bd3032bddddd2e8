// The interactive mode: a person at a terminal types prompts; what the session emits is drawn by
// the terminal UI (src/tui, an Ink app in its own bundle) and permission questions are dialogs
// there. The session, settings, permissions and hooks are the headless modes' own.
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { createSession } from '../app/createSession.js';
import type { Session } from '../app/sessionIO.js';
import { modelChoices } from '../loop/models.js';
import { contextWindow } from '../loop/pricing.js';
import { type CliOptions, VERSION } from '../cli/options.js';
import type { PermissionMode } from '../permissions/modes.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { gitBranch } from '../session/gitBranch.js';
import { listProjectSessions } from '../session/sessionList.js';
import { configDir } from '../util/configDir.js';
import { withMentionedFiles } from './fileMentions.js';
import { projectFiles } from './projectFiles.js';
import { promptHistory } from './promptHistory.js';
import { runShell, shellMessage } from './shellEscape.js';
import { colourLevel } from '../tui/colour.js';
import { kittyKeyboardTerminal } from '../tui/kittyKeys.js';
import { typingClock } from '../telemetry/typing.js';
import { requireCachedBundle } from '../util/cachedBundle.js';

type TuiModule = typeof import('../tui/main.js');

/** dist/tui.cjs: the UI bundle beside the CLI's (scripts/bundle.mjs builds both). */
function loadTui(): TuiModule {
  const file = process.env.AGENT_TUI_BUNDLE ?? join(__dirname, 'tui.cjs');
  return requireCachedBundle<TuiModule>(file);
}

export async function runTerminal(o: CliOptions, writer: StdoutWriter): Promise<number> {
  // Keys typed while the session starts are kept for the editor, not echoed and line-buffered by
  // the terminal (Node restores the terminal's mode at exit).
  process.stdin.setRawMode?.(true);
  // V8 optimises a function (TurboFan, on a thread of its own) once it has run a while; the UI's
  // drawing code got there within a short session, whose CPU went an eighth to that. Four times
  // the run first: a short session is drawn unoptimised, a long one is still optimised (CPU of
  // one prompt, an answer and /exit: 426 -> 369 ms, medians of 14 alternating runs).
  setFlagsFromString('--interrupt-budget=270336');
  // The UI first: the editor is drawn before the session starts, which then loads behind it.
  const ui = loadTui();
  await ui.ready;
  // --resume without an id: this project's sessions to pick from, before the session starts.
  if (o.resumePicker) {
    const sessions = await listProjectSessions(process.env, process.cwd());
    const picked = sessions.length ? await ui.pickSession(sessions, colourLevel(process.env)) : undefined;
    if (!sessions.length) process.stdout.write('No earlier session in this project: starting a new one.\n');
    o = { ...o, resumePicker: false, ...(picked ? { resume: picked } : {}) };
  }
  // The editor is drawn before the session starts: what is typed meanwhile waits in `early` and
  // goes to the session once it is up.
  let session: Session | undefined;
  const early: Array<(s: Session) => void> = [];
  const withSession = (f: (s: Session) => void) => (session ? f(session) : early.push(f));
  let wantedMode: PermissionMode | undefined;
  const cwd = process.cwd();
  // The status line's branch follows a checkout made during the session (read again at most every 2 s).
  let branch = gitBranch(cwd);
  let branchReadMs = Date.now();
  const branchPart = (): { branch?: string } => {
    if (Date.now() - branchReadMs > 2000) {
      branch = gitBranch(cwd);
      branchReadMs = Date.now();
    }
    return branch ? { branch } : {};
  };
  let shellAbort: AbortController | undefined;
  let resumeNext: string | undefined;
  const modes: PermissionMode[] = ['default', 'acceptEdits', 'plan'];
  const resuming = o.resume !== undefined || o.continue;
  // Typing time for telemetry; what is typed before the session is up is told once it is.
  const typing = typingClock();
  let typedSeconds = 0;
  const tellTyping = () => {
    if (!session || typedSeconds <= 0) return;
    session.userActiveTime(typedSeconds);
    typedSeconds = 0;
  };
  const tui = ui.createTui({
    banner: `agent ${VERSION} · ${cwd} · /exit or Ctrl+D to quit, Esc to interrupt`,
    resuming,
    colour: colourLevel(process.env),
    kittyKeyboard: kittyKeyboardTerminal(process.env),
    submit: (text) => {
      typing.pause();
      withSession((s) =>
        s.runner.submit(withMentionedFiles(text, cwd, (file, seen) => s.runner.readFiles.set(file, seen))),
      );
    },
    interrupt: () => {
      // A `!command` still running is the thing to stop.
      if (shellAbort && !shellAbort.signal.aborted) {
        shellAbort.abort();
        return true;
      }
      return session?.runner.interrupt() ?? false;
    },
    status: () =>
      session
        ? {
            model: session.settings.model,
            mode: session.permissionMode() as PermissionMode,
            contextWindow: contextWindow(session.settings.model),
            ...branchPart(),
          }
        : {
            model: o.model ?? 'starting…',
            mode: wantedMode ?? o.permissionMode ?? 'default',
            contextWindow: contextWindow(o.model ?? ''),
            ...branchPart(),
          },
    modes,
    setMode: (mode) => {
      if (session) session.setPermissionMode(mode);
      else wantedMode = mode;
    },
    history: promptHistory(join(configDir(process.env), 'history.jsonl'), cwd),
    commands: () => session?.commands() ?? [],
    sessions: () => listProjectSessions(process.env, cwd),
    resumeSession: (id) => {
      resumeNext = id;
    },
    models: () =>
      session
        ? modelChoices(session.defaultModel).map((m) => ({
            // "Default" runs `/model default`: back to the session's default, as set_model "default".
            value: m.value,
            label: `${m.displayName} (${m.resolvedModel})`,
            detail: m.description,
          }))
        : [],
    files: () => projectFiles(cwd),
    editedFiles: (name, input) => session?.editedFiles(name, input),
    shell: async (command) => {
      typing.pause();
      shellAbort = new AbortController();
      const r = await runShell(command, cwd, shellAbort.signal);
      shellAbort = undefined;
      withSession((s) => s.runner.submit(shellMessage(command, r)));
      return r;
    },
    keyTyped: () => {
      typedSeconds += typing.key(Date.now());
      tellTyping();
    },
  });
  const shown = tui.run();
  const starting = createSession(o, {
    writer,
    output: (ev) => tui.show(ev),
    interactive: true,
    // --permission-prompts none: nobody is asked, not even the person at the terminal.
    ...(o.permissionPrompts !== 'none'
      ? { askHost: (req, signal) => tui.ask(req, signal), elicit: (payload, signal) => tui.elicit(payload, signal) }
      : {}),
    // The terminal already draws an error result.
    reportError: () => {},
  });
  try {
    session = await starting;
  } catch (err) {
    tui.close();
    await shown;
    throw err;
  }
  const { runner } = session;
  session.channel.close('no host in the interactive terminal mode');
  if (session.bypassAllowed) modes.push('bypassPermissions');
  if (wantedMode) session.setPermissionMode(wantedMode);
  // A resumed session (--resume, --continue, /resume): its conversation so far, before what is typed.
  if (resuming) tui.replay(runner.history, session.resumedToolResults);
  for (const f of early.splice(0)) f(session);
  tellTyping();
  tui.refresh();
  const running = runner.run();
  await shown;
  runner.endInput();
  runner.interrupt(); // a run still going, background tasks
  await running;
  await session.close('prompt_input_exit');
  await writer.flush();
  // /resume picked another session: this one has ended; that one starts in its place.
  if (resumeNext)
    return runTerminal(
      { ...o, resume: resumeNext, resumePicker: false, continue: false, forkSession: false, sessionId: undefined },
      writer,
    );
  return 0;
}
