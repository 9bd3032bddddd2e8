// rg's file-selection rules for the JS impl: per-directory ignore files, --glob overrides and --type filters.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { ToolError } from '../tool.js';
import { TYPE_GLOBS } from './shared.js';

export type Decision = 'ignore' | 'whitelist' | undefined;

interface DirRules {
  gitignore?: Ignore;
  ignore?: Ignore;
  rgignore?: Ignore;
  hasGit: boolean;
}

function loadIgnoreFile(dir: string, name: string): Ignore | undefined {
  try {
    return ignore().add(readFileSync(join(dir, name), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Reads and caches the ignore files of each directory; answers rg's questions about a path. */
export class IgnoreRules {
  private cache = new Map<string, DirRules>();

  rules(dir: string): DirRules {
    let r = this.cache.get(dir);
    if (!r) {
      let hasGit = false;
      try {
        statSync(join(dir, '.git'));
        hasGit = true;
      } catch {
        /* no repository here */
      }
      r = {
        gitignore: loadIgnoreFile(dir, '.gitignore'),
        ignore: loadIgnoreFile(dir, '.ignore'),
        rgignore: loadIgnoreFile(dir, '.rgignore'),
        hasGit,
      };
      this.cache.set(dir, r);
    }
    return r;
  }

  /** The directories from `dir` up to the filesystem root. */
  private chain(dir: string): string[] {
    const out: string[] = [];
    for (let d = dir; ; d = dirname(d)) {
      out.push(d);
      if (dirname(d) === d) break;
    }
    return out;
  }

  decide(absPath: string, isDir: boolean): Decision {
    const chain = this.chain(dirname(absPath));
    const anyGit = chain.some((d) => this.rules(d).hasGit);
    const test = (ig: Ignore | undefined, d: string): Decision => {
      if (!ig) return undefined;
      const rel = relative(d, absPath).split(sep).join('/') + (isDir ? '/' : '');
      const r = ig.test(rel);
      return r.ignored ? 'ignore' : r.unignored ? 'whitelist' : undefined;
    };
    for (const kind of ['rgignore', 'ignore'] as const) {
      for (const d of chain) {
        const m = test(this.rules(d)[kind], d);
        if (m) return m;
      }
    }
    if (anyGit) {
      for (const d of chain) {
        const r = this.rules(d);
        const m = test(r.gitignore, d);
        if (m) return m;
        if (r.hasGit) break; // a repository's root: ignore files above it do not apply
      }
    }
    return undefined;
  }
}

/** rg --glob semantics: later globs win; `!` negates; no '/' → basename match at any depth. */
export function makeGlobOverride(globs: string[]): ((rel: string, isDir: boolean) => Decision) | undefined {
  if (globs.length === 0) return undefined;
  const rules = globs.map((g) => {
    const negated = g.startsWith('!');
    const pat = negated ? g.slice(1) : g;
    const byName = !pat.includes('/');
    const isMatch = picomatch(pat.replace(/^\//, ''), { dot: true });
    return { negated, byName, isMatch };
  });
  const anyPositive = rules.some((r) => !r.negated);
  return (rel, isDir) => {
    for (let i = rules.length - 1; i >= 0; i--) {
      const r = rules[i];
      if (r.isMatch(r.byName ? rel.slice(rel.lastIndexOf('/') + 1) : rel)) return r.negated ? 'ignore' : 'whitelist';
    }
    return anyPositive && !isDir ? 'ignore' : undefined;
  };
}

export function makeTypeFilter(type: string | undefined): ((name: string, isDir: boolean) => Decision) | undefined {
  if (type === undefined) return undefined;
  const globs = TYPE_GLOBS[type];
  if (!globs) throw new ToolError(`unrecognized file type: ${type}`);
  const isMatch = picomatch(globs, { dot: true });
  return (name, isDir) => (isDir ? undefined : isMatch(name) ? 'whitelist' : 'ignore');
}
