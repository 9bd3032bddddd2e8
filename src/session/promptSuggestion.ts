// promptSuggestions: after a turn's result, one small side call predicts what the user will type
// next; the line goes out as `prompt_suggestion` after the result. The call forks the main
// conversation as it stands (same system prompt, tools and history, so it reads the prompt cache
// the turn just wrote) with one question added, and offers no tool use. As the SDK documents, none
// is made on the session's first turn, after an error, in plan mode, or when switched off
// (CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false, or `promptSuggestionEnabled: false` in settings;
// the variable wins). A suggestion still being made when the next prompt starts is dropped.
import type { AssistantMessage, HistoryMessage } from '../loop/events.js';
import type { CallModel, ModelRequest } from '../loop/model.js';
import { replyText } from '../loop/sideCall.js';

const SUGGESTION_MAX_TOKENS = 100;
const SUGGESTION_MAX_CHARS = 200;

export const SUGGESTION_INSTRUCTION = [
  'Pause the task for a moment. Guess the next message the user is most likely to send, given',
  'everything above: usually a short follow-up request or instruction in their own voice, such as',
  '"Now add tests for the parser" or "Commit this". Reply with that message alone, on one line,',
  'with no quotes and no explanation. If no follow-up is likely, reply with NONE.',
].join(' ');

function flag(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  const s = v.toLowerCase();
  if (s === '0' || s === 'false' || s === 'no' || s === 'off') return false;
  return true;
}

/** Whether suggestions are on at all: the host asked, and neither the env nor the settings forbid it. */
export function suggestionsWanted(
  asked: boolean,
  settingEnabled: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (!asked) return false;
  return flag(env.CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION) ?? settingEnabled !== false;
}

/** The conversation with the question added as the next user turn. */
export function forkForSuggestion(history: readonly HistoryMessage[]): HistoryMessage[] {
  return [...history, { role: 'user', content: [{ type: 'text', text: SUGGESTION_INSTRUCTION }] } as HistoryMessage];
}

/** The reply as a suggestion: its first line, unquoted and bounded; undefined for none. */
export function suggestionFrom(text: string): string | undefined {
  const line = text
    .split('\n')[0]
    .trim()
    .replace(/^["'\u201c]|["'\u201d]$/g, '')
    .trim();
  if (line === '' || /^none\.?$/i.test(line)) return undefined;
  return line.slice(0, SUGGESTION_MAX_CHARS);
}

export interface SuggestionRequest {
  /** The session's model (LoopConfig.callModel). */
  callModel: CallModel;
  model: string;
  system: ModelRequest['system'];
  tools: ModelRequest['tools'];
  betas?: string[];
  history: readonly HistoryMessage[];
  signal: AbortSignal;
}

/** One side call; the reply (for its usage) and the suggestion it holds, if any. */
export async function suggestNextPrompt(
  req: SuggestionRequest,
): Promise<{ message: AssistantMessage; suggestion?: string } | undefined> {
  let message: AssistantMessage | undefined;
  for await (const ev of req.callModel({
    model: req.model,
    system: req.system,
    messages: forkForSuggestion(req.history),
    tools: req.tools,
    toolChoiceNone: req.tools.length > 0,
    maxTokens: SUGGESTION_MAX_TOKENS,
    betas: req.betas,
    signal: req.signal,
    caller: 'prompt_suggestion',
  })) {
    if (ev.type === 'message') message = ev.message;
  }
  if (!message) return undefined;
  return { message, suggestion: suggestionFrom(replyText(message)) };
}
