// Temp folders for tests. Each one is removed when its test file ends (the global teardown fails
// the run if anything is left in the temp dir), so a test need not clean up the folders it makes
// with this; a test that removes one earlier may.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEveryFile } from './perFile.js';

const made = new Set<string>();

// After the file's own afterAll hooks, once its processes are stopped.
afterEveryFile(() => removeTempDirs());

/** A new empty folder under the run's temp dir, its real path (no symlinks). */
export function makeTempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  made.clear();
}
