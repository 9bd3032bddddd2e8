// The project's files for the terminal UI's `@` completion: every file under the working folder
// that .gitignore (the root's and each folder's) does not exclude, .git and node_modules left out.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** A huge tree is cut here: completion stays quick, and the first paths found are the shallow ones. */
const MAX_FILES = 20_000;

export async function projectFiles(cwd: string): Promise<string[]> {
  // Loaded when first needed (see tools/glob.ts).
  const fg = (await import('fast-glob')).default;
  const found = await fg('**/*', {
    cwd,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: ['**/.git/**', '**/node_modules/**'],
  });
  const rules = new Map<string, Ignore | null>();
  const rulesOf = (dir: string): Ignore | null => {
    let r = rules.get(dir);
    if (r === undefined) {
      try {
        r = ignore().add(readFileSync(join(cwd, dir, '.gitignore'), 'utf8'));
      } catch {
        r = null;
      }
      rules.set(dir, r);
    }
    return r;
  };
  const ignored = (file: string): boolean => {
    // Each folder's .gitignore speaks about the paths below it.
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      const base = dir === '.' ? '' : dir;
      const r = rulesOf(base);
      const rel = base ? file.slice(base.length + 1) : file;
      if (r?.ignores(rel)) return true;
      if (dir === '.' || dir === '/') return false;
    }
  };
  const out: string[] = [];
  for (const f of found.sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))) {
    if (!ignored(f)) out.push(f);
    if (out.length >= MAX_FILES) break;
  }
  return out;
}
