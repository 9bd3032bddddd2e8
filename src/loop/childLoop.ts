// A loop started by a tool call of another loop (a subagent, a teammate). What the child inherits
// from its parent is named here, group by group, in one function, so nothing is inherited by
// accident and a new LoopConfig field has to be placed in a group.
import type { LoopHandle, Tool, ToolContext, ToolServices } from '../../tools/tool.js';
import type { TodoStore } from '../../tools/todoWrite.js';
import { toolApiSchema } from '../../tools/registry.js';
import type { LoopConfig, StopHookVerdict } from './agentLoop.js';
import { RunDriver } from './runDriver.js';
import type { HistoryMessage, LoopEvent, LoopOutcome } from './events.js';
import type { ModelRequest } from './model.js';
import { smallFastModel } from './models.js';
import { sideModelCall } from './sideCall.js';

/** What a child loop has of its own. */
export interface ChildLoopSpec {
  model: string;
  system: ModelRequest['system'];
  tools: Tool[];
  /** Its own turn limit; else the parent's. */
  maxTurns?: number;
  /** Its own abort (a background child outlives the tool call that started it). */
  signal: AbortSignal;
  /** Its own read-files map, todo list and services. */
  toolContext: (toolUseId: string) => ToolContext;
  /** The tool_use id that started it: every event it yields carries it. */
  parentToolUseId: string;
  /** Its own stop rule (SubagentStop hooks); the parent's Stop hooks never apply to a child. */
  stopHook?: (stopHookActive: boolean) => Promise<StopHookVerdict | undefined>;
  /** Its own between-turns input (a teammate's mail); never the parent's. */
  betweenTurns?: LoopConfig['betweenTurns'];
  /** Its working directory, when not the parent's (a worktree): permission rules are seen from there. */
  permissionsFrom?: string;
}

/** Every LoopConfig field, optional ones too: a field added to LoopConfig must be placed below. */
type EveryField = { [K in keyof Required<LoopConfig>]: LoopConfig[K] };

export function deriveChildConfig(parent: LoopConfig, spec: ChildLoopSpec): LoopConfig {
  const child: EveryField = {
    // Its own: identity, prompt, tools, abort, usage, tool context, stop rule.
    model: () => spec.model,
    system: spec.system,
    tools: spec.tools,
    apiTools: spec.tools.map(toolApiSchema),
    // Tool search works the same in the child; what it loads is its own.
    deferredTools: parent.deferredTools?.forTools(spec.tools),
    parentToolUseId: spec.parentToolUseId,
    signal: spec.signal,
    // Its own accumulator (its task row, its tool result), each call recorded in the session's ledger.
    usage: parent.spend.account(),
    toolContext: spec.toolContext,
    stopHook: spec.stopHook,
    betweenTurns: spec.betweenTurns,
    // Limits: the budget is the session's, checked against the one ledger every run records into
    // (a child that outlives its parent's run is never charged that run twice).
    maxTurns: spec.maxTurns ?? parent.maxTurns,
    maxBudgetUsd: parent.maxBudgetUsd,
    spend: parent.spend,
    // How the model is called: the same client (a recording or replay covers children too),
    // fallback, thinking, output cap, betas, compaction.
    callModel: parent.callModel,
    fallbackModel: parent.fallbackModel,
    reasoning: parent.reasoning,
    maxOutputTokens: parent.maxOutputTokens,
    betas: parent.betas,
    // The task budget counts down the parent's agentic loop; a child is a task of its own.
    taskBudget: undefined,
    autoCompactPct: parent.autoCompactPct,
    preCompactHook: parent.preCompactHook,
    // Permissions and hooks: the parent's pipeline (rules, mode, hooks, host questions, where
    // denials are counted), over the child's tools, seen from its own directory.
    pipeline: {
      ...parent.pipeline,
      tools: spec.tools,
      ...(spec.permissionsFrom && parent.pipeline.permissions
        ? { permissions: parent.pipeline.permissions.viewFrom(spec.permissionsFrom) }
        : {}),
    },
  };
  return child;
}

/** What a child agent has of its own among the tool services. */
export interface ChildServicesSpec {
  /** The subagent's id (its tools say whose work it is). */
  agentId: string;
  /** Its own todo list. */
  todos: TodoStore;
  /** A teammate: the team its tools reach and its name there (SendMessage's sender). */
  member?: { team: NonNullable<ToolServices['team']>; name: string };
}

/** Every ToolServices field, optional ones too: a service added to ToolServices must be placed below. */
type EveryService = { [K in keyof Required<ToolServices>]: ToolServices[K] };

/**
 * The services of a child agent's tools, group by group, so a new session service never reaches
 * subagents by accident.
 */
export function deriveChildServices(parent: ToolServices | undefined, spec: ChildServicesSpec): ToolServices {
  const child: EveryService = {
    // Its own: identity and todo list.
    agentId: spec.agentId,
    todos: spec.todos,
    // The session's, shared: the task list, background shells, the sandbox, the team it is in, file checkpoints.
    tasks: parent?.tasks,
    backgroundShell: parent?.backgroundShell,
    sandbox: parent?.sandbox,
    team: spec.member?.team ?? parent?.team,
    teamMember: spec.member?.name ?? parent?.teamMember,
    taskList: parent?.taskList,
    fileHistory: parent?.fileHistory,
    // A subagent's cross-session message goes out under the session's own address.
    peers: parent?.peers,
    // The main thread's alone: agents launch no agents; plan mode, the worktree, a loaded skill's
    // turn and the host's background_tasks move belong to the main conversation.
    subagents: undefined,
    planMode: undefined,
    worktrees: undefined,
    skills: undefined,
    foreground: undefined,
    schedule: undefined,
    monitor: undefined,
    workflows: undefined,
  };
  return child;
}

export interface ChildLoop {
  config: LoopConfig;
  /** Runs the child to its end over `history` (its prompt is the first user message), through the one driver. */
  run(history: HistoryMessage[]): AsyncGenerator<LoopEvent, LoopOutcome, void>;
}

/**
 * The loop's own handle on a tool call (`ctx.loop`): the contract's LoopHandle (what tools see:
 * the model, side calls, deferred tools), and what the subagent runner needs besides: the calling
 * loop's config and a way to start a child. Code in src/ gets it with `callingLoop(ctx)`.
 */
export interface AgentLoopHandle extends LoopHandle {
  /** The calling loop's config (its model, usage, hooks). */
  readonly config: LoopConfig;
  spawn(spec: ChildLoopSpec): ChildLoop;
  /**
   * A copy of the calling loop's conversation up to the assistant message that holds the tool
   * call `toolUseId` (a fork starts from it). A call starts while its reply still streams, so this
   * waits for that reply to be complete; null when the reply never completed.
   */
  conversationThrough(toolUseId: string, signal: AbortSignal): Promise<HistoryMessage[] | null>;
}

/** Every handle the loop made, by what tools see of it: a tool context's `loop` is one of them, or none. */
const handles = new WeakMap<LoopHandle, AgentLoopHandle>();

/** The loop that made this call, as the loop's own handle; undefined outside a loop run. */
export function callingLoop(ctx: ToolContext): AgentLoopHandle | undefined {
  return ctx.loop && handles.get(ctx.loop);
}

/** The handle, and what the loop calls each time its history gains an assistant message (or a turn ends). */
export function loopHandle(
  config: LoopConfig,
  history: HistoryMessage[],
): AgentLoopHandle & { historyChanged(): void } {
  const waiters = new Set<() => void>();
  const holding = (id: string) => {
    for (let i = history.length - 1; i >= 0; i--) {
      const m = history[i];
      const blocks =
        m.role === 'assistant' && Array.isArray(m.content) ? (m.content as Array<{ type?: string; id?: string }>) : [];
      if (blocks.some((b) => b.type === 'tool_use' && b.id === id)) return i;
    }
    return -1;
  };
  const handle: AgentLoopHandle & { historyChanged(): void } = {
    config,
    model: () => config.model(),
    smallFastModel: () => smallFastModel(),
    sideCall: (req) => sideModelCall(config, req),
    deferredTools: config.deferredTools,
    spawn(spec) {
      const child = deriveChildConfig(config, spec);
      return { config: child, run: (history) => new RunDriver(history).run(child) };
    },
    async conversationThrough(toolUseId, signal) {
      let at = holding(toolUseId);
      if (at < 0 && !signal.aborted) {
        // One change is enough: the reply that made this call is pushed when its stream ends.
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            signal.removeEventListener('abort', done);
            resolve();
          };
          waiters.add(done);
          signal.addEventListener('abort', done, { once: true });
        });
        at = holding(toolUseId);
      }
      return at < 0 ? null : structuredClone(history.slice(0, at + 1));
    },
    historyChanged() {
      for (const w of [...waiters]) w();
    },
  };
  handles.set(handle, handle);
  return handle;
}
