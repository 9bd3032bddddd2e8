// The inbox lock, in the on-disk form the reference CLI and claude-code-controller use (both lock
// with proper-lockfile): a directory `<inbox>.lock` made with mkdir, held for one read-modify-write
// and removed after. So a teammate process of either CLI, a controller and this runtime exclude
// each other. A lock older than STALE_LOCK_MS was left by a writer that died: it is removed,
// whether it is a directory (proper-lockfile's form) or a file (the O_EXCL form older builds of
// this runtime made). Every wait has a deadline, whatever the lock turns out to be: the lock is
// looked at with lstat, so a symbolic link left at its path (dangling or not) is a lock like any
// other, never a path that mkdir finds taken and stat finds gone, which would spin.
import { lstatSync, mkdirSync, rmdirSync, unlinkSync } from 'node:fs';

/** A lock older than this is taken to be left by a crashed writer (proper-lockfile's default). */
export const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

export interface LockOptions {
  staleMs?: number;
  waitMs?: number;
}

/**
 * Take the lock at `lockPath`, waiting with short sleeps; resolves to its release. Throws when it
 * cannot be had within the wait (the message names the path and what holds it).
 */
export async function lockFile(lockPath: string, opts: LockOptions = {}): Promise<() => void> {
  const staleMs = opts.staleMs ?? STALE_LOCK_MS;
  const deadline = Date.now() + (opts.waitMs ?? LOCK_WAIT_MS);
  let lastProblem = 'held by another writer';
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      mkdirSync(lockPath, { mode: 0o700 });
      return () => removeLock(lockPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const broken = breakIfStale(lockPath, staleMs);
    // Released (or broken) between our tries: try again at once, while the wait lasts.
    if (broken === 'gone' && Date.now() <= deadline) continue;
    if (broken !== 'held' && broken !== 'gone') lastProblem = broken;
    if (Date.now() > deadline)
      throw new Error(
        `the inbox is locked (${lockPath}): ${lastProblem}; gave up after ${opts.waitMs ?? LOCK_WAIT_MS} ms`,
      );
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** 'gone' when the lock no longer exists, 'held' when it is fresh, else why a stale one could not be removed. */
function breakIfStale(lockPath: string, staleMs: number): 'gone' | 'held' | string {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(lockPath);
  } catch {
    return 'gone';
  }
  if (Date.now() - st.mtimeMs <= staleMs) return 'held';
  try {
    if (st.isDirectory()) rmdirSync(lockPath);
    else unlinkSync(lockPath);
    return 'gone';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'gone';
    return `a stale lock (${Math.round((Date.now() - st.mtimeMs) / 1000)} s old) could not be removed: ${(err as Error).message}`;
  }
}

function removeLock(lockPath: string): void {
  try {
    rmdirSync(lockPath);
  } catch {
    /* already gone (broken as stale by another writer) */
  }
}
