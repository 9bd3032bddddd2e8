// Fork subagents (`subagent_type: "fork"`): a copy of the calling agent that goes on from where it
// is. Its first request repeats the parent's exactly — the same model, system prompt, tools and
// conversation up to the reply that asked for the fork — then one user message with the results of
// that reply's tool calls and the directive. So the request begins with the prefix the parent's
// last request wrote to the prompt cache, and reads it instead of paying for it again.
import type { ToolContext } from '../../tools/tool.js';
import { ToolError } from '../../tools/tool.js';
import type { HistoryMessage } from '../loop/events.js';
import { callingLoop } from '../loop/childLoop.js';
import type { AgentDef } from './definitions.js';

export const FORK_AGENT: AgentDef = {
  name: 'fork',
  description:
    'A copy of you that inherits this whole conversation and runs on your model, reading your prompt cache (cheap). Give it a directive for a side task; its final report comes back as the result.',
  prompt: '',
  source: 'built-in',
};

/** The result the fork reads for the call that made it. */
const FORKED = 'Forked: you are the copy. The conversation above is yours; the directive below is your only task.';
/** The result it reads for the other calls of the same reply (they run in the parent, not here). */
const ELSEWHERE = 'This call runs in the parent conversation, not in the fork.';

function directive(text: string): string {
  return `You are a fork of the agent above. You have its conversation and its tools, but the work below is yours alone, and your final message is all the parent will see of it: it becomes the result of the parent's call. Do not start agents of your own. Keep to the directive; when it is done, answer with a concise report of what you did and found.

Directive: ${text}`;
}

/** The parent's conversation through the reply holding this call (waits for that reply to complete). */
export async function forkBase(ctx: ToolContext): Promise<HistoryMessage[]> {
  const loop = callingLoop(ctx);
  if (!loop) throw new ToolError('A fork can only start inside a session run');
  const base = await loop.conversationThrough(ctx.toolUseId, ctx.signal);
  if (!base) throw new ToolError('The fork has nothing to start from: the reply that asked for it did not complete');
  return base;
}

/** The fork's history: the base, then the results of the reply's calls and the directive. */
export function forkHistory(base: HistoryMessage[], toolUseId: string, prompt: string): HistoryMessage[] {
  const reply = base[base.length - 1];
  const calls = (Array.isArray(reply.content) ? (reply.content as Array<{ type?: string; id?: string }>) : []).filter(
    (b) => b.type === 'tool_use' && typeof b.id === 'string',
  );
  const results = calls.map((b) => ({
    type: 'tool_result' as const,
    tool_use_id: b.id as string,
    content: b.id === toolUseId ? FORKED : ELSEWHERE,
  }));
  return [
    ...base,
    { role: 'user', content: [...results, { type: 'text', text: directive(prompt) }] } as HistoryMessage,
  ];
}
