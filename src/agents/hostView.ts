// What of a subagent's messages a host sees (the SDK's forwardSubagentText). Off (the SDK's
// default): its tool calls and results only, as the reference sends them (measured: a subagent
// reply of thinking, text and a tool_use gave one line, the tool_use); its text and thinking stay
// in its transcript. On: every message.
import type { LoopEvent } from '../../tools/agentEvents.js';

/** Blocks a host does not get from a subagent unless it asked for its text. */
const TEXT_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking']);

/** The event as a host gets it, or undefined when it gets nothing of it. */
export function subagentHostView(ev: LoopEvent, withText: boolean): LoopEvent | undefined {
  if (withText) return ev;
  if (ev.type === 'assistant_block') return ev.message.content.every((b) => TEXT_BLOCKS.has(b.type)) ? undefined : ev;
  // A whole reply that was not shown block by block (a non-streamed one): without its text. An
  // API error's line is kept whole: it says why the agent stopped.
  if (ev.type === 'assistant' && !ev.blocksShown && !ev.error) {
    const content = ev.message.content.filter((b) => !TEXT_BLOCKS.has(b.type));
    if (content.length === 0) return undefined;
    return content.length === ev.message.content.length ? ev : { ...ev, message: { ...ev.message, content } };
  }
  return ev;
}
