// mkdir -p without Node's recursive mkdir, which on some filesystems never returns (under /proc it
// retries the same ENOENT forever): walk up to a directory that exists, then create each level once.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function makeDirs(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    let isDir = false;
    try {
      isDir = statSync(d).isDirectory();
    } catch {
      /* missing (or unreadable): try to create it */
    }
    if (isDir) break;
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
