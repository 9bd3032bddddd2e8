// Runs subagents: the same agent loop, in the same process, with a fresh context — its own
// history (the prompt is its first user message), system prompt, tool subset (never Task/Agent),
// read-files map, todo list and usage accumulator. It inherits the parent loop's permission and
// hook pipeline, fallback model and budget. Every event it produces carries parent_tool_use_id =
// the Task tool_use id. Every run is a task in the registry (task_started, task_progress, its
// end), so a host can draw its row. Synchronous (foreground) runs forward their events as tool
// progress and return the final text; background runs emit their events directly.
import { makeDirs } from '../util/makeDirs.js';
import { symlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Tool, ToolContext, ToolProgress, ToolResult, ToolServices } from '../../tools/tool.js';
import { ToolError } from '../../tools/tool.js';
import {
  createWorktree,
  describeChanges,
  hasChanges,
  removeWorktree,
  worktreeChanges,
  WorktreeError,
  type Worktree,
} from '../worktrees/gitWorktree.js';
import type { SubagentRequest, SubagentService, SubagentSummary } from '../../tools/task.js';
import { createTodoStore } from '../../tools/todoWrite.js';
import type { LoopConfig, StopHookVerdict } from '../loop/agentLoop.js';
import { callingLoop, deriveChildServices, type ChildLoopSpec } from '../loop/childLoop.js';
import type { HistoryMessage, LoopEvent, LoopOutcome } from '../loop/events.js';
import { RunDriver, type RunTally } from '../loop/runDriver.js';
import { resolveModel } from '../loop/models.js';
import type { UsageAccumulator } from '../loop/usage.js';
import {
  newTaskId,
  stoppedSummary,
  type TaskEnd,
  type TaskEvent,
  type TaskRecord,
  type TaskRegistry,
  type TaskUsage,
} from '../tasks/registry.js';
import { BACKGROUND_DISABLED_MESSAGE, backgroundTasksDisabled } from '../../tools/foreground.js';
import { startProgressSummaries, summariesWanted, summaryIntervalMs, type SummaryLoop } from './progressSummary.js';
import { agentToolNames, type AgentCatalog, type AgentDef } from './definitions.js';
import { envBlock } from '../prompt/systemPrompt.js';
import { FORK_AGENT, forkBase, forkHistory } from './fork.js';
import { subagentTranscriptPath, Transcript, type TranscriptIdentity } from '../transcript/transcript.js';
import { logWarning } from '../util/log.js';
import { subagentHostView } from './hostView.js';

export interface SubagentHookInput {
  agent_id: string;
  agent_type: string;
  agent_transcript_path: string;
}

export interface SubagentDeps {
  catalog: AgentCatalog;
  registry: TaskRegistry;
  /** The session's offered tools: each agent's subset is taken from these. */
  tools: () => Tool[];
  /** Writes a background subagent's loop event as a protocol line. */
  emitEvent: (ev: LoopEvent) => void | Promise<void>;
  /** The session's folder: subagent transcripts go to its subagents/agent-<id>.jsonl. */
  sessionFolder: () => string;
  /** Session id, cwd and version written on every transcript line. */
  transcriptIdentity: () => Omit<TranscriptIdentity, 'agentId'>;
  /** initialize.agentProgressSummaries: running agents get periodic model-written summaries. */
  progressSummaries?: () => boolean;
  /** initialize.appendSubagentSystemPrompt: text added to every subagent's system prompt. */
  subagentAppend?: () => string | undefined;
  /** Whether a host gets a subagent's text and thinking too (forwardSubagentText); absent: it does. */
  forwardSubagentText?: () => boolean;
}

export interface PrepareOptions {
  /** Its own abort (its task's, or the turn's while a call blocks on it). */
  signal: AbortSignal;
  agentId: string;
  transcriptPath: string;
  /** isolation: "worktree": the worktree it works in. */
  worktree?: Worktree;
  /** A fork: the parent's conversation it goes on from (forkBase). */
  fork?: HistoryMessage[];
  /** A teammate: its team and name there, and the lead's tools it never gets. */
  member?: { team: NonNullable<ToolServices['team']>; name: string; withoutTools: ReadonlySet<string> };
  /** The agent's definition when it is not the catalog's (a workflow's agents: src/workflows). */
  def?: AgentDef;
  /** Tools it gets besides its definition's (a workflow agent's StructuredOutput). */
  extraTools?: Tool[];
}

export interface Prepared {
  def: AgentDef;
  agentId: string;
  model: string;
  /** What the agent's loop has of its own: a run's config is deriveChildConfig(parent, spec). */
  spec: ChildLoopSpec;
  /** Its config for one run (a teammate derives one per run, with what is left of its limits). */
  cfg: LoopConfig;
  parent: LoopConfig;
  history: HistoryMessage[];
  transcriptPath: string;
  /** isolation: "worktree": the worktree it works in. */
  worktree?: Worktree;
}

/** isolation: "worktree": a fresh worktree for the agent; a folder outside git is a clear tool error. */
async function isolatedWorktree(
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

/** After the agent: an unchanged worktree is removed; one with changes is kept, and the note says where. */
async function releaseWorktree(wt: Worktree | undefined): Promise<{ kept: boolean; note: string }> {
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

export function resolveSubagentModel(requested: string | undefined, parentModel: string): string {
  if (!requested || requested === 'inherit') return parentModel;
  return resolveModel(requested);
}

/** [the agent's instructions, the environment]: cached like the main agent's (promptCache.ts). */
export function subagentSystemPrompt(
  def: AgentDef,
  cwd: string,
  append?: string,
): Array<{ type: 'text'; text: string }> {
  return [
    { type: 'text', text: def.prompt },
    { type: 'text', text: envBlock(cwd) },
    ...(append ? [{ type: 'text' as const, text: append }] : []),
  ];
}

/** A subagent's loop event as its transcript line (deltas and progress are not kept). */
export function recordEvent(transcript: Transcript, ev: LoopEvent): void {
  if (ev.type === 'assistant')
    transcript.appendMessage({
      type: 'assistant',
      message: ev.message,
      ...(ev.message.model === '<synthetic>' ? { isApiErrorMessage: true } : {}),
    });
  else if (ev.type === 'tool_result')
    transcript.appendMessage({
      type: 'user',
      message: { role: 'user', content: [ev.block] },
      ...(ev.data !== undefined ? { toolUseResult: ev.data } : {}),
    });
}

export function stats(events: { toolUses: number }, usage: UsageAccumulator, started: number): TaskUsage {
  const t = usage.totals();
  return {
    total_tokens: t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens,
    tool_uses: events.toolUses,
    duration_ms: Date.now() - started,
  };
}

function hookInput(p: Prepared): SubagentHookInput {
  return { agent_id: p.agentId, agent_type: p.def.name, agent_transcript_path: p.transcriptPath };
}

function failureText(outcome: LoopOutcome): string {
  return outcome.interrupted ? 'Agent was interrupted' : `Agent failed: ${outcome.resultText}`;
}

export class SubagentRunner implements SubagentService {
  constructor(private readonly deps: SubagentDeps) {}

  list(): SubagentSummary[] {
    const available = this.deps.tools().map((t) => t.name);
    return this.deps.catalog.all().map((d) => ({
      name: d.name,
      description: d.description,
      ...(d.tools || d.disallowedTools ? { tools: agentToolNames(d, available) } : {}),
    }));
  }

  /**
   * One agent of `req`'s type under the calling loop (teammates use it too): its loop spec, and its
   * config derived from the caller's (deriveChildConfig) with its services (deriveChildServices).
   */
  prepare(req: SubagentRequest, ctx: ToolContext, o: PrepareOptions): Prepared {
    const loop = callingLoop(ctx);
    if (!loop) throw new ToolError('Subagents can only run inside a session run');
    const { signal, agentId, transcriptPath, worktree, fork, member } = o;
    const parent = loop.config;
    const def = o.def ?? (fork ? FORK_AGENT : this.deps.catalog.get(req.subagentType));
    if (!def)
      throw new ToolError(
        `Agent type '${req.subagentType}' not found. Available agents: ${this.deps.catalog.names().join(', ')}`,
      );
    const all = this.deps.tools();
    const names = new Set(
      agentToolNames(
        def,
        all.map((t) => t.name),
      ),
    );
    // A fork sends what its parent sends (model, system prompt, tools) so its request reads the
    // parent's cache; without the subagents service its Task/Agent calls fail (no forks of forks).
    const offered = fork ? parent.tools : all.filter((t) => names.has(t.name));
    const tools = [
      ...(member ? offered.filter((t) => !member.withoutTools.has(t.name)) : offered),
      ...(o.extraTools ?? []),
    ];
    const model = fork ? parent.model() : resolveSubagentModel(req.model ?? def.model, parent.model());
    const readFiles = new Map();
    // Its own todo list; no Task service: agents cannot launch agents of their own.
    // Nor a foreground list: a host's background_tasks moves the main thread's calls, not an agent's.
    const services = deriveChildServices(ctx.services, {
      agentId,
      todos: createTodoStore(),
      ...(member ? { member: { team: member.team, name: member.name } } : {}),
    });
    // In its own worktree, the agent's tools and relative paths work from there.
    const cwd = worktree?.path ?? ctx.cwd;
    const who: SubagentHookInput = { agent_id: agentId, agent_type: def.name, agent_transcript_path: transcriptPath };
    // SubagentStop hooks take the place of Stop hooks: a block sends the agent back to work.
    const hooks = parent.pipeline.hooks;
    const stopHook = hooks
      ? async (active: boolean): Promise<StopHookVerdict | undefined> => {
          if (!hooks.has('SubagentStop')) return undefined;
          const out = await hooks.run(
            'SubagentStop',
            { ...who, stop_hook_active: active },
            { matchValue: def.name, signal },
          );
          if (out.stop) return { preventContinuation: out.stop.reason };
          return out.blockReason !== undefined ? { blockReason: out.blockReason } : undefined;
        }
      : undefined;
    const spec: ChildLoopSpec = {
      model,
      system: fork ? parent.system : subagentSystemPrompt(def, cwd, this.deps.subagentAppend?.()),
      tools,
      maxTurns: req.maxTurns ?? def.maxTurns,
      signal,
      toolContext: (toolUseId) => ({
        cwd,
        signal,
        sessionId: ctx.sessionId,
        readFiles,
        scratchDir: ctx.scratchDir,
        toolUseId,
        services,
      }),
      parentToolUseId: ctx.toolUseId,
      ...(stopHook ? { stopHook } : {}),
      // Permission rules and working directories seen from the worktree (the session's rules all the same).
      ...(worktree ? { permissionsFrom: worktree.path } : {}),
    };
    return {
      def,
      agentId,
      model,
      spec,
      cfg: loop.spawn(spec).config,
      parent,
      history: fork ? forkHistory(fork, ctx.toolUseId, req.prompt) : [{ role: 'user', content: req.prompt }],
      transcriptPath,
      ...(worktree ? { worktree } : {}),
    };
  }

  /** A fork, unless an agent definition of that name takes its place. */
  private isFork(req: SubagentRequest): boolean {
    return req.subagentType === FORK_AGENT.name && !this.deps.catalog.get(req.subagentType);
  }

  /** `<session>/subagents/agent-<id>.jsonl` (its folder made). */
  transcriptPath(agentId: string): string {
    const path = subagentTranscriptPath(this.deps.sessionFolder(), agentId);
    makeDirs(dirname(path));
    return path;
  }

  /** The agent's transcript: a side chain of the session (a teammate's lines name its team). */
  openTranscript(p: Prepared, teamName?: string): Transcript {
    return new Transcript(p.transcriptPath, {
      ...this.deps.transcriptIdentity(),
      agentId: p.agentId,
      ...(teamName ? { teamName } : {}),
    });
  }

  /** SubagentStart, through the parent pipeline's hook runner (matcher: the agent type). */
  private async fireStart(p: Prepared, signal: AbortSignal): Promise<void> {
    const hooks = p.parent.pipeline.hooks;
    if (!hooks?.has('SubagentStart')) return;
    try {
      const out = await hooks.run('SubagentStart', hookInput(p), { matchValue: p.def.name, signal });
      // A SubagentStart hook's additionalContext is given to the agent with its prompt (a fork's
      // prompt is its last message: the parent's conversation before it stays as it was sent).
      const at = p.history.length - 1;
      const prompt = p.history[at];
      if (out.additionalContext.length)
        p.history[at] = {
          role: 'user',
          content:
            typeof prompt.content === 'string'
              ? [prompt.content, ...out.additionalContext].join('\n\n')
              : [...(prompt.content as object[]), ...out.additionalContext.map((text) => ({ type: 'text', text }))],
        } as HistoryMessage;
    } catch (err) {
      logWarning(`SubagentStart hook failed: ${(err as Error).message}`);
    }
  }

  /**
   * Fire SubagentStart, then drive the run to its outcome through the one driver, each event kept
   * in the transcript and handed to `onEvent`; what that returns, if anything, is yielded onward.
   * Never throws: a fault is an error outcome.
   */
  private async *session<Y>(
    p: Prepared,
    signal: AbortSignal,
    transcript: Transcript,
    driver: RunDriver,
    onEvent: (ev: LoopEvent) => Y | undefined | Promise<Y | undefined>,
  ): AsyncGenerator<Y, LoopOutcome, void> {
    // The prompt opens the transcript, so the file exists for SubagentStart hooks and readers.
    transcript.appendMessage({ type: 'user', message: p.history[p.history.length - 1] });
    await this.fireStart(p, signal);
    const gen = driver.run(p.cfg);
    for (;;) {
      const step = await gen.next();
      if (step.done) return step.value;
      recordEvent(transcript, step.value);
      const out = await onEvent(step.value);
      if (out !== undefined) yield out;
    }
  }

  /** A subagent's event as the host gets it (its transcript has every event). */
  private hostView(ev: LoopEvent): LoopEvent | undefined {
    return subagentHostView(ev, this.deps.forwardSubagentText?.() ?? true);
  }

  async *run(req: SubagentRequest, ctx: ToolContext): AsyncGenerator<ToolProgress, ToolResult, void> {
    const registry = this.deps.registry;
    // Its agent id is its task id, as for a background agent (hooks' agent_id, the transcript's name).
    const agentId = newTaskId('local_agent');
    const worktree = await isolatedWorktree(req, ctx, agentId);
    // Its own abort: tied to the turn while the call blocks on it, and to its task (stop_task,
    // TaskStop) always; once a host moves it to the background (background_tasks), only the task.
    const own = new AbortController();
    const onTurnAbort = () => own.abort();
    if (ctx.signal.aborted) own.abort();
    else ctx.signal.addEventListener('abort', onTurnAbort, { once: true });
    let p: Prepared;
    try {
      const fork = this.isFork(req) ? await forkBase(ctx) : undefined;
      p = this.prepare(req, ctx, {
        signal: own.signal,
        agentId,
        transcriptPath: this.transcriptPath(agentId),
        worktree,
        fork,
      });
    } catch (err) {
      ctx.signal.removeEventListener('abort', onTurnAbort);
      await releaseWorktree(worktree);
      throw err;
    }
    // Its task lines go out through this call, in their place among the agent's messages (the
    // tool batch holds those until the parent's assistant message is out).
    const lines: TaskEvent[] = [];
    let wake: (() => void) | undefined;
    const asProgress = (event: TaskEvent): ToolProgress => ({
      type: 'forward',
      event: { type: 'task', parentToolUseId: null, event },
    });
    // Announced only once it can run: an unknown type or a failed worktree leaves no task row.
    // Its output file is its transcript itself: a foreground agent needs no task output folder.
    const rec = registry.register('local_agent', {
      id: agentId,
      description: req.description,
      toolUseId: ctx.toolUseId,
      subagentType: req.subagentType,
      prompt: req.prompt,
      // Agents cannot spawn agents here: every one is a top-level spawn.
      spawnDepth: 1,
      foreground: true,
      outputFile: p.transcriptPath,
      route: (event) => {
        lines.push(event);
        wake?.();
      },
    });
    rec.abort.signal.addEventListener('abort', () => own.abort(), { once: true });
    const started = Date.now();
    const driver = new RunDriver(p.history);
    const counters: RunTally = driver.tally;
    const transcript = this.openTranscript(p);
    const summaries = this.summarize(p, rec.id, counters, started);
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
      const events = this.session(p, own.signal, transcript, driver, (ev) => ev);
      let next = events.next();
      for (;;) {
        while (lines.length) yield asProgress(lines.shift()!);
        // A task line from outside this loop (a progress summary, a stop) wakes it too.
        const woken = new Promise<'line'>((r) => (wake = () => r('line')));
        const first = await Promise.race([next, movedToBackground, woken]);
        wake = undefined;
        if (first === 'line') continue;
        if (first === 'moved') {
          backgrounded = true;
          ctx.signal.removeEventListener('abort', onTurnAbort);
          const result = this.moveToBackground(req, p, own, rec, {
            events,
            next,
            counters,
            started,
            transcript,
            summaries,
          });
          while (lines.length) yield asProgress(lines.shift()!);
          return result;
        }
        if (first.done) {
          outcome = first.value;
          break;
        }
        const shown = this.hostView(first.value);
        if (shown) yield { type: 'forward', event: shown };
        // After the turn's message: the row's usage so far, as for a background agent.
        if (first.value.type === 'assistant')
          registry.progress(rec.id, stats(counters, p.cfg.usage, started), counters.lastTool);
        next = events.next();
      }
    } finally {
      leave?.();
      if (!backgrounded) {
        summaries?.stop();
        ctx.signal.removeEventListener('abort', onTurnAbort);
        transcript.close();
        // The call was abandoned (its consumer stopped pulling): the row still gets its end, directly.
        if (!outcome) {
          delete rec.route;
          registry.finish(rec.id, {
            status: 'stopped',
            summary: stoppedSummary(rec),
            usage: stats(counters, p.cfg.usage, started),
          });
        }
      }
    }
    const released = await releaseWorktree(worktree);
    const where = released.kept && worktree ? { worktreePath: worktree.path, worktreeBranch: worktree.branch } : {};
    const withNote = (t: string) => (released.note ? `${t}\n\n${released.note}` : t);
    const s = stats(counters, p.cfg.usage, started);
    const t = p.cfg.usage.totals();
    const base = {
      agentId,
      agentType: p.def.name,
      prompt: req.prompt,
      resolvedModel: p.model,
      totalToolUseCount: s.tool_uses,
      totalDurationMs: s.duration_ms,
      totalTokens: s.total_tokens,
      usage: {
        input_tokens: t.input_tokens,
        output_tokens: t.output_tokens,
        cache_creation_input_tokens: t.cache_creation_input_tokens,
        cache_read_input_tokens: t.cache_read_input_tokens,
      },
    };
    if (outcome.subtype !== 'success') {
      // Stopped from its row (stop_task, TaskStop) while the turn goes on: say so, not "interrupted".
      const failed = withNote(
        rec.abort.signal.aborted && !ctx.signal.aborted ? stoppedSummary(rec) : failureText(outcome),
      );
      const end: TaskEnd = own.signal.aborted
        ? { status: 'stopped', summary: withNote(stoppedSummary(rec)), usage: s }
        : { status: 'failed', summary: failed, resultText: failed, usage: s };
      registry.finish(rec.id, end);
      while (lines.length) yield asProgress(lines.shift()!);
      return {
        content: failed,
        isError: true,
        data: { ...base, ...where, status: 'failed', error: outcome.resultText },
      };
    }
    const answer = outcome.resultText.trim() ? outcome.resultText : '(the agent finished without a final message)';
    const text = withNote(answer);
    registry.finish(rec.id, { status: 'completed', summary: text, resultText: text, usage: s });
    while (lines.length) yield asProgress(lines.shift()!);
    return {
      content: text,
      data: { ...base, status: 'completed', content: [{ type: 'text', text: outcome.resultText }], ...where },
    };
  }

  async startBackground(req: SubagentRequest, ctx: ToolContext): Promise<ToolResult> {
    const registry = this.deps.registry;
    if (backgroundTasksDisabled())
      throw new ToolError(`run_in_background: ${BACKGROUND_DISABLED_MESSAGE}; call the agent without it`);
    // Validate before anything is registered: an unknown type must not leave a phantom task.
    if (!this.deps.catalog.get(req.subagentType))
      throw new ToolError(
        `Agent type '${req.subagentType}' not found. Available agents: ${this.deps.catalog.names().join(', ')}`,
      );
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
      const fork = this.isFork(req) ? await forkBase(ctx) : undefined;
      p = this.prepare(req, ctx, {
        signal: rec.abort.signal,
        agentId: rec.id,
        transcriptPath: this.transcriptPath(rec.id),
        worktree,
        fork,
      });
      // The task's output file is its transcript, kept with the session's other subagents.
      symlinkSync(p.transcriptPath, rec.outputFile);
    } catch (err) {
      registry.finish(rec.id, { status: 'failed', summary: (err as Error).message });
      await releaseWorktree(worktree);
      throw err;
    }
    void this.runBackground(p, rec.id);
    return asyncLaunched(
      `Async agent launched successfully.\nagentId: ${rec.id} (task id)\nThe agent is working in the background; you will be notified when it completes.`,
      rec,
      req,
      p.model,
    );
  }

  /**
   * A running foreground agent becomes a background task: the same task (id, row, output file),
   * now in the live set (task_updated is_backgrounded), stopped only by its task's abort, its
   * remaining events written directly; the Task call returns at once.
   */
  private moveToBackground(
    req: SubagentRequest,
    p: Prepared,
    own: AbortController,
    rec: TaskRecord,
    run: {
      events: AsyncGenerator<LoopEvent, LoopOutcome, void>;
      next: Promise<IteratorResult<LoopEvent, LoopOutcome>>;
      counters: { toolUses: number; lastTool?: string };
      started: number;
      transcript: Transcript;
      summaries: SummaryLoop | undefined;
    },
  ): ToolResult {
    const registry = this.deps.registry;
    registry.moveToBackground(rec.id);
    void (async () => {
      let outcome: LoopOutcome | undefined;
      try {
        let step = await run.next;
        while (!step.done) {
          const ev = step.value;
          const shown = this.hostView(ev);
          if (shown) await this.deps.emitEvent(shown);
          if (ev.type === 'assistant')
            registry.progress(rec.id, stats(run.counters, p.cfg.usage, run.started), run.counters.lastTool);
          step = await run.events.next();
        }
        outcome = step.value;
      } catch (err) {
        logWarning(`background agent ${rec.id}: ${(err as Error).message}`);
      } finally {
        run.summaries?.stop();
        run.transcript.close();
      }
      await this.finishTask(rec.id, outcome, own.signal, stats(run.counters, p.cfg.usage, run.started), p.worktree);
    })();
    return asyncLaunched(
      `The agent was moved to the background and is still working.\nagentId: ${rec.id} (task id)\nYou will be notified when it completes.`,
      rec,
      req,
      p.model,
    );
  }

  /** agentProgressSummaries for a running agent (foreground or background), when the host asked for them. */
  private summarize(
    p: Prepared,
    taskId: string,
    counters: { toolUses: number; lastTool?: string },
    started: number,
  ): SummaryLoop | undefined {
    if (!summariesWanted(this.deps.progressSummaries?.() ?? false)) return undefined;
    const registry = this.deps.registry;
    return startProgressSummaries(p.cfg, p.model, p.history, {
      intervalMs: summaryIntervalMs(),
      caller: `${taskId}:summary`,
      onSummary: (line) => registry.progress(taskId, stats(counters, p.cfg.usage, started), counters.lastTool, line),
    });
  }

  /** A background agent's end, as its task's notification (its worktree released first, and said). */
  private async finishTask(
    taskId: string,
    outcome: LoopOutcome | undefined,
    signal: AbortSignal,
    usage: TaskUsage,
    worktree: Prepared['worktree'],
  ): Promise<void> {
    const registry = this.deps.registry;
    const { note } = await releaseWorktree(worktree);
    const withNote = (t: string) => (note ? `${t}\n\n${note}` : t);
    if (signal.aborted) {
      registry.finish(taskId, {
        status: 'stopped',
        summary: withNote(`Agent "${registry.get(taskId)?.description}" was stopped`),
        usage,
      });
    } else if (outcome && outcome.subtype === 'success') {
      registry.finish(taskId, {
        status: 'completed',
        summary: withNote(outcome.resultText),
        resultText: withNote(outcome.resultText),
        usage,
      });
    } else {
      const text = withNote(outcome ? failureText(outcome) : 'Agent failed');
      registry.finish(taskId, { status: 'failed', summary: text, resultText: text, usage });
    }
  }

  private async runBackground(p: Prepared, taskId: string): Promise<void> {
    const registry = this.deps.registry;
    const started = Date.now();
    const driver = new RunDriver(p.history);
    const counters: RunTally = driver.tally;
    const transcript = this.openTranscript(p);
    let outcome: LoopOutcome | undefined;
    const signal = p.cfg.signal;
    const summaries = this.summarize(p, taskId, counters, started);
    try {
      // Nothing is yielded onward: the first step is the end.
      const events = this.session<never>(p, signal, transcript, driver, async (ev) => {
        const shown = this.hostView(ev);
        if (shown) await this.deps.emitEvent(shown);
        if (ev.type === 'assistant')
          registry.progress(taskId, stats(counters, p.cfg.usage, started), counters.lastTool);
        return undefined;
      });
      outcome = (await events.next()).value;
    } catch (err) {
      logWarning(`background agent ${taskId}: ${(err as Error).message}`);
    } finally {
      summaries?.stop();
      transcript.close();
    }
    await this.finishTask(taskId, outcome, signal, stats(counters, p.cfg.usage, started), p.worktree);
  }
}

/** The tool result of an agent now running in the background (launched so, or moved there). */
function asyncLaunched(
  lead: string,
  rec: { id: string; outputFile: string },
  req: { description: string; prompt: string },
  model: string,
) {
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
