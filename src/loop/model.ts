// The loop's view of the model: one request in, a stream of events out. The loop gets a
// `CallModel` through its config (the Anthropic client by default, an in-memory script in unit
// tests, a recorder or a replayer with --record/--replay), so nothing in the loop knows HTTP.
import type { AssistantMessage, HistoryMessage } from './events.js';
import type { ApiErrorCategory } from './modelErrors.js';
import type { EffortLevel } from './pricing.js';
import type { ThinkingParam } from './requestOptions.js';
import type { ServerTool } from '../../tools/tool.js';

/** A tool as the model sees it. */
export interface ApiTool {
  name: string;
  description: string;
  input_schema: object;
}

export type { ServerTool } from '../../tools/tool.js';

export interface ModelRequest {
  model: string;
  /** One string, or blocks: [static instructions, per-session environment, ...] (see promptCache.ts). */
  system: string | ReadonlyArray<{ type: 'text'; text: string }>;
  messages: HistoryMessage[];
  tools: Array<ApiTool | ServerTool>;
  maxTokens: number;
  /** Resolved for this model by resolveRequestOptions (requestOptions.ts). */
  thinking?: ThinkingParam;
  effort?: EffortLevel;
  /** Offer the tools but let the model call none (tool_choice none): compaction's summary call. */
  toolChoiceNone?: boolean;
  betas?: string[];
  /** --task-budget: `output_config.task_budget` (the caller adds its beta header to `betas`). */
  taskBudget?: { total: number };
  signal: AbortSignal;
  /**
   * Who asks: null for the main agent, the Task tool_use id for a subagent. The API never sees
   * it; a recording orders each asker's requests on their own, so parallel subagents replay.
   */
  caller?: string | null;
}

/** One raw streaming event of the Messages API (message_start, content_block_delta, …). */
export type ModelStreamEvent = { type: string; [k: string]: unknown };

export type ModelEvent =
  | { type: 'stream_event'; event: ModelStreamEvent }
  | {
      type: 'api_retry';
      attempt: number;
      max_retries: number;
      retry_delay_ms: number;
      error_status: number | null;
      error: ApiErrorCategory;
    }
  | { type: 'message'; message: AssistantMessage; durationMs: number };

/**
 * Streams one model reply: stream events, api_retry notices, then exactly one `message` — or
 * throws a ModelError (retries already spent).
 */
export type CallModel = (req: ModelRequest) => AsyncIterable<ModelEvent>;
