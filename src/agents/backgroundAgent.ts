// A background subagent (run_in_background): registered as a task first, prepared, then run to its
// end apart from the Task call, which returns at once with its task id and output file (its
// transcript). Its events are written directly; its end is its task's notification.
import { symlinkSync } from 'node:fs';
import type { SubagentRequest } from '../../tools/task.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from '../../tools/foreground.js';
import { ToolError, type ToolContext, type ToolResult } from '../../tools/tool.js';
import { stoppedSummary } from '../tasks/registry.js';
import type { Transcript } from '../transcript/transcript.js';
import type { Worktree } from '../worktrees/gitWorktree.js';
import { AgentRun, type AgentRunDeps } from './agentRun.js';
import { isolatedWorktree, releaseWorktree } from './agentWorktree.js';
import type { Prepared } from './prepareAgent.js';

/** How a subagent task gets its run ready (SubagentRunner: a fork or its definition, under the calling loop). */
export interface AgentLauncher {
  /** Throws a ToolError for an unknown type or a caller outside a session run. */
  prepareTask(
    req: SubagentRequest,
    ctx: ToolContext,
    o: { signal: AbortSignal; agentId: string; worktree: Worktree | undefined },
  ): Promise<Prepared>;
  /** Whether the catalog has an agent of this type. */
  known(type: string): boolean;
  unknown(type: string): ToolError;
  openTranscript(p: Prepared): Transcript;
}

/** SubagentService.startBackground. */
export async function startBackground(
  deps: AgentRunDeps,
  launch: AgentLauncher,
  req: SubagentRequest,
  ctx: ToolContext,
): Promise<ToolResult> {
  const registry = deps.registry;
  if (backgroundTasksDisabled())
    throw new ToolError(`run_in_background: ${BACKGROUND_DISABLED_MESSAGE}; call the agent without it`);
  // Validate before anything is registered: an unknown type must not leave a phantom task.
  if (!launch.known(req.subagentType)) throw launch.unknown(req.subagentType);
  const rec = registry.register('local_agent', {
    description: req.description,
    toolUseId: ctx.toolUseId,
    subagentType: req.subagentType,
    prompt: req.prompt,
    // Agents cannot spawn agents here: every one is a top-level spawn.
    spawnDepth: 1,
    fileName: (id) => `agent-${id}.jsonl`,
  });
  let p: Prepared;
  let worktree: Worktree | undefined;
  try {
    worktree = await isolatedWorktree(req, ctx, rec.id);
    p = await launch.prepareTask(req, ctx, { signal: rec.abort.signal, agentId: rec.id, worktree });
    // The task's output file is its transcript, kept with the session's other subagents.
    symlinkSync(p.transcriptPath, rec.outputFile);
  } catch (err) {
    registry.finish(rec.id, { status: 'failed', summary: (err as Error).message });
    await releaseWorktree(worktree);
    throw err;
  }
  const run = new AgentRun(deps, p, rec.id, launch.openTranscript(p));
  void run.inBackground(run.events(), stoppedSummary(rec));
  return asyncLaunched(
    `Async agent launched successfully.\nagentId: ${rec.id} (task id)\nThe agent is working in the background; you will be notified when it completes.`,
    rec,
    req,
    p.model,
  );
}

/** The tool result of an agent now running in the background (launched so, or moved there). */
export function asyncLaunched(
  lead: string,
  rec: { id: string; outputFile: string },
  req: { description: string; prompt: string },
  model: string,
): ToolResult {
  return {
    content: `${lead} Use TaskOutput with this task id to read its result earlier, or TaskStop to stop it.\noutput_file: ${rec.outputFile}`,
    data: {
      status: 'async_launched',
      isAsync: true,
      agentId: rec.id,
      description: req.description,
      prompt: req.prompt,
      outputFile: rec.outputFile,
      resolvedModel: model,
    },
  };
}
