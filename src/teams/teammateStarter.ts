// How a lead's process teammate is started and what is removed once it is gone. Every process
// teammate is the same `agent` command (src/teams/teammateLaunch.ts); the starters differ only in
// where that command runs: a new tmux pane (teammate mode tmux) or a detached process of its own
// (teammate mode detached, src/teams/detachedTeammates.ts).
import type { PaneHost } from './tmuxPanes.js';

/** A started teammate: its process, and its pane when it has one. */
export interface StartedTeammate {
  pid: number;
  /** tmux's pane id (`%12`), the team file's `tmuxPaneId`. */
  paneId?: string;
  /** Where its stdout and stderr go when no pane shows them. */
  logFile?: string;
}

export interface TeammateStarter {
  /** The team file's `backendType` for its members (`tmux` is the reference's; `detached` ours). */
  readonly backendType: 'tmux' | 'detached';
  /** Whether the process writes to a log file (else its pane shows what it says). */
  readonly logs: boolean;
  /** Runs `argv` directly (no shell between) with `env` besides what the starter gives it. */
  start(
    argv: string[],
    opts: { cwd: string; env: Record<string, string>; title: string; logFile: string },
  ): StartedTeammate;
  /** Removes what is left once the process has ended or must end: its pane, or its process group. */
  end(t: StartedTeammate): void;
  /** Where it runs, for the model and the task's summary ("process in tmux pane %3", …). */
  where(t: StartedTeammate): string;
}

/** Teammate mode tmux: a pane each, in the lead's tmux session. */
export function paneStarter(panes: PaneHost): TeammateStarter {
  return {
    backendType: 'tmux',
    logs: false,
    start(argv, o) {
      const pane = panes.open(argv, { cwd: o.cwd, env: o.env, title: o.title });
      return { pid: pane.pid, paneId: pane.id };
    },
    end(t) {
      if (t.paneId) panes.kill(t.paneId);
    },
    where: (t) => `process in tmux pane ${t.paneId}`,
  };
}
