// EnterWorktree / ExitWorktree: the session moves into a git worktree of its repository (its own
// branch, its own files) and back. While inside, file tools, Bash and path permission rules work
// from the worktree. The git work and the move are the session's (src/worktrees/session.ts).
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export const enterWorktreeInputSchema = lazySchema(() =>
  z
    .strictObject({
      name: z
        .string()
        .optional()
        .describe(
          'Optional name for a new worktree. Each "/"-separated segment may contain only letters, digits, dots, underscores, and dashes; max 64 chars total. A random name is generated if not provided. Mutually exclusive with `path`.',
        ),
      path: z
        .string()
        .optional()
        .describe(
          'Path to an existing worktree to switch into instead of creating a new one (it must appear in `git worktree list`). Mutually exclusive with `name`.',
        ),
    })
    .refine((i) => i.name === undefined || i.path === undefined, { message: 'give name or path, not both' }),
);
export type EnterWorktreeInput = z.infer<typeof enterWorktreeInputSchema>;

export const exitWorktreeInputSchema = lazySchema(() =>
  z.strictObject({
    action: z
      .enum(['keep', 'remove'])
      .describe('"keep" leaves the worktree and branch on disk; "remove" deletes the worktree and its branch.'),
    discard_changes: z
      .boolean()
      .optional()
      .describe(
        'Required true when action is "remove" and the worktree has uncommitted files or commits of its own; the tool refuses and lists them otherwise. Set it only after the user has confirmed.',
      ),
  }),
);
export type ExitWorktreeInput = z.infer<typeof exitWorktreeInputSchema>;

/** The SDK's EnterWorktreeOutput. */
export interface EnterWorktreeOutput {
  worktreePath: string;
  worktreeBranch?: string;
  message: string;
}

/** The SDK's ExitWorktreeOutput. */
export interface ExitWorktreeOutput {
  action: 'keep' | 'remove';
  originalCwd: string;
  worktreePath: string;
  worktreeBranch?: string;
  discardedFiles?: number;
  discardedCommits?: number;
  message: string;
}

/** What the worktree tools need of the session (src/worktrees/session.ts); throws ToolError on failure. */
export interface WorktreeSessionService {
  enter(input: EnterWorktreeInput, signal: AbortSignal): Promise<EnterWorktreeOutput>;
  exit(input: ExitWorktreeInput): Promise<ExitWorktreeOutput>;
}

function service(ctx: ToolContext): WorktreeSessionService {
  const s = ctx.services?.worktrees;
  if (!s)
    throw new ToolError(
      'Worktrees are not available in this context (only the main agent can enter one; a subagent can be started with isolation: "worktree").',
    );
  return s;
}

const ENTER_DESCRIPTION = `Creates a git worktree of the current repository and moves the session into it, so changes are made on a separate branch without touching the main checkout.

- The worktree is created under .claude/worktrees/<name> on a new branch worktree-<name>, starting from the current HEAD. Give name to choose it (a random one otherwise), or path to switch into an existing worktree instead.
- From then on the working directory is the worktree: relative paths, Bash commands and file tools work there.
- Use ExitWorktree to leave it: keep it (the branch stays for review or merging) or remove it.
- Fails if the working directory is not in a git repository, or a worktree is already active.`;

const EXIT_DESCRIPTION = `Leaves the worktree EnterWorktree made and moves the session back to the original working directory.

- action "keep": the worktree folder and its branch stay on disk (report the path and branch to the user).
- action "remove": deletes the worktree and its branch. If it has uncommitted files or commits of its own, the tool refuses and lists them; call again with discard_changes: true only after the user confirmed they may be thrown away.`;

export const EnterWorktreeTool = defineTool({
  name: 'EnterWorktree',
  deferred: true,
  description: ENTER_DESCRIPTION,
  inputSchema: enterWorktreeInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    const out = await service(ctx).enter(input, ctx.signal);
    return { content: out.message, data: out };
  },
});

export const ExitWorktreeTool = defineTool({
  name: 'ExitWorktree',
  deferred: true,
  description: EXIT_DESCRIPTION,
  inputSchema: exitWorktreeInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  async *call(input, ctx) {
    const out = await service(ctx).exit(input);
    return { content: out.message, data: out };
  },
});
