// Paths as permission rules see them: resolved component by component like the kernel would
// (symlinks followed, `..` applied to the real parent), then matched with gitignore semantics
// (the `ignore` package: the same rules people already write in .gitignore files).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ignore from 'ignore';
import picomatch from 'picomatch';

type Ignore = ReturnType<typeof ignore>;

export interface ResolvedPath {
  /** Absolute, `..` applied lexically: what the caller wrote. */
  lexical: string;
  /** Absolute, symlinks followed for the part that exists: what the kernel would open. */
  real: string;
}

export function expandHome(p: string, home = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** Follows symlinks one component at a time, so `link/..` goes where the kernel goes. */
export function realpathLoose(abs: string): string {
  // Most paths exist: one realpath(3) call instead of Node's JS walk, which stats every component
  // of every prefix (a start resolves the working directories this way).
  if (abs.startsWith('/')) {
    try {
      return fs.realpathSync.native(abs);
    } catch {
      // Some part does not exist: resolve what does, component by component.
    }
  }
  const comps = abs.split('/').filter((c) => c !== '' && c !== '.');
  let cur = '/';
  let exists = true;
  for (const comp of comps) {
    if (comp === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, comp);
    if (exists) {
      try {
        cur = fs.realpathSync(next);
        continue;
      } catch {
        // Everything from here on does not exist yet (a file about to be written).
        exists = false;
      }
    }
    cur = next;
  }
  return cur;
}

export function resolvePath(p: string, cwd: string): ResolvedPath {
  const expanded = expandHome(p);
  const joined = path.isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`;
  return { lexical: path.resolve(joined), real: realpathLoose(joined) };
}

export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A working directory: cwd or an `--add-dir` / additionalDirectories entry. */
export interface WorkingDir {
  lexical: string;
  real: string;
}

export function workingDir(dir: string, cwd: string): WorkingDir {
  return resolvePath(dir, cwd);
}

/** Inside a working directory? Judged on the real path: a symlink cannot lead out. */
export function inWorkingDirs(p: ResolvedPath, dirs: WorkingDir[]): boolean {
  return dirs.some((d) => isWithin(p.real, d.real));
}

/**
 * A path specifier compiled against its base:
 *  `//abs/x` → `/abs/x`; `~/x` → under home; `/x` and `./x` and `x/y` → anchored at cwd (the
 *  reference anchors `/x` at the settings file's directory; we use cwd and say so in the README);
 *  a pattern without a slash (`*.env`, `secret`) matches at any depth below cwd, as in .gitignore.
 */
export interface PathPattern {
  base: WorkingDir;
  matcher: Ignore;
  source: string;
}

export function compilePathPattern(content: string, cwd: string, home = os.homedir()): PathPattern {
  let baseDir: string;
  let pattern: string;
  if (content.startsWith('//')) {
    baseDir = '/';
    pattern = content.slice(1);
  } else if (content === '~' || content.startsWith('~/')) {
    baseDir = home;
    pattern = `/${content.slice(2)}`;
  } else if (content.startsWith('/')) {
    baseDir = cwd;
    pattern = content;
  } else if (content.startsWith('./')) {
    baseDir = cwd;
    pattern = `/${content.slice(2)}`;
  } else {
    baseDir = cwd;
    pattern = content;
  }
  if (pattern === '/' || pattern === '') pattern = '**';
  return { base: resolvePath(baseDir, cwd), matcher: ignore().add(pattern), source: content };
}

function matchesUnder(pattern: PathPattern, abs: string, base: string): boolean {
  const rel = path.relative(base, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  return pattern.matcher.ignores(rel);
}

/** Lexical or real: used for deny/ask, where either spelling of the file must be caught. */
export function patternMatchesEither(pattern: PathPattern, p: ResolvedPath): boolean {
  return (
    matchesUnder(pattern, p.real, pattern.base.real) ||
    matchesUnder(pattern, p.lexical, pattern.base.lexical) ||
    matchesUnder(pattern, p.real, pattern.base.lexical)
  );
}

/** Real path only: used for allow, so a symlink cannot borrow another folder's permission. */
export function patternMatchesReal(pattern: PathPattern, p: ResolvedPath): boolean {
  return matchesUnder(pattern, p.real, pattern.base.real);
}

/**
 * Expands a shell glob (`secre?/*`, `*\/key`) the way bash would, segment by segment, bounded to
 * `limit` results. `**` is treated as `*` (bash without globstar).
 */
export function expandGlob(pattern: string, cwd: string, limit = 2000): string[] {
  const abs = path.isAbsolute(pattern);
  const segments = pattern.split('/').filter((s) => s !== '');
  let current = [abs ? '/' : cwd];
  for (const seg of segments) {
    const next: string[] = [];
    if (!/[*?[]/.test(seg)) {
      for (const dir of current) next.push(path.join(dir, seg));
    } else {
      const isMatch = picomatch(seg.replace(/\*\*+/g, '*'), { dot: seg.startsWith('.') });
      for (const dir of current) {
        let names: string[];
        try {
          names = fs.readdirSync(dir);
        } catch {
          continue;
        }
        for (const n of names) {
          if (isMatch(n)) next.push(path.join(dir, n));
          if (next.length >= limit) break;
        }
      }
    }
    current = next.slice(0, limit);
    if (current.length === 0) break;
  }
  return current.filter((p) => fs.existsSync(p));
}
