// The agent loop: one recursion per model turn (run as a trampoline, see agentLoop). It streams
// one Messages API call, and either stops (no tool_use: Stop hooks, then return) or runs the tool
// calls and recurses. Every stop and continue condition of the reference lives here; nothing here
// knows about stdin or stdout.
import type { Tool, ToolContext } from '../../tools/tool.js';
import {
  apiRetryEvent,
  makeOutcome,
  type AssistantMessage,
  type HistoryContent,
  type HistoryMessage,
  type LoopEvent,
  type LoopOutcome,
} from './events.js';
import { ModelError } from './modelClient.js';
import type { ApiTool, CallModel, ModelRequest } from './model.js';
import type { UsageAccumulator } from './usage.js';
import type { SpendLedger } from './spendLedger.js';
import { ToolExecutor } from './toolBatch.js';
import { MessageAssembler } from './messageAssembler.js';
import type { ModelStreamEvent } from './model.js';
import type { PipelineDeps, ToolUseBlock } from './toolPipeline.js';
import { StructuredOutputTracker } from './structuredOutput.js';
import { resolveRequestOptions, type ReasoningSettings } from './requestOptions.js';
import { loopHandle } from './childLoop.js';
import type { DeferredTools } from './deferredTools.js';
import { autoCompact, isPromptTooLong, noteUsage, reactiveCompact, type CompactConfig } from './compaction.js';

export const MAX_TOKENS_RECOVERIES = 3;
export const MAX_STOP_HOOK_REPEATS = 5;
const MAX_TOKENS_RECOVERY_PROMPT =
  'Output token limit hit. Resume directly where you stopped — no apology, no recap. Break the remaining work into smaller pieces.';
export const INTERRUPT_TEXT = '[Request interrupted by user]';

export interface StopHookVerdict {
  /** Feed this back to the model and go on. */
  blockReason?: string;
  /** End the run now (continue:false). */
  preventContinuation?: string;
}

/** The beta header the API wants with `output_config.task_budget`. */
export const TASK_BUDGET_BETA = 'task-budgets-2026-03-13';

export interface LoopConfig {
  /** The model for the next call; read each turn so set_model takes effect between turns. */
  model: () => string;
  fallbackModel?: string;
  /** One string, or [static instructions, per-session environment block, ...]: each gets a cache mark. */
  system: ModelRequest['system'];
  tools: Tool[];
  apiTools: ApiTool[];
  /**
   * Tool search (deferredTools.ts): when set, the request's tools come from it (MCP tools may be
   * withheld until ToolSearch loads them) instead of `apiTools`.
   */
  deferredTools?: DeferredTools;
  /**
   * The model: the session's (SessionBase.callModel, its credential commands built in), which a
   * child loop inherits; a test, a recorder or a replayer gives another. Required, so no caller's
   * requests can go out without the session's credentials.
   */
  callModel: CallModel;
  /** See CompactConfig: the compaction threshold, else the environment's. */
  autoCompactPct?: CompactConfig['autoCompactPct'];
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** The session's one spend ledger: the budget is checked against everything it has recorded. */
  spend: SpendLedger;
  /** Thinking and effort wishes, read each turn (set_max_thinking_tokens changes them). */
  reasoning?: () => Omit<ReasoningSettings, 'maxOutputTokens'>;
  /** An upper bound on max_tokens (CLAUDE_CODE_MAX_OUTPUT_TOKENS); else the model's ceiling. */
  maxOutputTokens?: number;
  betas?: string[];
  /**
   * --task-budget: an advisory token budget the API counts down for the model across the agentic
   * loop (`output_config.task_budget` under its beta header). The main thread's only: a subagent is
   * a task of its own.
   */
  taskBudget?: number;
  signal: AbortSignal;
  /** This run's own usage; made by `spend.account()`, so each call it counts reaches the ledger. */
  usage: UsageAccumulator;
  toolContext: (toolUseId: string) => ToolContext;
  pipeline: PipelineDeps;
  parentToolUseId: string | null;
  stopHook?: (stopHookActive: boolean) => Promise<StopHookVerdict | undefined>;
  /** PreCompact hooks before a compaction (see compaction.ts); a blockReason cancels it. */
  preCompactHook?: CompactConfig['preCompactHook'];
  /**
   * Awaited before each model call: text that arrived meanwhile (a teammate's new mail) to add to
   * the conversation. It joins the last user message (the one holding the tool results), so every
   * tool_use still has its tool_result right after it. The caller records it in its transcript.
   */
  betweenTurns?: () => Promise<string | undefined>;
}

interface TurnState {
  turn: number;
  maxTokensRecoveries: number;
  fallbackUsed: boolean;
  stopHookRepeats: number;
  apiMs: number;
  /** Present when the StructuredOutput tool is offered (see structuredOutput.ts). */
  structured?: StructuredOutputTracker;
  /** A "prompt is too long" 400 was answered by compacting; a second one in a row is the result. */
  reactiveCompacted?: boolean;
  /** Tells tool calls waiting for their reply's message (a fork) that the history changed. */
  assistantAdded?: () => void;
}

/** Runs until the model stops; appends everything it says and every tool result to `history`. */
export async function* agentLoop(
  history: HistoryMessage[],
  cfg: LoopConfig,
): AsyncGenerator<LoopEvent, LoopOutcome, void> {
  // Tools the history already used (a resumed session) are offered again: the API wants them defined.
  cfg.deferredTools?.loadUsedIn(history);
  const st: TurnState = {
    turn: 1,
    maxTokensRecoveries: 0,
    fallbackUsed: false,
    stopHookRepeats: 0,
    apiMs: 0,
    structured: StructuredOutputTracker.forTools(cfg.tools),
  };
  // Each tool call learns which loop made it (ctx.loop): Task and teammates start children from it.
  const handle = loopHandle(cfg, history);
  st.assistantAdded = () => handle.historyChanged();
  const loopCfg: LoopConfig = { ...cfg, toolContext: (id) => ({ ...cfg.toolContext(id), loop: handle }) };
  // Each turn either ends the run or asks for the next one. The recursion of the reference is
  // kept as a trampoline: nested `yield*` would pass every event of turn N through N generator
  // frames (a microtask hop each), so a long session would slow down turn by turn.
  let next: Recurse = { recurse: true };
  for (;;) {
    const step: LoopOutcome | Recurse = yield* turn(history, loopCfg, st, next.modelOverride);
    handle.historyChanged(); // a turn that ended without its reply releases whoever waited for it
    if (!('recurse' in step)) return step;
    next = step;
  }
}

/** What a turn returns to ask for the next turn (with the model it must keep using). */
interface Recurse {
  recurse: true;
  modelOverride?: string;
}

async function* turn(
  history: HistoryMessage[],
  cfg: LoopConfig,
  st: TurnState,
  modelOverride?: string,
): AsyncGenerator<LoopEvent, LoopOutcome | Recurse, void> {
  const scope = { parentToolUseId: cfg.parentToolUseId };
  const outcome = (
    subtype: LoopOutcome['subtype'],
    resultText: string,
    extra: Partial<LoopOutcome> = {},
  ): LoopOutcome => makeOutcome(subtype, resultText, { numTurns: st.turn, durationApiMs: st.apiMs, ...extra });

  if (cfg.signal.aborted)
    return outcome('error_during_execution', INTERRUPT_TEXT, { interrupted: true, numTurns: st.turn - 1 });
  const arrived = await cfg.betweenTurns?.();
  if (arrived) appendToLastUser(history, arrived);

  // 1. Compact the history if the last reply's context is near the window; then one streamed API
  // call (with retries inside the client, and one switch to the fallback model).
  const model = modelOverride ?? cfg.model();
  const compacted = yield* autoCompact(history, cfg, model);
  st.apiMs += compacted.durationMs;
  // The deferred tools' names, when the model has not been told them (or was, before a compaction).
  if (compacted.compacted) cfg.deferredTools?.forgetAnnouncement();
  const deferredNote = cfg.deferredTools?.takeAnnouncement();
  if (deferredNote) {
    appendToLastUser(history, deferredNote.text);
    yield { type: 'deferred_tools', ...scope, names: deferredNote.names, text: deferredNote.text };
  }
  const opts = resolveRequestOptions(model, { ...cfg.reasoning?.(), maxOutputTokens: cfg.maxOutputTokens });
  let message: AssistantMessage | undefined;
  // Tools start as their blocks complete (toolBatch.ts). Once one has started, the reply is not
  // retried (a retry could call the same tool again): a failed stream keeps its complete blocks.
  const tools = new ToolExecutor(cfg, scope.parentToolUseId);
  const assembler = new MessageAssembler();
  const cutAfterTools = (): AssistantMessage | undefined =>
    tools.startedCount > 0 ? ((assembler.partial() ?? undefined) as AssistantMessage | undefined) : undefined;
  let failure: unknown;
  /** How many of the current reply's blocks went out as assistant_block events. */
  let blocksShown = 0;
  try {
    for await (const ev of cfg.callModel({
      model,
      system: cfg.system,
      messages: history,
      tools: cfg.deferredTools?.apiTools() ?? cfg.apiTools,
      maxTokens: opts.maxTokens,
      thinking: opts.thinking,
      effort: opts.effort,
      betas: cfg.taskBudget
        ? [...(cfg.betas ?? []).filter((b) => b !== TASK_BUDGET_BETA), TASK_BUDGET_BETA]
        : cfg.betas,
      ...(cfg.taskBudget ? { taskBudget: { total: cfg.taskBudget } } : {}),
      signal: cfg.signal,
      caller: cfg.parentToolUseId,
    })) {
      if (ev.type === 'stream_event') {
        // A block that just completed goes out as its own assistant line first (before the
        // content_block_stop delta, as the reference orders them), and only then does its call
        // start: a host has the tool_use before any permission question or hook for it.
        if (ev.event.type === 'message_start') blocksShown = 0;
        const shown = feedAssembler(ev.event, assembler, cfg);
        if (shown) {
          blocksShown++;
          yield { ...scope, type: 'assistant_block', message: shown };
        }
        yield { ...scope, type: 'stream_event', event: ev.event };
        const block = shown?.content[0];
        if (block?.type === 'tool_use') tools.add(block as unknown as ToolUseBlock);
      } else if (ev.type === 'api_retry') {
        message = cutAfterTools();
        if (message) break;
        yield apiRetryEvent(scope.parentToolUseId, ev);
      } else {
        message = ev.message;
        st.apiMs += ev.durationMs;
      }
    }
  } catch (err) {
    failure = err;
    message = cfg.signal.aborted ? undefined : cutAfterTools();
  }
  if (!message && failure !== undefined) {
    const err = failure;
    if (cfg.signal.aborted) return outcome('error_during_execution', INTERRUPT_TEXT, { interrupted: true });
    const e = err instanceof ModelError ? err : new ModelError(err instanceof Error ? err.message : String(err));
    if (isPromptTooLong(e) && !st.reactiveCompacted) {
      st.reactiveCompacted = true;
      const compacted = yield* reactiveCompact(history, cfg, model, e);
      st.apiMs += compacted.durationMs;
      if (compacted.compacted) return { recurse: true, modelOverride };
    }
    if (e.retryable && cfg.fallbackModel && !st.fallbackUsed && cfg.fallbackModel !== model) {
      st.fallbackUsed = true;
      yield { ...scope, type: 'model_fallback', from: model, to: cfg.fallbackModel, error: e.message };
      return { recurse: true, modelOverride: cfg.fallbackModel };
    }
    const text =
      e.message.startsWith('API Error') || e.kind === 'no_credentials' || e.kind === 'replay'
        ? e.message
        : `API Error: ${e.message}`;
    yield { ...scope, type: 'assistant', message: syntheticAssistant(text), error: e.category };
    return outcome('error_during_execution', text, {
      terminalReason: isPromptTooLong(e) ? 'prompt_too_long' : 'api_error',
    });
  }
  if (!message) return outcome('error_during_execution', 'API Error: the stream ended without a message');

  cfg.usage.add(message.model || model, message.usage);
  noteUsage(history, message.usage);
  st.reactiveCompacted = false;
  history.push({ role: 'assistant', content: message.content });
  st.assistantAdded?.();
  yield { ...scope, type: 'assistant', message, ...(blocksShown > 0 ? { blocksShown: true } : {}) };

  const toolUses = message.content.filter(isToolUse);
  const text = finalText(message);

  // 2. No tool_use: max_tokens recovery, else Stop hooks, then the run is done.
  if (toolUses.length === 0) {
    if (message.stop_reason === 'max_tokens' && st.maxTokensRecoveries < MAX_TOKENS_RECOVERIES) {
      st.maxTokensRecoveries++;
      history.push({ role: 'user', content: MAX_TOKENS_RECOVERY_PROMPT });
      const limit = checkLimits(cfg, st);
      if (limit) return outcome(limit.subtype, limit.text);
      st.turn++;
      return { recurse: true, modelOverride };
    }
    if (cfg.stopHook) {
      const verdict = await cfg.stopHook(st.stopHookRepeats > 0);
      if (verdict?.preventContinuation !== undefined)
        return outcome('success', text, { stopReason: message.stop_reason, terminalReason: 'stop_hook_prevented' });
      if (verdict?.blockReason && st.stopHookRepeats < MAX_STOP_HOOK_REPEATS) {
        st.stopHookRepeats++;
        history.push({ role: 'user', content: `Stop hook feedback:\n${verdict.blockReason}` });
        const limit = checkLimits(cfg, st);
        if (limit) return outcome(limit.subtype, limit.text);
        st.turn++;
        return { recurse: true, modelOverride };
      }
    }
    const so = st.structured?.onEndTurn();
    if (so?.kind === 'remind') {
      history.push({ role: 'user', content: so.text });
      const limit = checkLimits(cfg, st);
      if (limit) return outcome(limit.subtype, limit.text);
      st.turn++;
      return { recurse: true, modelOverride };
    }
    if (so) return outcome('error_max_structured_output_retries', so.text, { stopReason: message.stop_reason });
    return outcome('success', text, { stopReason: message.stop_reason });
  }

  // A deferred tool called by name without ToolSearch is offered from now on: the API wants every
  // tool the history calls defined.
  cfg.deferredTools?.loadUsedIn([{ role: 'assistant', content: message.content }]);
  // 3. Run the tool calls; their results go back as one user message.
  const batch = yield* tools.finish(toolUses);
  history.push({ role: 'user', content: [...batch.results, ...batch.extraContent] as HistoryContent });
  if (cfg.signal.aborted)
    return outcome('error_during_execution', INTERRUPT_TEXT, { interrupted: true, terminalReason: 'aborted_tools' });
  if (batch.stopRun) return outcome('error_during_execution', batch.stopRun.reason, { terminalReason: 'hook_stopped' });
  const so = st.structured?.afterBatch(toolUses, batch.results, batch.data);
  if (so?.kind === 'done')
    return outcome('success', text || JSON.stringify(so.value), {
      stopReason: message.stop_reason,
      structuredOutput: so.value,
    });
  if (so) return outcome('error_max_structured_output_retries', so.text, { stopReason: message.stop_reason });

  // 4. Recurse, unless a limit says stop.
  st.turn++;
  const limit = checkLimits(cfg, st);
  if (limit) return outcome(limit.subtype, limit.text, { numTurns: st.turn - 1 });
  return { recurse: true, modelOverride };
}

/** Adds text to the last user message (or a new one): tool_use/tool_result pairs stay adjacent. */
function appendToLastUser(history: HistoryMessage[], text: string): void {
  const last = history[history.length - 1];
  if (last?.role !== 'user') {
    history.push({ role: 'user', content: text });
    return;
  }
  const prev: HistoryContent = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  last.content = [...prev, { type: 'text', text }] as HistoryContent;
}

/** Feeds the assembler; returns a block that just completed, as a message of its own. */
function feedAssembler(
  event: ModelStreamEvent,
  assembler: MessageAssembler,
  cfg: LoopConfig,
): AssistantMessage | undefined {
  try {
    assembler.add(event as never);
  } catch {
    return undefined; // a malformed stream is the model client's to report
  }
  if (event.type === 'content_block_start') {
    // A command is on its way (an execute tool's call): the sandbox makes its wrap while the input streams in.
    const block = (event as { content_block?: { type?: string; name?: string; id?: string } }).content_block;
    if (block?.type === 'tool_use' && cfg.tools.find((t) => t.name === block.name)?.kind === 'execute')
      cfg.toolContext(block.id ?? '').services?.sandbox?.prepare();
    return undefined;
  }
  if (event.type !== 'content_block_stop') return undefined;
  return assembler.blockMessage(event.index as number) as AssistantMessage | undefined;
}

function checkLimits(
  cfg: LoopConfig,
  st: TurnState,
): { subtype: 'error_max_turns' | 'error_max_budget_usd'; text: string } | undefined {
  if (cfg.maxTurns !== undefined && st.turn > cfg.maxTurns)
    return { subtype: 'error_max_turns', text: `Reached maximum number of turns (${cfg.maxTurns})` };
  if (cfg.maxBudgetUsd !== undefined && cfg.spend.spentUsd >= cfg.maxBudgetUsd)
    return {
      subtype: 'error_max_budget_usd',
      text: `Reached maximum budget ($${cfg.maxBudgetUsd}); spent $${cfg.spend.spentUsd.toFixed(4)}`,
    };
  return undefined;
}

function isToolUse(b: AssistantMessage['content'][number]): b is ToolUseBlock & AssistantMessage['content'][number] {
  return b.type === 'tool_use';
}

function finalText(message: AssistantMessage): string {
  return message.content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('');
}

function syntheticAssistant(text: string): AssistantMessage {
  return {
    id: `msg_synthetic_${Date.now().toString(36)}`,
    type: 'message',
    role: 'assistant',
    model: '<synthetic>',
    content: [{ type: 'text', text }],
    stop_reason: 'stop_sequence',
    stop_sequence: '',
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}
