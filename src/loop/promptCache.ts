// Prompt-cache breakpoints, placed on every request the runtime makes (main loop, subagents,
// teammates, compaction summaries all go through streamModel, which calls this).
//
// The API caches the prefix up to each block marked `cache_control` (tools, then system, then
// messages, in that order) and allows at most 4 marks. We place:
//   1. the first system block: tools + the static instructions, the same for every session;
//   2. the last system block (the per-session environment block), when there is more than one;
//   3. the last cacheable block of the newest message: a rolling mark, so turn N+1 reads all that
//      turn N wrote and pays full price only for what is new.
// With no system prompt, mark 1 goes on the last tool instead. Marks a host put in its own
// messages are kept while they fit under the limit; the oldest go first.
//
// The history is never changed: only the newest message (and any message whose old marks must
// go) is copied, so the per-turn cost stays flat however long the conversation is.
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';

export const MAX_CACHE_BREAKPOINTS = 4;
const EPHEMERAL = { type: 'ephemeral' } as const;

export type SystemBlock = { type: 'text'; text: string; cache_control?: { type: 'ephemeral' } };
export type ApiTool = {
  name: string;
  description: string;
  input_schema: object;
  cache_control?: { type: 'ephemeral' };
};

export interface CacheableRequest {
  system: SystemBlock[];
  tools: ApiTool[];
  messages: MessageParam[];
}

/** DISABLE_PROMPT_CACHING=1 (or true) turns prompt caching off. */
export function promptCachingDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.DISABLE_PROMPT_CACHING?.trim().toLowerCase();
  return v === '1' || v === 'true' || v === 'yes';
}

/** The system prompt as text blocks (an empty prompt is no blocks). */
export function systemBlocks(system: string | ReadonlyArray<{ type: 'text'; text: string }>): SystemBlock[] {
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return system.filter((b) => b.text !== '').map((b) => ({ type: 'text', text: b.text }));
}

/** Returns the request with breakpoints placed; the inputs are not modified. */
export function withCacheBreakpoints(req: CacheableRequest): CacheableRequest {
  let { system, tools } = req;
  let used = 0;
  if (system.length > 0) {
    const marks = system.length > 1 ? [0, system.length - 1] : [0];
    system = system.map((b, i) => (marks.includes(i) ? { ...b, cache_control: EPHEMERAL } : b));
    used += marks.length;
  } else if (tools.length > 0) {
    tools = tools.map((t, i) => (i === tools.length - 1 ? { ...t, cache_control: EPHEMERAL } : t));
    used += 1;
  }
  const messages = markNewestMessage(req.messages, MAX_CACHE_BREAKPOINTS - used);
  return { system, tools, messages };
}

type Block = { type: string; cache_control?: unknown; text?: string; [k: string]: unknown };

/** Blocks the API refuses a mark on (thinking) or that cannot carry one (empty text). */
function markable(b: Block): boolean {
  if (b.type === 'thinking' || b.type === 'redacted_thinking') return false;
  if (b.type === 'text' && !b.text) return false;
  return true;
}

function markNewestMessage(messages: MessageParam[], budget: number): MessageParam[] {
  if (messages.length === 0 || budget <= 0) return messages;
  const out = messages.slice();
  const lastIdx = out.length - 1;
  const last = out[lastIdx];
  const content: Block[] =
    typeof last.content === 'string'
      ? last.content === ''
        ? []
        : [{ type: 'text', text: last.content }]
      : (last.content as Block[]).slice();
  let at = -1;
  for (let i = content.length - 1; i >= 0; i--)
    if (markable(content[i])) {
      at = i;
      break;
    }
  if (at < 0) return messages;
  content[at] = { ...content[at], cache_control: EPHEMERAL };
  out[lastIdx] = { ...last, content } as MessageParam;

  // Marks already in the history (a host's): keep the newest that fit, drop the oldest.
  let room = budget - 1;
  for (let m = lastIdx; m >= 0; m--) {
    const msg = out[m];
    if (typeof msg.content === 'string') continue;
    const blocks = msg.content as Block[];
    let copy: Block[] | null = null;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (m === lastIdx && i === at) continue;
      if (blocks[i].cache_control === undefined) continue;
      if (room > 0) {
        room--;
        continue;
      }
      copy ??= blocks.slice();
      const { cache_control: _drop, ...rest } = blocks[i];
      copy[i] = rest as Block;
    }
    if (copy) out[m] = { ...msg, content: copy } as MessageParam;
  }
  return out;
}
