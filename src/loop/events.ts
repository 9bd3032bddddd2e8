// What the agent loop yields. The loop never touches stdin or stdout: the session runner turns
// these into protocol lines, a subagent's parent forwards them, a test just collects them.
import { z } from 'zod';
import type { LoopEvent } from '../../tools/agentEvents.js';
import type { ModelEvent } from './model.js';

// The events themselves are the tool contract's vocabulary (tools forward them): defined there.
export type { ApiRetry, AssistantMessage, LoopEvent } from '../../tools/agentEvents.js';

export type HistoryContent = Array<{ type: string; [k: string]: unknown }>;

export type HistoryMessage =
  | { role: 'user'; content: string | HistoryContent }
  | { role: 'assistant'; content: HistoryContent };

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
