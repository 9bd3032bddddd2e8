// isolation: "worktree" for one agent: a fresh git worktree before it starts, and after it ends the
// worktree removed when unchanged, or kept (and said where) when the agent left changes there.
import { ToolError, type ToolContext } from '../../tools/tool.js';
import type { SubagentRequest } from '../../tools/task.js';
import {
  createWorktree,
  describeChanges,
  hasChanges,
  removeWorktree,
  worktreeChanges,
  WorktreeError,
  type Worktree,
} from '../worktrees/gitWorktree.js';

/** The agent's own worktree when it asked for one; a folder outside git is a clear tool error. */
export async function isolatedWorktree(
  req: SubagentRequest,
  ctx: ToolContext,
  agentId: string,
): Promise<Worktree | undefined> {
  if (req.isolation !== 'worktree') return undefined;
  try {
    return await createWorktree(ctx.cwd, `agent-${agentId.slice(-8)}`, ctx.signal);
  } catch (err) {
    if (err instanceof WorktreeError) throw new ToolError(`isolation: "worktree": ${err.message}`);
    throw err;
  }
}

/** What became of the worktree: kept (with a note saying where and why) or removed. */
export interface ReleasedWorktree {
  kept: boolean;
  note: string;
}

/** After the agent: an unchanged worktree is removed; one with changes is kept, and the note says where. */
export async function releaseWorktree(wt: Worktree | undefined): Promise<ReleasedWorktree> {
  if (!wt) return { kept: false, note: '' };
  try {
    const changes = await worktreeChanges(wt);
    if (hasChanges(changes))
      return {
        kept: true,
        note: `The agent's changes (${describeChanges(changes)}) are kept in the worktree ${wt.path} on branch ${wt.branch}.`,
      };
    await removeWorktree(wt);
    return { kept: false, note: '' };
  } catch (err) {
    return {
      kept: true,
      note: `The agent's worktree ${wt.path} (branch ${wt.branch}) is kept: ${(err as Error).message}`,
    };
  }
}
