// Automatic context compaction. Before each model call the loop asks `autoCompact`: when the last
// reply's usage (input + cache read + cache creation + output tokens) is above a share of the
// model's context window, PreCompact hooks run (a block cancels), one model call summarises the
// conversation, and the history is replaced in place by the summary plus the pending turn. A
// "prompt is too long" 400 asks `reactiveCompact` for the same, once, before the turn is retried.
// A failed summary leaves the history untouched: the run goes on and the API has the last word.
import type { HookRunner } from '../hooks/index.js';
import {
  apiRetryEvent,
  type AssistantMessage,
  type HistoryContent,
  type HistoryMessage,
  type LoopEvent,
} from './events.js';
import { ModelError } from './modelClient.js';
import type { ApiTool, CallModel, ModelRequest } from './model.js';
import { contextWindow } from './pricing.js';
import { resolveRequestOptions, type ReasoningSettings } from './requestOptions.js';
import type { UsageAccumulator } from './usage.js';
import { logWarning } from '../util/log.js';

export type CompactTrigger = 'manual' | 'auto';

/** What a PreCompact hook said: a blockReason cancels this compaction. */
export interface PreCompactVerdict {
  blockReason?: string;
}

export interface CompactConfig {
  model: () => string;
  system: ModelRequest['system'];
  apiTools: ApiTool[];
  /** Tool search: the tools the loop offers now (deferredTools.ts), else `apiTools`. */
  deferredTools?: { apiTools(): ApiTool[] };
  /** The session's model (LoopConfig.callModel). */
  callModel: CallModel;
  /** Percent of the context window that triggers compaction, false for never; default: the environment. */
  autoCompactPct?: number | false;
  maxOutputTokens?: number;
  reasoning?: () => Omit<ReasoningSettings, 'maxOutputTokens'>;
  betas?: string[];
  signal: AbortSignal;
  usage: UsageAccumulator;
  parentToolUseId: string | null;
  preCompactHook?: (trigger: CompactTrigger, signal: AbortSignal) => Promise<PreCompactVerdict | undefined>;
}

export const DEFAULT_AUTOCOMPACT_PCT = 80;

export const SUMMARY_INSTRUCTION =
  'Your task is to create a detailed summary of the conversation so far, so that the work can continue ' +
  'in a new context window that holds only this summary. Do not call any tools; answer with text only. ' +
  "Cover: the user's requests and intent (all of them, in order); key technical details, decisions and " +
  'constraints; files and code examined or changed (with the important snippets); errors met and how ' +
  'they were fixed; what was done last; and the pending tasks and the next step, if any. ' +
  'Start your answer with "Conversation summary:".';

export const SUMMARY_PREAMBLE =
  'This session is being continued from a previous conversation that ran out of context. ' +
  'The conversation so far is summarized below.\n\n';

/** The context size the last reply reported, per conversation (the session's history array). */
const lastContextTokens = new WeakMap<HistoryMessage[], number>();

export function contextTokens(usage: Record<string, unknown> | null | undefined): number {
  const n = (k: string) => (typeof usage?.[k] === 'number' ? (usage[k] as number) : 0);
  return n('input_tokens') + n('cache_read_input_tokens') + n('cache_creation_input_tokens') + n('output_tokens');
}

/** Remember the size of the context the last reply saw (call after every successful model call). */
export function noteUsage(history: HistoryMessage[], usage: Record<string, unknown> | null | undefined): void {
  lastContextTokens.set(history, contextTokens(usage));
}

/** AGENT_AUTOCOMPACT_PCT (else CLAUDE_AUTOCOMPACT_PCT_OVERRIDE), a percentage in (0, 100]; else 80. */
export function autoCompactPct(env: NodeJS.ProcessEnv = process.env): number {
  for (const v of [env.AGENT_AUTOCOMPACT_PCT, env.CLAUDE_AUTOCOMPACT_PCT_OVERRIDE]) {
    const n = v === undefined || v.trim() === '' ? NaN : Number(v);
    if (Number.isFinite(n) && n > 0 && n <= 100) return n;
  }
  return DEFAULT_AUTOCOMPACT_PCT;
}

export function autoCompactThreshold(model: string, env: NodeJS.ProcessEnv = process.env): number {
  return Math.floor((contextWindow(model) * autoCompactPct(env)) / 100);
}

/** The API's 400 for a conversation that no longer fits the context window. */
export function isPromptTooLong(e: unknown): boolean {
  return e instanceof ModelError && e.kind === 'invalid_request' && /prompt is too long/i.test(e.message);
}

export interface CompactResult {
  compacted: boolean;
  /** API time spent on the summary call(s). */
  durationMs: number;
}

const NOT_COMPACTED: CompactResult = { compacted: false, durationMs: 0 };

/** Step 1 of a turn: compact when the last reply's context is above the threshold. */
export async function* autoCompact(
  history: HistoryMessage[],
  cfg: CompactConfig,
  model: string,
): AsyncGenerator<LoopEvent, CompactResult, void> {
  const tokens = lastContextTokens.get(history);
  if (tokens === undefined) return NOT_COMPACTED;
  const pct = cfg.autoCompactPct ?? (isTruthy(process.env.DISABLE_AUTO_COMPACT) ? false : autoCompactPct());
  if (pct === false || tokens <= Math.floor((contextWindow(model) * pct) / 100)) return NOT_COMPACTED;
  return yield* compact(history, cfg, model, 'auto', tokens, false);
}

/**
 * /compact: summarise the whole conversation now, between turns (the history ends with a reply),
 * with the person's extra instructions; the summary alone then stands for the history.
 */
export async function* manualCompact(
  history: HistoryMessage[],
  cfg: CompactConfig,
  model: string,
  instructions: string,
): AsyncGenerator<LoopEvent, CompactResult & { error?: string }, void> {
  if (history.length === 0) return { ...NOT_COMPACTED, error: 'there is no conversation to compact yet' };
  if (cfg.preCompactHook) {
    let verdict: PreCompactVerdict | undefined;
    try {
      verdict = await cfg.preCompactHook('manual', cfg.signal);
    } catch (err) {
      verdict = { blockReason: err instanceof Error ? err.message : String(err) };
    }
    if (verdict?.blockReason !== undefined)
      return { ...NOT_COMPACTED, error: `a PreCompact hook blocked it: ${verdict.blockReason}` };
  }
  const preTokens = lastContextTokens.get(history) ?? 0;
  let r: { text: string; durationMs: number };
  yield* status(cfg, { status: 'compacting' });
  try {
    r = yield* summarise(history, cfg, model, instructions);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    yield* status(cfg, { status: null, result: 'failed', error });
    return { ...NOT_COMPACTED, error };
  }
  const error = cfg.signal.aborted ? 'interrupted' : !r.text ? 'the summary was empty' : undefined;
  if (error) {
    yield* status(cfg, { status: null, result: 'failed', error });
    return { compacted: false, durationMs: r.durationMs, error };
  }
  history.splice(0, history.length, { role: 'user', content: SUMMARY_PREAMBLE + r.text });
  lastContextTokens.delete(history);
  yield* status(cfg, { status: null, result: 'success' });
  yield { parentToolUseId: cfg.parentToolUseId, type: 'compact_boundary', trigger: 'manual', preTokens };
  return { compacted: true, durationMs: r.durationMs };
}

/** After a "prompt is too long" 400: compact (dropping the oldest turns from the summary request if it is too long too). */
export async function* reactiveCompact(
  history: HistoryMessage[],
  cfg: CompactConfig,
  model: string,
  error: ModelError,
): AsyncGenerator<LoopEvent, CompactResult, void> {
  const stated = /prompt is too long:\s*(\d+)\s*tokens/i.exec(error.message);
  const tokens = stated ? Number(stated[1]) : (lastContextTokens.get(history) ?? 0);
  return yield* compact(history, cfg, model, 'auto', tokens, true);
}

async function* compact(
  history: HistoryMessage[],
  cfg: CompactConfig,
  model: string,
  trigger: CompactTrigger,
  preTokens: number,
  tooLong: boolean,
): AsyncGenerator<LoopEvent, CompactResult, void> {
  const scope = { parentToolUseId: cfg.parentToolUseId };
  const last = history[history.length - 1];
  // Only between turns: the history ends with the pending user message (a prompt or tool results).
  if (last?.role !== 'user' || history.length < 2 || cfg.signal.aborted) return NOT_COMPACTED;

  if (cfg.preCompactHook) {
    let verdict: PreCompactVerdict | undefined;
    try {
      verdict = await cfg.preCompactHook(trigger, cfg.signal);
    } catch (err) {
      verdict = { blockReason: err instanceof Error ? err.message : String(err) }; // never compact past a broken hook
    }
    if (verdict?.blockReason !== undefined || cfg.signal.aborted) return NOT_COMPACTED;
  }

  // The pending turn is kept verbatim. Tool results need the assistant turn that called them.
  const keep = hasToolResult(last) && history[history.length - 2]?.role === 'assistant' ? 2 : 1;
  let source = history.slice();
  let durationMs = 0;
  const failed = function* (error: string) {
    logWarning(`compaction failed: ${error}`);
    yield* status(cfg, { status: null, result: 'failed', error });
    return { compacted: false, durationMs };
  };
  yield* status(cfg, { status: 'compacting' });
  // A too-long history is too long for the summary request as well: drop the oldest turns, a few times.
  for (let attempt = 0; attempt < (tooLong ? 4 : 1); attempt++) {
    let summary: string | undefined;
    try {
      const r = yield* summarise(source, cfg, model);
      durationMs += r.durationMs;
      summary = r.text;
    } catch (err) {
      if (cfg.signal.aborted) {
        yield* status(cfg, { status: null, result: 'failed', error: 'interrupted' });
        return { compacted: false, durationMs };
      }
      if (isPromptTooLong(err)) {
        const shorter = dropOldest(source);
        if (shorter) {
          source = shorter;
          continue;
        }
      }
      return yield* failed(err instanceof Error ? err.message : String(err));
    }
    if (!summary) return yield* failed('the summary was empty');
    const kept = history.slice(history.length - keep);
    const summaryText = SUMMARY_PREAMBLE + summary;
    const head: HistoryMessage =
      keep === 1
        ? {
            role: 'user',
            content: [{ type: 'text', text: summaryText }, ...blocksOf(kept[0] as HistoryMessage & { role: 'user' })],
          }
        : { role: 'user', content: summaryText };
    history.splice(0, history.length, head, ...(keep === 1 ? [] : kept));
    lastContextTokens.delete(history);
    yield* status(cfg, { status: null, result: 'success' });
    yield { ...scope, type: 'compact_boundary', trigger, preTokens };
    return { compacted: true, durationMs };
  }
  return yield* failed('the conversation is too long to summarise');
}

/**
 * The main agent tells the host it is compacting (system/status, as the reference does, measured
 * for /compact and auto-compaction): `compacting` before the summary request, then `null` with
 * compact_result (and compact_error when it failed) before the compact_boundary.
 */
function* status(
  cfg: CompactConfig,
  state: { status: 'compacting' | null; result?: 'success' | 'failed'; error?: string },
): Generator<LoopEvent, void, void> {
  if (cfg.parentToolUseId === null) yield { parentToolUseId: null, type: 'compact_status', ...state };
}

/** One model call that summarises `source`; its usage counts in the run's usage. */
async function* summarise(
  source: HistoryMessage[],
  cfg: CompactConfig,
  model: string,
  instructions = '',
): AsyncGenerator<LoopEvent, { text: string; durationMs: number }, void> {
  const scope = { parentToolUseId: cfg.parentToolUseId };
  const messages = withInstruction(source, instructions);
  let message: AssistantMessage | undefined;
  let durationMs = 0;
  for await (const ev of cfg.callModel({
    model,
    system: cfg.system,
    messages,
    // Offered but not callable: the API wants tools defined when the history holds tool blocks.
    tools: cfg.deferredTools?.apiTools() ?? cfg.apiTools,
    toolChoiceNone: true,
    // A summary needs no thinking; the effort is the session's.
    maxTokens: resolveRequestOptions(model, { maxOutputTokens: cfg.maxOutputTokens, thinking: 'disabled' }).maxTokens,
    effort: resolveRequestOptions(model, { ...cfg.reasoning?.(), thinking: 'disabled' }).effort,
    betas: cfg.betas,
    signal: cfg.signal,
    caller: cfg.parentToolUseId,
  })) {
    if (ev.type === 'api_retry') {
      yield apiRetryEvent(scope.parentToolUseId, ev);
    } else if (ev.type === 'message') {
      message = ev.message;
      durationMs = ev.durationMs;
    }
  }
  if (!message) return { text: '', durationMs };
  cfg.usage.add(message.model || model, message.usage);
  const text = message.content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('')
    .trim();
  return { text, durationMs };
}

/** The history with the summarisation instruction as the last user message's final text block. */
function withInstruction(source: HistoryMessage[], extra = ''): HistoryMessage[] {
  const out = source.slice();
  const last = out[out.length - 1];
  const instruction = {
    type: 'text',
    text: extra ? `${SUMMARY_INSTRUCTION}\n\nAdditional instructions: ${extra}` : SUMMARY_INSTRUCTION,
  };
  if (last?.role === 'user') out[out.length - 1] = { role: 'user', content: [...blocksOf(last), instruction] };
  else out.push({ role: 'user', content: [instruction] });
  return out;
}

/** The history without its older half: it starts again at a user prompt (never at tool results). */
function dropOldest(source: HistoryMessage[]): HistoryMessage[] | null {
  for (let i = Math.max(1, Math.floor(source.length / 2)); i < source.length; i++) {
    const m = source[i];
    if (m.role === 'user' && !hasToolResult(m)) return source.slice(i);
  }
  return null;
}

function blocksOf(m: { content: string | HistoryContent }): HistoryContent {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

function hasToolResult(m: HistoryMessage): boolean {
  return Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
}

function isTruthy(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

/** PreCompact hooks (matcher: the trigger). exit 2 or decision:"block" cancels the compaction. */
export async function runPreCompactHooks(
  hooks: HookRunner | undefined,
  trigger: CompactTrigger,
  signal: AbortSignal,
  onSystemMessage?: (message: string) => void,
): Promise<PreCompactVerdict | undefined> {
  if (!hooks?.has('PreCompact')) return undefined;
  const out = await hooks.run('PreCompact', { trigger, custom_instructions: null }, { matchValue: trigger, signal });
  for (const m of out.systemMessages) onSystemMessage?.(m);
  if (out.blockReason !== undefined) return { blockReason: out.blockReason };
  if (out.stop) return { blockReason: out.stop.reason };
  return undefined;
}
