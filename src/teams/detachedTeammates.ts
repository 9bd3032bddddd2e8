// Teammate mode detached (ours; the reference has panes only): each teammate is its own `agent`
// process with no terminal, started directly (no shell between) as the leader of a new process
// group, its stdout and stderr appended to a log file in the team's directory. Its group is sent
// SIGTERM when the lead exits however it exits (short of SIGKILL, which the teammate notices
// itself: src/teams/leadWatch.ts), and whatever of the group is left once it has ended is killed.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { LEAD_PID_VAR } from './leadWatch.js';
import type { TeammateStarter } from './teammateStarter.js';

const groups = new Set<number>();
let exitHookInstalled = false;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

export function detachedStarter(): TeammateStarter {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // SIGTERM, not SIGKILL: the teammate's own exit path then ends the process groups it started.
    process.on('exit', () => {
      for (const pid of groups) signalGroup(pid, 'SIGTERM');
    });
  }
  return {
    backendType: 'detached',
    logs: true,
    start(argv, o) {
      const log = openSync(o.logFile, 'a', 0o600);
      try {
        const child = spawn(argv[0] ?? '', argv.slice(1), {
          cwd: o.cwd,
          // Its lead's pid: it ends itself once re-parented (its lead killed with SIGKILL).
          env: { ...o.env, [LEAD_PID_VAR]: String(process.pid) },
          detached: true,
          stdio: ['ignore', log, log],
        });
        // A failed start is reported below (no pid); its later error event must not crash the lead.
        child.on('error', () => {});
        if (child.pid === undefined) throw new Error(`could not start ${argv[0]} (${o.title})`);
        child.unref();
        groups.add(child.pid);
        return { pid: child.pid, logFile: o.logFile };
      } finally {
        closeSync(log);
      }
    },
    end(t) {
      groups.delete(t.pid);
      signalGroup(t.pid, 'SIGKILL');
    },
    where: (t) => `detached process ${t.pid} (log: ${t.logFile})`,
  };
}
