// The session side of EnterWorktree / ExitWorktree: which worktree the main agent is in, and the
// move of its working directory (tool contexts and permission state) into it and back.
import { ToolError } from '../../tools/tool.js';
import type {
  EnterWorktreeInput,
  EnterWorktreeOutput,
  ExitWorktreeInput,
  ExitWorktreeOutput,
  WorktreeSessionService,
} from '../../tools/worktree.js';
import {
  createWorktree,
  describeChanges,
  existingWorktree,
  hasChanges,
  randomWorktreeName,
  removeWorktree,
  worktreeChanges,
  WorktreeError,
  type Worktree,
} from './gitWorktree.js';

export interface WorktreeSessionDeps {
  /** The session's working directory now. */
  cwd: () => string;
  /** Move the session's working directory (tool contexts, relative paths, permission rules). */
  moveTo: (dir: string) => void;
}

export interface WorktreeSession extends WorktreeSessionService {
  /** At session end: a worktree we made with nothing in it is removed; else it is kept. Returns a line for stderr. */
  close(): Promise<string | undefined>;
}

async function asToolError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WorktreeError) throw new ToolError(err.message);
    throw err;
  }
}

export function createWorktreeSession(deps: WorktreeSessionDeps): WorktreeSession {
  let active: { wt: Worktree; originalCwd: string } | undefined;
  const branchText = (wt: Worktree) => (wt.branch ? ` on branch ${wt.branch}` : '');

  return {
    async enter(input: EnterWorktreeInput, signal: AbortSignal): Promise<EnterWorktreeOutput> {
      if (active) throw new ToolError(`A worktree is already active (${active.wt.path}): call ExitWorktree first.`);
      const originalCwd = deps.cwd();
      const wt = await asToolError(() =>
        input.path !== undefined
          ? existingWorktree(originalCwd, input.path, signal)
          : createWorktree(originalCwd, input.name ?? randomWorktreeName(), signal),
      );
      active = { wt, originalCwd };
      deps.moveTo(wt.path);
      const what = wt.created
        ? `Created a worktree at ${wt.path}${branchText(wt)} (from the current HEAD)`
        : `Switched to the worktree at ${wt.path}${branchText(wt)}`;
      return {
        worktreePath: wt.path,
        ...(wt.branch ? { worktreeBranch: wt.branch } : {}),
        message: `${what}. The working directory is now ${wt.path}: relative paths, Bash commands and file tools work there. Use ExitWorktree to leave it.`,
      };
    },

    async exit(input: ExitWorktreeInput): Promise<ExitWorktreeOutput> {
      if (!active)
        throw new ToolError(
          'No worktree is active: ExitWorktree only leaves a worktree that EnterWorktree entered in this session.',
        );
      const { wt, originalCwd } = active;
      const base = {
        action: input.action,
        originalCwd,
        worktreePath: wt.path,
        ...(wt.branch ? { worktreeBranch: wt.branch } : {}),
      };
      if (input.action === 'keep') {
        active = undefined;
        deps.moveTo(originalCwd);
        return {
          ...base,
          message: `Left the worktree; it is kept at ${wt.path}${branchText(wt)}. The working directory is ${originalCwd} again.`,
        };
      }
      const changes = await asToolError(() => worktreeChanges(wt));
      if (hasChanges(changes) && input.discard_changes !== true)
        throw new ToolError(
          `The worktree at ${wt.path} has ${describeChanges(changes)}: removing it would throw them away. Ask the user, then call ExitWorktree again with discard_changes: true, or use action "keep".`,
        );
      await asToolError(() => removeWorktree(wt));
      active = undefined;
      deps.moveTo(originalCwd);
      const discarded = hasChanges(changes) ? ` (${describeChanges(changes)} discarded)` : '';
      return {
        ...base,
        discardedFiles: changes.files.length,
        discardedCommits: changes.commits,
        message: `Removed the worktree at ${wt.path}${wt.created && wt.branch ? ` and its branch ${wt.branch}` : ''}${discarded}. The working directory is ${originalCwd} again.`,
      };
    },

    async close(): Promise<string | undefined> {
      if (!active) return undefined;
      const { wt } = active;
      active = undefined;
      try {
        if (wt.created && !hasChanges(await worktreeChanges(wt))) {
          await removeWorktree(wt);
          return undefined;
        }
        return `the worktree ${wt.path}${branchText(wt)} has changes (or was not made by this session) and is kept`;
      } catch (err) {
        return `the worktree ${wt.path}${branchText(wt)} is kept: ${(err as Error).message}`;
      }
    },
  };
}
