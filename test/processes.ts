// Polling helpers for tests that watch real processes and the files they write.
import { existsSync, readFileSync } from 'node:fs';

/**
 * Whether the process runs: it exists (signal 0 probes without sending anything) and is not a
 * zombie, which is dead already, only not yet collected by whatever reaps orphans here.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: existing is all we can tell
  }
}

/** Whether the file exists and holds more than whitespace. */
export function hasText(path: string): boolean {
  return existsSync(path) && readFileSync(path, 'utf8').trim() !== '';
}

/** Polls `pred` until it holds or `timeoutMs` passes; returns its last answer. */
export async function waitUntil(pred: () => boolean, timeoutMs = 5000, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return pred();
}

/** Waits for the file to hold text and returns it trimmed; throws after `timeoutMs`. */
export async function waitForFile(path: string, timeoutMs = 10_000): Promise<string> {
  if (!(await waitUntil(() => hasText(path), timeoutMs))) throw new Error(`no ${path}`);
  return readFileSync(path, 'utf8').trim();
}
