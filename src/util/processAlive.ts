// Whether a process runs, by pid: one of ours or another session's.
import { readFileSync } from 'node:fs';

/**
 * True while `pid` runs. A process that has exited but that its parent has not reaped yet (a
 * zombie: a tmux pane's process waits for the tmux server, which can take seconds) has ended.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return true; // no /proc: that it exists is all there is to tell
  }
}
