// Where a lead's teammates run (the reference's `teammateMode` setting and `--teammate-mode` flag):
// `in-process` (the default) runs them in this process; `tmux` starts each as its own `agent`
// process in a new pane of the tmux session the lead runs in; `auto` is tmux inside tmux ($TMUX is
// set) and in-process outside it. `detached` (ours) starts each as its own `agent` process with no
// terminal, inside tmux or not. tmux asked for outside tmux is an error, never a quiet fallback.
export type TeammateBackend = 'in-process' | 'tmux' | 'detached';

/** `from` names where the mode came from in an error (the flag, or the setting). */
export function teammateBackend(
  mode: string | undefined,
  env: NodeJS.ProcessEnv,
  from = '--teammate-mode',
): TeammateBackend {
  if (mode === undefined || mode === 'in-process') return 'in-process';
  if (mode === 'detached') return 'detached';
  const inTmux = Boolean(env.TMUX);
  if (mode === 'auto') return inTmux ? 'tmux' : 'in-process';
  if (mode === 'tmux') {
    if (!inTmux)
      throw new Error(
        `${from} tmux: this agent is not running inside tmux ($TMUX is not set), so it has no session to open teammate panes in; start it inside tmux, or use detached (a process per teammate without a terminal) or in-process`,
      );
    return 'tmux';
  }
  if (mode === 'iterm2')
    throw new Error(
      `${from} iterm2: iTerm2 split panes are not built in this agent; use tmux, detached, auto or in-process`,
    );
  throw new Error(`${from} ${mode}: not a teammate mode (auto, tmux, in-process or detached)`);
}
