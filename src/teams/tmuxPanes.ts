// The tmux side of pane teammates: a new pane in the lead's own tmux session (the server $TMUX
// names), running one command directly (no shell between), and its removal. Every pane opened
// here is also killed when this process exits, however it exits, so no teammate outlives its lead.
import { execFileSync, spawnSync } from 'node:child_process';

export interface Pane {
  /** tmux's pane id (`%12`), what the team file records as `tmuxPaneId`. */
  id: string;
  /** The pid of the command the pane runs (the teammate process). */
  pid: number;
}

export interface PaneHost {
  /** Opens a pane beside the lead's (or in a new window when there is no room) running `argv`. */
  open(argv: string[], opts: { cwd: string; env: Record<string, string>; title: string }): Pane;
  kill(id: string): void;
}

const open = new Set<string>();
let exitHookInstalled = false;

export function tmuxPaneHost(env: NodeJS.ProcessEnv): PaneHost {
  // The client finds the lead's server through $TMUX; the lead's pane is the one to split.
  const tmux = (args: string[]) =>
    execFileSync('tmux', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  const killPane = (id: string) => {
    open.delete(id);
    spawnSync('tmux', ['kill-pane', '-t', id], { env, stdio: 'ignore', timeout: 5000 });
  };
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const id of [...open]) killPane(id);
    });
  }
  return {
    open(argv, opts) {
      const envArgs = Object.entries(opts.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const target = env.TMUX_PANE ? ['-t', env.TMUX_PANE] : [];
      const common = ['-d', '-P', '-F', '#{pane_id} #{pane_pid}', '-c', opts.cwd, ...envArgs];
      let out: string;
      try {
        out = tmux(['split-window', ...target, '-h', ...common, '--', ...argv]);
      } catch (err) {
        // A pane too small to split ("no space for new pane"): a window of its own instead.
        const why = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
        try {
          out = tmux(['new-window', ...common, '-n', opts.title, '--', ...argv]);
        } catch (err2) {
          const why2 = String((err2 as { stderr?: string }).stderr ?? (err2 as Error).message).trim();
          throw new Error(`tmux could not open a pane for the teammate: ${why}; nor a window: ${why2}`);
        }
      }
      const m = /^(%\d+) (\d+)/.exec(out.trim());
      if (!m) throw new Error(`tmux answered "${out.trim()}" where a pane id and pid were expected`);
      open.add(m[1]);
      // Its border says whose pane it is (best effort: an old tmux without titles still works).
      spawnSync('tmux', ['select-pane', '-t', m[1], '-T', opts.title], { env, stdio: 'ignore', timeout: 5000 });
      return { id: m[1], pid: Number(m[2]) };
    },
    kill: killPane,
  };
}
