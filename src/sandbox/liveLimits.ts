// The sandbox follows the session's permission rules and working directories as they change
// mid-session (a host's updatedPermissions, the terminal's "always", a PermissionRequest hook,
// apply_flag_settings, EnterWorktree/ExitWorktree): the runtime config is rebuilt from them and
// handed to the library's updateConfig. Network lists apply at once (the proxy reads them per
// request, also for commands already running); filesystem limits are baked into each wrap, so
// they apply from the next wrap on (the caller drops a wrap made ahead).
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** What the sandbox follows: the session's rules and directories as they are now. */
export interface SessionLimits {
  rules: { allow: string[]; deny: string[] };
  /** The session's working directory now (a worktree after EnterWorktree). */
  cwd: string;
  /** Every writable working directory now: cwd, --add-dir, addDirectories, a worktree's git dir. */
  workingDirs: string[];
}

/** The parts of the permission state the limits come from (src/permissions' PermissionState fits). */
export interface LimitsSource {
  rules: { allow: Array<{ text: string }>; deny: Array<{ text: string }> };
  cwd: string;
  /** The cwd the session started in. */
  ruleCwd: string;
  workingDirs: Array<{ real: string }>;
}

export function sessionLimits(state: LimitsSource): SessionLimits {
  const dirs = state.workingDirs.map((d) => d.real);
  // In a linked worktree, git writes its index, refs and objects under the main repository's
  // .git, which is no longer a working directory once the session moved into the worktree.
  const gitDir = state.cwd !== state.ruleCwd ? linkedWorktreeGitDir(state.cwd) : undefined;
  return {
    rules: { allow: state.rules.allow.map((e) => e.text), deny: state.rules.deny.map((e) => e.text) },
    cwd: state.cwd,
    workingDirs: gitDir && !dirs.includes(gitDir) ? [...dirs, gitDir] : dirs,
  };
}

/** The common git directory of a linked worktree (its `.git` is a file naming its own git dir), else undefined. */
export function linkedWorktreeGitDir(dir: string): string | undefined {
  try {
    const dotGit = path.join(dir, '.git');
    if (!statSync(dotGit).isFile()) return undefined;
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return undefined;
    const own = path.resolve(dir, m[1].trim());
    const common = readFileSync(path.join(own, 'commondir'), 'utf8').trim();
    return realpathSync(path.resolve(own, common));
  } catch {
    return undefined;
  }
}

/** A zod-like check (the library's SandboxRuntimeConfigSchema.safeParse). */
export type ConfigCheck = (
  config: unknown,
) => { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };

/** The runtime config's lists that rules and directories feed: an entry the library rejects is dropped alone. */
const LISTS = new Set([
  'network.allowedDomains',
  'network.deniedDomains',
  'filesystem.denyRead',
  'filesystem.allowWrite',
  'filesystem.denyWrite',
]);

export type Fitted<C> = { config: C; dropped: string[] } | { error: string };

/**
 * The config with each list entry the library rejects left out (what was dropped, and why), or
 * the reason it cannot be fitted: a rejection of anything but such an entry.
 */
export function fitRuntimeConfig<C extends object>(config: C, check: ConfigCheck): Fitted<C> {
  let current = structuredClone(config);
  const dropped: string[] = [];
  // Refinements over the whole config run only once the entries pass: a few rounds at most.
  for (let round = 0; round < 4; round++) {
    const r = check(current);
    if (r.success) return { config: current, dropped };
    const remove = new Map<string, Set<number>>();
    for (const issue of r.error.issues) {
      const [group, key, index] = issue.path;
      const list = `${String(group)}.${String(key)}`;
      if (!LISTS.has(list) || typeof index !== 'number')
        return { error: `${issue.path.map(String).join('.')}: ${issue.message}` };
      const entries = (current as Record<string, Record<string, unknown[]>>)[group as string][key as string];
      dropped.push(`${list} entry ${JSON.stringify(entries[index])}: ${issue.message}`);
      if (!remove.has(list)) remove.set(list, new Set());
      remove.get(list)!.add(index);
    }
    current = structuredClone(current);
    for (const [list, indexes] of remove) {
      const [group, key] = list.split('.');
      const holder = (current as Record<string, Record<string, unknown[]>>)[group];
      holder[key] = holder[key].filter((_, i) => !indexes.has(i));
    }
  }
  return { error: 'the sandbox runtime kept rejecting the config' };
}

interface WriteLists {
  filesystem: { allowWrite: string[]; denyWrite: string[] };
}

export interface LiveLimitsDeps<C extends WriteLists> {
  /** The config the sandbox started with. */
  initial: C;
  /** The runtime config for the limits now. */
  build(now: SessionLimits): C;
  check: ConfigCheck;
  /** Hands a config to the library (SandboxManager.updateConfig). */
  update(config: C): void;
  /** What the runtime cannot enforce in its current config (Linux: write globs); the start's were already said. */
  warnings?: () => string[];
  warn(message: string): void;
}

export interface LiveLimits {
  /** Rebuilds and applies the config; true when the sandbox's limits changed. Never throws. */
  apply(now: SessionLimits): boolean;
  /**
   * A write violation the library's Linux monitor reported only because it judges by the
   * writable folders of the start: the path is writable now (an Edit allow rule or a directory
   * added since), so bubblewrap let the write through.
   */
  falselyReported(line: string): boolean;
}

const GLOB = /[*?[\]{}]/;

function plainDir(p: string): string | undefined {
  if (GLOB.test(p)) return undefined;
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The part of a (glob) path before its first glob segment. */
function globBase(p: string): string {
  const parts = p.split('/');
  const i = parts.findIndex((s) => GLOB.test(s));
  return i < 0 ? p : parts.slice(0, i).join('/') || '/';
}

const under = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

export function createLiveLimits<C extends WriteLists>(deps: LiveLimitsDeps<C>): LiveLimits {
  let current = deps.initial;
  let currentText = JSON.stringify(current);
  const startWritable = deps.initial.filesystem.allowWrite.map(plainDir).filter((d): d is string => d !== undefined);
  let nowWritable = startWritable;
  let nowDenied: string[] = deps.initial.filesystem.denyWrite.map(globBase);
  // A rule the library rejects stays in the rules: say so once, not at every later change.
  const warned = new Set<string>();
  const warnOnce = (m: string) => {
    if (warned.has(m)) return;
    warned.add(m);
    deps.warn(m);
  };
  for (const w of deps.warnings?.() ?? []) warned.add(`sandbox: ${w}`);

  return {
    apply(now) {
      let next: C;
      try {
        next = deps.build(now);
      } catch (err) {
        warnOnce(
          `sandbox: the permission change could not be applied to the sandbox (${(err as Error).message}); its limits stay as they were`,
        );
        return false;
      }
      const fitted = fitRuntimeConfig(next, deps.check);
      if ('error' in fitted) {
        warnOnce(
          `sandbox: the permission change could not be applied to the sandbox (${fitted.error}); its limits stay as they were`,
        );
        return false;
      }
      for (const d of fitted.dropped)
        warnOnce(`sandbox: left out of the sandbox's limits, which the sandbox runtime rejects: ${d}`);
      const text = JSON.stringify(fitted.config);
      if (text === currentText) return false;
      try {
        deps.update(fitted.config);
      } catch (err) {
        warnOnce(
          `sandbox: the permission change could not be applied to the sandbox (${(err as Error).message}); its limits stay as they were`,
        );
        return false;
      }
      current = fitted.config;
      currentText = text;
      for (const w of deps.warnings?.() ?? []) warnOnce(`sandbox: ${w}`);
      nowWritable = current.filesystem.allowWrite.map(plainDir).filter((d): d is string => d !== undefined);
      nowDenied = current.filesystem.denyWrite.map(globBase);
      return true;
    },

    falselyReported(line) {
      const m = /^deny \S+ (\/.*)$/.exec(line);
      if (!m) return false;
      const p = m[1];
      // Dot names are where the runtime's own protections live (.git, .bashrc, .claude, …).
      if (p.split('/').some((seg) => seg.startsWith('.'))) return false;
      // Reported although writable at the start: a deny inside an allowed folder refused it.
      if (startWritable.some((d) => under(p, d))) return false;
      if (nowDenied.some((d) => under(p, d))) return false;
      return nowWritable.some((d) => under(p, d));
    },
  };
}
