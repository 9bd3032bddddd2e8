// Git worktrees for EnterWorktree / ExitWorktree and Agent's isolation: "worktree": a worktree
// under `<repo>/.claude/worktrees/<name>` on a new branch `worktree-<name>` from HEAD, what it
// holds that the base does not (uncommitted files, commits), and its removal with its branch.
// Every git call has a deadline; a failure is a WorktreeError whose message says what to do.
import { execFile } from 'node:child_process';
import { randomHex } from '../util/ids.js';
import { appendFileSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, isAbsolute, resolve } from 'node:path';
import { makeDirs } from '../util/makeDirs.js';

const GIT_TIMEOUT_MS = 60_000;
export const WORKTREES_DIR = join('.claude', 'worktrees');

export class WorktreeError extends Error {}

export interface Worktree {
  /** The main repository's top folder. */
  repoRoot: string;
  path: string;
  branch: string;
  /** The commit it started from: commits past it are the worktree's own. */
  baseCommit: string;
  /** Made by us (EnterWorktree with a name, isolation): only those are removed with their branch. */
  created: boolean;
}

export interface WorktreeChanges {
  /** `git status --porcelain` lines: uncommitted and untracked files. */
  files: string[];
  /** Commits on the worktree's branch past its base. */
  commits: number;
}

function git(args: string[], cwd: string, signal?: AbortSignal): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        signal,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const why =
            code === 'ENOENT'
              ? 'git is not installed (not on PATH)'
              : (String(stderr).trim().split('\n').pop() ?? err.message) || err.message;
          fail(new WorktreeError(`git ${args[0]} failed: ${why}`));
        } else done(String(stdout));
      },
    );
  });
}

/** Each "/"-separated segment: letters, digits, `.`, `_`, `-`; at most 64 characters (the SDK's rule). */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 64) return 'a worktree name has 1 to 64 characters';
  for (const seg of name.split('/'))
    if (!/^[A-Za-z0-9._-]+$/.test(seg) || seg === '.' || seg === '..')
      return `"${name}" is not a valid worktree name: each "/"-separated part may hold only letters, digits, ".", "_" and "-"`;
  return undefined;
}

export function randomWorktreeName(prefix = 'wt'): string {
  return `${prefix}-${randomHex(4)}`;
}

/** The repository `cwd` is in; not one → a WorktreeError naming the folder. */
export async function repoRootOf(cwd: string, signal?: AbortSignal): Promise<string> {
  try {
    return realpathSync((await git(['rev-parse', '--show-toplevel'], cwd, signal)).trim());
  } catch (err) {
    if (err instanceof WorktreeError && /not installed/.test(err.message)) throw err;
    throw new WorktreeError(
      `${cwd} is not inside a git repository: worktrees need one (run git init and make a first commit, or work without a worktree)`,
    );
  }
}

/** Keeps `.claude/worktrees/` out of the main checkout's `git status` (the repository's own exclude file). */
async function excludeWorktreesDir(root: string): Promise<void> {
  try {
    const common = (await git(['rev-parse', '--git-common-dir'], root)).trim();
    const file = join(isAbsolute(common) ? common : resolve(root, common), 'info', 'exclude');
    const line = '/.claude/worktrees/';
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').includes(line)) return;
    makeDirs(join(file, '..'));
    appendFileSync(file, `\n${line}\n`);
  } catch {
    /* only cosmetic: git status would list the folder as untracked */
  }
}

/** A new worktree `<repo>/.claude/worktrees/<name>` on branch `worktree-<name>` from HEAD. */
export async function createWorktree(cwd: string, name: string, signal?: AbortSignal): Promise<Worktree> {
  const problem = nameProblem(name);
  if (problem) throw new WorktreeError(problem);
  const repoRoot = await repoRootOf(cwd, signal);
  const path = join(repoRoot, WORKTREES_DIR, name);
  if (existsSync(path))
    throw new WorktreeError(
      `a worktree named "${name}" already exists at ${path}: pick another name, or enter it with path`,
    );
  let baseCommit: string;
  try {
    baseCommit = (await git(['rev-parse', '--verify', 'HEAD'], repoRoot, signal)).trim();
  } catch {
    throw new WorktreeError(
      `the repository at ${repoRoot} has no commit yet: a worktree starts from one (commit first)`,
    );
  }
  const branch = `worktree-${name}`;
  makeDirs(join(path, '..'));
  await git(['worktree', 'add', '-b', branch, path, baseCommit], repoRoot, signal);
  await excludeWorktreesDir(repoRoot);
  return { repoRoot, path: realpathSync(path), branch, baseCommit, created: true };
}

/** An existing worktree of `cwd`'s repository (it must be in `git worktree list`). */
export async function existingWorktree(cwd: string, path: string, signal?: AbortSignal): Promise<Worktree> {
  const repoRoot = await repoRootOf(cwd, signal);
  const wanted = resolve(cwd, path);
  const real = existsSync(wanted) ? realpathSync(wanted) : wanted;
  const list = await git(['worktree', 'list', '--porcelain'], repoRoot, signal);
  let branch: string | undefined;
  let found = false;
  for (const block of list.split('\n\n')) {
    const lines = block.split('\n');
    const wt = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!wt || (existsSync(wt) ? realpathSync(wt) : wt) !== real) continue;
    found = true;
    branch = lines.find((l) => l.startsWith('branch '))?.slice('branch refs/heads/'.length);
  }
  if (!found)
    throw new WorktreeError(`${wanted} is not a worktree of the repository at ${repoRoot} (see git worktree list)`);
  const baseCommit = (await git(['rev-parse', 'HEAD'], real, signal)).trim();
  return { repoRoot, path: real, ...(branch ? { branch } : { branch: '' }), baseCommit, created: false };
}

export async function worktreeChanges(wt: Worktree): Promise<WorktreeChanges> {
  const status = await git(['status', '--porcelain', '--untracked-files=all'], wt.path);
  const files = status.split('\n').filter((l) => l.trim() !== '');
  const count = (await git(['rev-list', '--count', `${wt.baseCommit}..HEAD`], wt.path)).trim();
  return { files, commits: Number(count) || 0 };
}

export function hasChanges(c: WorktreeChanges): boolean {
  return c.files.length > 0 || c.commits > 0;
}

/** Remove the worktree (whatever it holds) and, when we made it, its branch. */
export async function removeWorktree(wt: Worktree): Promise<void> {
  await git(['worktree', 'remove', '--force', wt.path], wt.repoRoot);
  if (wt.created && wt.branch) await git(['branch', '-D', wt.branch], wt.repoRoot);
}

/** "2 uncommitted files (a.txt, b.txt) and 1 commit" — what removing would throw away. */
export function describeChanges(c: WorktreeChanges): string {
  const parts: string[] = [];
  if (c.files.length) {
    const names = c.files.slice(0, 10).map((l) => l.slice(3));
    parts.push(
      `${c.files.length} uncommitted file${c.files.length === 1 ? '' : 's'} (${names.join(', ')}${c.files.length > 10 ? ', …' : ''})`,
    );
  }
  if (c.commits) parts.push(`${c.commits} commit${c.commits === 1 ? '' : 's'} not on the base`);
  return parts.join(' and ');
}
