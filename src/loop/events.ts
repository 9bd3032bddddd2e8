// What the agent loop yields. The loop never touches stdin or stdout: the session runner turns
// these into protocol lines, a subagent's parent forwards them, a test just collects them.
import { z } from 'zod';
import type { ToolResultBlock } from './toolPipeline.js';
import type { ApiUsage } from './usage.js';
import type { ModelEvent } from './model.js';
import type { TaskEvent } from './taskEvents.js';

/**
 * Anthropic message shapes, kept structural so the loop does not depend on SDK type churn. A type,
 * not an interface: it goes on the wire as is, and the wire's schema types want an index signature.
 */
export type AssistantMessage = {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<{ type: string; [k: string]: unknown }>;
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage: ApiUsage;
};

export type HistoryContent = Array<{ type: string; [k: string]: unknown }>;

export type HistoryMessage =
  | { role: 'user'; content: string | HistoryContent }
  | { role: 'assistant'; content: HistoryContent };

interface Scoped {
  /** null for the main agent; the Task tool_use id for everything a subagent produces. */
  parentToolUseId: string | null;
}

export type LoopEvent =
  | (Scoped & { type: 'stream_event'; event: { type: string; [k: string]: unknown } })
  /**
   * One content block of a reply, the moment it is complete (before a tool_use block's call
   * starts): the host sees the call before any permission question or hook for it. The message
   * has the reply's id and message_start usage, `stop_reason: null`, and just this block.
   */
  | (Scoped & { type: 'assistant_block'; message: AssistantMessage })
  /**
   * The whole reply once it ended. `blocksShown`: its blocks already went out one by one
   * (assistant_block), so a host is not shown it again; consumers that want the whole reply
   * (usage, subagent stats, the terminal) read it here.
   */
  | (Scoped & { type: 'assistant'; message: AssistantMessage; error?: string; blocksShown?: boolean })
  | (Scoped & { type: 'tool_result'; block: ToolResultBlock; data?: unknown })
  | (Scoped & { type: 'tool_progress'; toolUseId: string; toolName: string; elapsedSeconds: number })
  /** A failed request that the model client retries after a delay. */
  | (Scoped & { type: 'api_retry'; retry: ApiRetry })
  /** The model kept failing: the run goes on with the fallback model. */
  | (Scoped & { type: 'model_fallback'; from: string; to: string; error: string })
  /**
   * The main agent is compacting (`compacting`), or has finished (null, with how it went): a host
   * draws its state from it (system/status).
   */
  | (Scoped & { type: 'compact_status'; status: 'compacting' | null; result?: 'success' | 'failed'; error?: string })
  /** The history was compacted into a summary. */
  | (Scoped & { type: 'compact_boundary'; trigger: 'manual' | 'auto'; preTokens: number })
  /**
   * The loop told the model which tools are deferred (a reminder added to the last user message).
   * The transcript keeps it, so a resumed conversation holds it where it was and is not told again.
   */
  | (Scoped & { type: 'deferred_tools'; names: string[]; text: string })
  /**
   * A task's event (src/loop/taskEvents.ts): the registry's, told by the session, and a foreground
   * subagent's own (its start, progress and end), forwarded by the tool that runs it so it keeps
   * its place among the agent's messages. Always the main thread's.
   */
  | { type: 'task'; parentToolUseId: null; event: TaskEvent };

/** An api_retry notice, in the loop's words. */
export interface ApiRetry {
  attempt: number;
  maxRetries: number;
  retryDelayMs: number;
  errorStatus: number | null;
  error: string;
}

/** The model client's api_retry notice as the loop's event. */
export function apiRetryEvent(
  parentToolUseId: string | null,
  ev: Extract<ModelEvent, { type: 'api_retry' }>,
): Extract<LoopEvent, { type: 'api_retry' }> {
  return {
    parentToolUseId,
    type: 'api_retry',
    retry: {
      attempt: ev.attempt,
      maxRetries: ev.max_retries,
      retryDelayMs: ev.retry_delay_ms,
      errorStatus: ev.error_status,
      error: ev.error,
    },
  };
}

/** How a run ended: the `subtype` of its result. */
export const resultSubtypeSchema = z.enum([
  'success',
  'error_during_execution',
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
]);
export type ResultSubtype = z.infer<typeof resultSubtypeSchema>;

/** Why a run ended, in the words of the SDK's TerminalReason (the ones this loop can end with). */
export const terminalReasonSchema = z.enum([
  'completed',
  'max_turns',
  'budget_exhausted',
  'api_error',
  'prompt_too_long',
  'aborted_streaming',
  'aborted_tools',
  'hook_stopped',
  'stop_hook_prevented',
  'structured_output_retry_exhausted',
]);
export type TerminalReason = z.infer<typeof terminalReasonSchema>;

/** The outcome's own reason, else the one its subtype implies (undefined: no reason fits). */
export function terminalReasonOf(o: LoopOutcome): TerminalReason | undefined {
  if (o.terminalReason) return o.terminalReason;
  if (o.interrupted) return 'aborted_streaming';
  switch (o.subtype) {
    case 'success':
      return 'completed';
    case 'error_max_turns':
      return 'max_turns';
    case 'error_max_budget_usd':
      return 'budget_exhausted';
    case 'error_max_structured_output_retries':
      return 'structured_output_retry_exhausted';
    default:
      return o.resultText.startsWith('API Error') ? 'api_error' : undefined;
  }
}

export interface LoopOutcome {
  subtype: ResultSubtype;
  /** The final assistant text (success) or the reason (errors). */
  resultText: string;
  errors: string[];
  numTurns: number;
  stopReason: string | null;
  durationApiMs: number;
  /** The validated input of the StructuredOutput call that ended the run (structured output). */
  structuredOutput?: unknown;
  /** Set when the outcome came from an interrupt. */
  interrupted?: boolean;
  /** Why the run ended, where the subtype does not say it (see terminalReasonOf). */
  terminalReason?: TerminalReason;
}

/**
 * The one way an outcome is made (the loop's ends, a run that never reached the model, a fault):
 * an error outcome's reason is its one error.
 */
export function makeOutcome(
  subtype: ResultSubtype,
  resultText: string,
  extra: Partial<Omit<LoopOutcome, 'subtype' | 'resultText'>> = {},
): LoopOutcome {
  return {
    subtype,
    resultText,
    errors: subtype === 'success' ? [] : [resultText],
    numTurns: 0,
    stopReason: null,
    durationApiMs: 0,
    ...extra,
  };
}
