// agentProgressSummaries: while a background subagent works, every interval (30 s by default) a
// small side call asks its model for one present-tense line about what it is doing; the line goes
// out as task_progress's `summary`. The call forks the agent's own conversation (same system
// prompt, tools and history, so its prompt cache is reused) and counts in the agent's usage. No
// call is made while the conversation is unchanged, and a line that arrives after the agent ended
// is dropped.
import type { HistoryMessage } from '../loop/events.js';
import type { LoopConfig } from '../loop/agentLoop.js';
import { replyText } from '../loop/sideCall.js';
import { logWarning } from '../util/log.js';

export const DEFAULT_SUMMARY_INTERVAL_MS = 30_000;
const SUMMARY_MAX_TOKENS = 200;
const SUMMARY_MAX_CHARS = 200;

export const SUMMARY_INSTRUCTION =
  'Describe in one short present-tense line (at most ten words, no punctuation at the end) what you are doing right now, e.g. "Reading the authentication module". Answer with that line only.';

/** Whether summaries are on: the host asked (initialize.agentProgressSummaries) and the environment does not forbid them. */
export function summariesWanted(asked: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const off = env.CLAUDE_CODE_DISABLE_AGENT_PROGRESS_SUMMARIES;
  return asked && !(off !== undefined && off !== '' && off !== '0' && off.toLowerCase() !== 'false');
}

/** The interval (AGENT_PROGRESS_SUMMARY_INTERVAL_MS, else 30 s). */
export function summaryIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.AGENT_PROGRESS_SUMMARY_INTERVAL_MS);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_SUMMARY_INTERVAL_MS;
}

/**
 * The agent's conversation up to its last complete point, with the question added to the last
 * user turn: an assistant turn whose tool calls are still running is left out (its tool_use would
 * have no tool_result).
 */
export function forkForSummary(history: readonly HistoryMessage[]): HistoryMessage[] {
  const msgs = [...history];
  while (msgs.length && msgs[msgs.length - 1].role === 'assistant') msgs.pop();
  const last = msgs.pop();
  if (!last) return [{ role: 'user', content: SUMMARY_INSTRUCTION }];
  const blocks =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...(last.content as unknown[])];
  return [
    ...msgs,
    { role: 'user', content: [...blocks, { type: 'text', text: SUMMARY_INSTRUCTION }] } as HistoryMessage,
  ];
}

export interface SummaryLoop {
  stop(): void;
}

/**
 * Start summarising the agent whose loop config is `cfg` and conversation `history` (read live).
 * `onSummary` gets each line; `caller` names the calls in a recording.
 */
export function startProgressSummaries(
  cfg: LoopConfig,
  model: string,
  history: readonly HistoryMessage[],
  opts: { intervalMs: number; caller: string; onSummary: (line: string) => void },
): SummaryLoop {
  const abort = new AbortController();
  let lastLength = history.length;
  let busy = false;
  let stopped = false;
  const tick = async () => {
    if (busy || stopped || history.length === lastLength) return;
    busy = true;
    lastLength = history.length;
    try {
      let message;
      for await (const ev of cfg.callModel({
        model,
        system: cfg.system,
        messages: forkForSummary(history),
        tools: cfg.apiTools,
        toolChoiceNone: cfg.apiTools.length > 0,
        maxTokens: SUMMARY_MAX_TOKENS,
        betas: cfg.betas,
        signal: abort.signal,
        caller: opts.caller,
      })) {
        if (ev.type === 'message') message = ev.message;
      }
      if (!message) return;
      // Priced like any of the agent's calls: it counts in the agent's (and so the session's) usage.
      cfg.usage.add(message.model || model, message.usage);
      const line = replyText(message).split('\n')[0].trim().slice(0, SUMMARY_MAX_CHARS);
      if (line && !stopped) opts.onSummary(line);
    } catch (err) {
      if (!stopped) logWarning(`progress summary failed: ${(err as Error).message}`);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), opts.intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      abort.abort();
    },
  };
}
