// What an agent run tells, as it goes: part of the tool contract, because tools forward the
// events of the runs they start (a subagent's messages, a web search's reply) through ToolProgress.
// The loop makes them (src/loop/events.ts re-exports them with the outcome types it adds); the
// session turns them into protocol lines (src/session/wire.ts). Nothing here imports src/.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import type { TaskEvent } from './taskEvents.js';

/** The `usage` object of an API message (message_start / message_delta / non-streaming). */
export const apiUsageSchema = lazySchema(() =>
  z.looseObject({
    input_tokens: z.number().nullish(),
    output_tokens: z.number().nullish(),
    cache_read_input_tokens: z.number().nullish(),
    cache_creation_input_tokens: z.number().nullish(),
    server_tool_use: z.looseObject({ web_search_requests: z.number().nullish() }).nullish(),
  }),
);
export type ApiUsage = z.infer<typeof apiUsageSchema>;

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

/** A reply's text blocks joined. */
export function replyText(message: AssistantMessage): string {
  return message.content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('')
    .trim();
}

// A type, not an interface: it goes on the wire as is, and the wire's schema types want an index signature.
export type ToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<{ type: 'text'; text: string } | { type: 'image'; source: unknown }>;
  is_error?: boolean;
};

/** An api_retry notice, in the loop's words. */
export interface ApiRetry {
  attempt: number;
  maxRetries: number;
  retryDelayMs: number;
  errorStatus: number | null;
  error: string;
}

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
  /**
   * A call the permission rules refused (a deny rule, plan mode) or that nobody could be asked
   * about: system/permission_denied, as the reference sends it (a host's or a hook's own deny and
   * dontAsk mode send none, measured). `agentId`: the subagent whose call it was.
   */
  | (Scoped & {
      type: 'permission_denied';
      toolName: string;
      toolUseId: string;
      message: string;
      reasonType?: string;
      agentId?: string;
    })
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
   * A task's event (taskEvents.ts): the registry's, told by the session, and a foreground
   * subagent's own (its start, progress and end), forwarded by the tool that runs it so it keeps
   * its place among the agent's messages. Always the main thread's.
   */
  | { type: 'task'; parentToolUseId: null; event: TaskEvent };
