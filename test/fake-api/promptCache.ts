// The fake API's prompt cache, simulated the way the Messages API bills it:
// - the prompt is a sequence of blocks in the API's order: tools, system, then each message's
//   content blocks; a block marked `cache_control` is a breakpoint (at most 4 per request);
// - at each breakpoint whose prefix holds at least MIN_CACHEABLE_TOKENS, that prefix is stored;
// - a later request reads, from its breakpoints back, the longest stored prefix it begins with (cache_read_input_tokens);
//   the rest up to its last cacheable breakpoint is written (cache_creation_input_tokens); what
//   follows the last breakpoint is plain input (input_tokens).
// Tokens are estimated as 4 characters each. Entries never expire (tests are shorter than the TTL).
// Node built-ins only: it is compiled into dist/ with the fake server.
export const MIN_CACHEABLE_TOKENS = 1024;
export const MAX_BREAKPOINTS = 4;

export interface CacheUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export class CacheRequestError extends Error {}

/** About 4 characters a token, as a rough tokenizer would count. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

interface Segment {
  json: string;
  breakpoint: boolean;
}

function segmentsOf(body: any): Segment[] {
  const out: Segment[] = [];
  const push = (value: any, where: string, extra: object = {}) => {
    if (!value || typeof value !== 'object') {
      out.push({ json: JSON.stringify({ ...extra, value }), breakpoint: false });
      return;
    }
    const { cache_control, ...rest } = value;
    if (cache_control !== undefined && (rest.type === 'thinking' || rest.type === 'redacted_thinking'))
      throw new CacheRequestError(`${where}: cache_control cannot be set on a ${rest.type} block`);
    out.push({ json: JSON.stringify({ ...extra, ...rest }), breakpoint: cache_control !== undefined });
  };
  (Array.isArray(body.tools) ? body.tools : []).forEach((t: any, i: number) => push(t, `tools.${i}`));
  if (typeof body.system === 'string') push({ type: 'text', text: body.system }, 'system');
  else if (Array.isArray(body.system)) body.system.forEach((b: any, i: number) => push(b, `system.${i}`));
  (Array.isArray(body.messages) ? body.messages : []).forEach((m: any, i: number) => {
    const blocks =
      typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m?.content) ? m.content : [];
    blocks.forEach((b: any, j: number) => push(b, `messages.${i}.content.${j}`, { role: m?.role }));
  });
  return out;
}

/** The whole prompt's size in tokens, all of it plain input (the simulation off). */
export function uncachedUsage(body: any): CacheUsage {
  let total = 0;
  for (const s of segmentsOf(body)) total += estimateTokens(s.json);
  return { input_tokens: total, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

/**
 * One prompt prefix: its last segment leads here from the prefix one shorter. A tree of the prefixes
 * seen, keyed by each segment's JSON, instead of a hash chained over them: a request walks it once,
 * with no digest per segment (sha256 per segment cost the test workers about 2 s of CPU a run).
 */
interface Prefix {
  readonly next: Map<string, Prefix>;
  /** Its size in tokens, once a request has written it to the cache. */
  stored?: number;
}

export class PromptCacheSim {
  /** The prefixes seen, under the model they were sent to. */
  private readonly models = new Map<string, Prefix>();

  /** The usage of one request; stores what it writes. Throws CacheRequestError on a bad request. */
  account(body: any): CacheUsage {
    const segments = segmentsOf(body);
    const breakpoints = segments.filter((s) => s.breakpoint).length;
    if (breakpoints > MAX_BREAKPOINTS)
      throw new CacheRequestError(
        `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`,
      );

    // Reads are looked up from breakpoints: nothing after the last one can be read.
    let lastBreakpoint = -1;
    segments.forEach((s, i) => {
      if (s.breakpoint) lastBreakpoint = i;
    });
    const model = String(body.model);
    let prefix: Prefix = this.models.get(model) ?? { next: new Map() };
    this.models.set(model, prefix);
    let total = 0;
    let read = 0;
    let writeEnd = 0;
    const writes: Array<[Prefix, number]> = [];
    for (const [i, s] of segments.entries()) {
      let next = prefix.next.get(s.json);
      if (!next) prefix.next.set(s.json, (next = { next: new Map() }));
      prefix = next;
      total += estimateTokens(s.json);
      if (prefix.stored !== undefined && i <= lastBreakpoint) read = prefix.stored;
      if (s.breakpoint && total >= MIN_CACHEABLE_TOKENS) {
        writes.push([prefix, total]);
        writeEnd = total;
      }
    }
    for (const [p, t] of writes) p.stored = t;
    const creation = Math.max(0, writeEnd - read);
    return {
      input_tokens: total - read - creation,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
    };
  }
}
