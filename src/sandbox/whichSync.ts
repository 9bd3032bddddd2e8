// What the sandbox runtime's `whichSync` is in dist/sandbox.cjs (scripts/bundle.mjs): the lookup
// `which` (debianutils) makes, done in this process. The runtime spawned `which` (a shell script)
// synchronously for bwrap, socat, ripgrep and the shell, seven times at each sandboxed start: each
// a fork of this process and a shell, about 0.1 s of CPU in all.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path `which bin` prints (its first executable regular file on PATH, an empty entry being `.`), or null. */
export function whichSync(bin: string): string | null {
  if (!bin) return null;
  if (bin.includes('/')) return isExecutableFile(bin) ? bin : null;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = `${dir || '.'}/${bin}`;
    if (isExecutableFile(file)) return file;
  }
  return null;
}
