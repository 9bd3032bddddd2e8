// Growing a conversation's history by a user turn, the same way for the session, a resumed
// session and a teammate.
import type { HistoryContent, HistoryMessage } from './events.js';

/** Add a user turn; merges into a trailing user message so roles keep alternating. */
export function appendUser(history: HistoryMessage[], content: string | HistoryContent, context: string[]): void {
  const blocks: Array<{ type: string; [k: string]: unknown }> =
    typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  for (const text of context) blocks.push({ type: 'text', text });
  const last = history[history.length - 1];
  if (last && last.role === 'user') {
    const prev = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    last.content = [...prev, ...blocks];
    return;
  }
  history.push({ role: 'user', content: typeof content === 'string' && context.length === 0 ? content : blocks });
}
