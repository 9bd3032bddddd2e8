// A foreground subagent: the Task call blocks on it, forwarding its events (and its task lines, in
// their place among its messages) as the call's progress, and returns its final text. A host may
// move it to the background mid-run (background_tasks): then the call returns at once and the same
// task goes on, its remaining events written directly. Every way it ends goes through its
// AgentRun's one end, except a call abandoned by its consumer, whose row is closed as stopped.
import type { SubagentRequest } from '../../tools/task.js';
import type { ToolContext, ToolProgress, ToolResult } from '../../tools/tool.js';
import type { LoopOutcome } from '../loop/events.js';
import { newTaskId, stoppedSummary, type TaskEvent, type TaskRecord } from '../tasks/registry.js';
import { AgentRun, failureText, type AgentEnded, type AgentRunDeps } from './agentRun.js';
import { isolatedWorktree, releaseWorktree } from './agentWorktree.js';
import { asyncLaunched, type AgentLauncher } from './backgroundAgent.js';
import type { Prepared } from './prepareAgent.js';

const asProgress = (event: TaskEvent): ToolProgress => ({
  type: 'forward',
  event: { type: 'task', parentToolUseId: null, event },
});

/** The task lines of a foreground agent, held until its Task call yields them; a new one wakes the call. */
class TaskLines {
  private readonly queue: TaskEvent[] = [];
  private wake: (() => void) | undefined;

  push(event: TaskEvent): void {
    this.queue.push(event);
    this.wake?.();
  }

  *drain(): Generator<ToolProgress> {
    while (this.queue.length) yield asProgress(this.queue.shift()!);
  }

  /** Resolves when a line arrives (a progress summary, a stop: from outside the agent's loop). */
  next(): Promise<'line'> {
    return new Promise<'line'>((r) => (this.wake = () => r('line')));
  }

  quiet(): void {
    this.wake = undefined;
  }
}

/** The agent, registered as a foreground task and ready to run: what its Task call drives. */
interface Started {
  run: AgentRun;
  rec: TaskRecord;
  lines: TaskLines;
  /** Its own abort: the turn's while the call blocks on it, and its task's always. */
  own: AbortController;
  /** Unties it from the turn's abort (it ended, or moved to the background). */
  untie: () => void;
}

/** Its own abort, tied to the turn's; its prepared run; its task row (announced only once it can run). */
async function start(deps: AgentRunDeps, launch: AgentLauncher, req: SubagentRequest, ctx: ToolContext) {
  // Its agent id is its task id, as for a background agent (hooks' agent_id, the transcript's name).
  const agentId = newTaskId('local_agent');
  const worktree = await isolatedWorktree(req, ctx, agentId);
  // Once a host moves it to the background (background_tasks), only its task's abort stops it.
  const own = new AbortController();
  const onTurnAbort = () => own.abort();
  const untie = () => ctx.signal.removeEventListener('abort', onTurnAbort);
  if (ctx.signal.aborted) own.abort();
  else ctx.signal.addEventListener('abort', onTurnAbort, { once: true });
  let p: Prepared;
  try {
    p = await launch.prepareTask(req, ctx, { signal: own.signal, agentId, worktree });
  } catch (err) {
    untie();
    await releaseWorktree(worktree);
    throw err;
  }
  // Its task lines go out through this call, in their place among the agent's messages (the
  // tool batch holds those until the parent's assistant message is out).
  const lines = new TaskLines();
  // An unknown type or a failed worktree leaves no task row. Its output file is its transcript
  // itself: a foreground agent needs no task output folder.
  const rec = deps.registry.register('local_agent', {
    id: agentId,
    description: req.description,
    toolUseId: ctx.toolUseId,
    subagentType: req.subagentType,
    prompt: req.prompt,
    // Agents cannot spawn agents here: every one is a top-level spawn.
    spawnDepth: 1,
    foreground: true,
    outputFile: p.transcriptPath,
    route: (event) => lines.push(event),
  });
  rec.abort.signal.addEventListener('abort', () => own.abort(), { once: true });
  const run = new AgentRun(deps, p, rec.id, launch.openTranscript(p));
  return { run, rec, lines, own, untie } satisfies Started;
}

/** The Task call's side of a foreground agent (SubagentService.run). */
export async function* runForeground(
  deps: AgentRunDeps,
  launch: AgentLauncher,
  req: SubagentRequest,
  ctx: ToolContext,
): AsyncGenerator<ToolProgress, ToolResult, void> {
  const s = await start(deps, launch, req, ctx);
  const { run, rec, lines } = s;
  let moved!: () => void;
  const movedToBackground = new Promise<'moved'>((r) => (moved = () => r('moved')));
  const leave = ctx.services?.foreground?.enter({
    toolUseId: ctx.toolUseId,
    kind: 'local_agent',
    background: () => moved(),
  });
  let outcome: LoopOutcome | undefined;
  let backgrounded = false;
  try {
    const events = run.events();
    let next = events.next();
    for (;;) {
      yield* lines.drain();
      const first = await Promise.race([next, movedToBackground, lines.next()]);
      lines.quiet();
      if (first === 'line') continue;
      if (first === 'moved') {
        backgrounded = true;
        s.untie();
        // The same task (id, row, output file), now in the live set (task_updated is_backgrounded).
        deps.registry.moveToBackground(rec.id);
        void run.inBackground(events, stoppedSummary(rec), next);
        yield* lines.drain();
        return asyncLaunched(
          `The agent was moved to the background and is still working.\nagentId: ${rec.id} (task id)\nYou will be notified when it completes.`,
          rec,
          req,
          run.p.model,
        );
      }
      if (first.done) {
        outcome = first.value;
        break;
      }
      const shown = run.shown(first.value);
      if (shown) yield { type: 'forward', event: shown };
      // After the turn's message: the row's usage so far, as for a background agent.
      run.progress(first.value);
      next = events.next();
    }
  } finally {
    leave?.();
    if (!backgrounded) {
      s.untie();
      run.close();
      // The call was abandoned (its consumer stopped pulling): the row still gets its end, directly.
      if (!outcome) {
        delete rec.route;
        deps.registry.finish(rec.id, { status: 'stopped', summary: stoppedSummary(rec), usage: run.usage() });
      }
    }
  }
  const ended = await run.end(outcome, {
    stopSummary: stoppedSummary(rec),
    emptyAnswer: '(the agent finished without a final message)',
  });
  yield* lines.drain();
  return callResult(req, ctx, s, outcome, ended);
}

/** The Task call's result: the agent's answer (or why it has none), with what it did. */
function callResult(
  req: SubagentRequest,
  ctx: ToolContext,
  { run, rec }: Started,
  outcome: LoopOutcome,
  { end, released }: AgentEnded,
): ToolResult {
  const { p } = run;
  const wt = released.kept ? p.worktree : undefined;
  const where = wt ? { worktreePath: wt.path, worktreeBranch: wt.branch } : {};
  const s = end.usage ?? run.usage();
  const t = p.cfg.usage.totals();
  const base = {
    agentId: p.agentId,
    agentType: p.def.name,
    prompt: req.prompt,
    resolvedModel: p.model,
    totalToolUseCount: s.toolUses,
    totalDurationMs: s.durationMs,
    totalTokens: s.totalTokens,
    usage: {
      input_tokens: t.input_tokens,
      output_tokens: t.output_tokens,
      cache_creation_input_tokens: t.cache_creation_input_tokens,
      cache_read_input_tokens: t.cache_read_input_tokens,
    },
  };
  if (outcome.subtype === 'success')
    return {
      content: end.resultText ?? '',
      data: { ...base, status: 'completed', content: [{ type: 'text', text: outcome.resultText }], ...where },
    };
  // Stopped from its row (stop_task, TaskStop) while the turn goes on: say so, not "interrupted".
  const stoppedAlone = rec.abort.signal.aborted && !ctx.signal.aborted;
  const why = stoppedAlone ? stoppedSummary(rec) : failureText(outcome);
  const failed = released.note ? `${why}\n\n${released.note}` : why;
  return { content: failed, isError: true, data: { ...base, ...where, status: 'failed', error: outcome.resultText } };
}
