// One agent's run, made ready under the loop that calls it: its definition, its tool subset, its
// model, its services (deriveChildServices), its SubagentStop rule and its first history. Its loop
// config is derived from the caller's (deriveChildConfig), so it inherits the caller's permission
// and hook pipeline, fallback model and budget, and records its spend in the session's ledger.
// Subagents (foreground, background, forks), teammates and workflow agents are all prepared here.
import type { Tool, ToolContext, ToolServices } from '../../tools/tool.js';
import { ToolError } from '../../tools/tool.js';
import type { SubagentRequest } from '../../tools/task.js';
import { createTodoStore } from '../../tools/todoWrite.js';
import type { LoopConfig, StopHookVerdict } from '../loop/agentLoop.js';
import { deriveChildServices, type AgentLoopHandle, type ChildLoopSpec } from '../loop/childLoop.js';
import type { HistoryMessage } from '../loop/events.js';
import { chooseModel } from '../loop/models.js';
import { envBlock } from '../prompt/systemPrompt.js';
import type { Worktree } from '../worktrees/gitWorktree.js';
import { agentToolNames, type AgentCatalog, type AgentDef } from './definitions.js';
import { FORK_AGENT, forkHistory } from './fork.js';

/** Who the agent is, as SubagentStart and SubagentStop hooks get it. */
export interface SubagentHookInput {
  agent_id: string;
  agent_type: string;
  agent_transcript_path: string;
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

/** What preparing needs of the session. */
export interface PrepareDeps {
  catalog: AgentCatalog;
  /** The session's offered tools: each agent's subset is taken from these. */
  tools: () => Tool[];
  /** initialize.appendSubagentSystemPrompt: text added to every subagent's system prompt. */
  subagentAppend?: () => string | undefined;
  /** What will still wake the session (SubagentStop's `background_tasks` and `session_crons`). */
  stopState?: () => object;
  /** The session's default model (SessionConfig.defaultModel): what `model: default` means. */
  defaultModel: string;
}

/**
 * The call's model, else the definition's, else the parent's (none is `inherit`); `default` is the
 * session's default, as everywhere (models.ts chooseModel).
 */
export function resolveSubagentModel(
  requested: string | undefined,
  scope: { parentModel: string; sessionDefault: string },
): string {
  return chooseModel(requested ?? 'inherit', { sessionDefault: scope.sessionDefault, inherited: scope.parentModel });
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

export function hookInput(p: Prepared): SubagentHookInput {
  return { agent_id: p.agentId, agent_type: p.def.name, agent_transcript_path: p.transcriptPath };
}

export function unknownAgentType(type: string, catalog: AgentCatalog): ToolError {
  return new ToolError(`Agent type '${type}' not found. Available agents: ${catalog.names().join(', ')}`);
}

/** SubagentStop hooks take the place of Stop hooks: a block sends the agent back to work. */
function subagentStopRule(
  parent: LoopConfig,
  who: SubagentHookInput,
  signal: AbortSignal,
  state?: () => object,
): ChildLoopSpec['stopHook'] | undefined {
  const hooks = parent.pipeline.hooks;
  if (!hooks) return undefined;
  return async (active: boolean): Promise<StopHookVerdict | undefined> => {
    if (!hooks.has('SubagentStop')) return undefined;
    const out = await hooks.run(
      'SubagentStop',
      { ...who, stop_hook_active: active, ...state?.() },
      { matchValue: who.agent_type, signal },
    );
    if (out.stop) return { preventContinuation: out.stop.reason };
    return out.blockReason !== undefined ? { blockReason: out.blockReason } : undefined;
  };
}

/** The tools it is offered: its definition's subset of the session's (a fork: its parent's). */
function agentTools(deps: PrepareDeps, def: AgentDef, parent: LoopConfig, o: PrepareOptions): Tool[] {
  const all = deps.tools();
  const names = new Set(
    agentToolNames(
      def,
      all.map((t) => t.name),
    ),
  );
  // A fork sends what its parent sends (model, system prompt, tools) so its request reads the
  // parent's cache; without the subagents service its Task/Agent calls fail (no forks of forks).
  const offered = o.fork ? parent.tools : all.filter((t) => names.has(t.name));
  const { member } = o;
  return [...(member ? offered.filter((t) => !member.withoutTools.has(t.name)) : offered), ...(o.extraTools ?? [])];
}

/**
 * One agent of `req`'s type under the calling loop `loop`: its loop spec, and its config derived
 * from the caller's (deriveChildConfig) with its services (deriveChildServices).
 */
export function prepareAgent(
  deps: PrepareDeps,
  loop: AgentLoopHandle,
  req: SubagentRequest,
  ctx: ToolContext,
  o: PrepareOptions,
): Prepared {
  const { signal, agentId, transcriptPath, worktree, fork, member } = o;
  const parent = loop.config;
  const def = o.def ?? (fork ? FORK_AGENT : deps.catalog.get(req.subagentType));
  if (!def) throw unknownAgentType(req.subagentType, deps.catalog);
  const tools = agentTools(deps, def, parent, o);
  const model = fork
    ? parent.model()
    : resolveSubagentModel(req.model ?? def.model, {
        parentModel: parent.model(),
        sessionDefault: deps.defaultModel,
      });
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
  const stopHook = subagentStopRule(
    parent,
    { agent_id: agentId, agent_type: def.name, agent_transcript_path: transcriptPath },
    signal,
    deps.stopState,
  );
  const spec: ChildLoopSpec = {
    model,
    system: fork ? parent.system : subagentSystemPrompt(def, cwd, deps.subagentAppend?.()),
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
