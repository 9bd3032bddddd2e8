// A scripted stand-in for the Anthropic Messages API, faked only at the HTTP boundary.
// It speaks the real wire: SSE for `stream: true`, JSON otherwise, real error statuses and bodies.
// Compiled by tsc into dist/ for the CLI and e2e tests, so it imports node built-ins only.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { CacheRequestError, PromptCacheSim, uncachedUsage } from './promptCache.js';

export { estimateTokens, MIN_CACHEABLE_TOKENS, PromptCacheSim } from './promptCache.js';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id?: string; name: string; input: unknown }
  /** The API's own web search call (only when the request offers the web_search server tool). */
  | { type: 'server_tool_use'; id: string; name: 'web_search'; input: { query: string } }
  /** Its results (or `{error_code}`); the API sends the whole block at once, no deltas. */
  | {
      type: 'web_search_tool_result';
      tool_use_id: string;
      content: WebSearchHit[] | { type: 'web_search_tool_result_error'; error_code: string };
    };

export interface WebSearchHit {
  type: 'web_search_result';
  title: string;
  url: string;
  encrypted_content: string;
  page_age?: string;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /** usage.server_tool_use.web_search_requests; by default, the reply's server_tool_use blocks. */
  web_search_requests?: number;
}

export type ScriptedReply =
  | {
      content: ScriptedBlock[];
      stop_reason?: StopReason;
      /**
       * Billed as given when it names input_tokens; otherwise input and cache tokens come from the
       * prompt-cache simulation (promptCache.ts) and output_tokens from here (default 5).
       */
      usage?: ScriptedUsage;
      /** wait before the response starts */
      delayMs?: number;
      /** wait between SSE events */
      chunkDelayMs?: number;
      /**
       * After this many content deltas (counted over the whole reply), hold the stream until
       * `until` settles: a test that looks at a reply mid-stream releases the rest once it has
       * looked, instead of betting on a delay being long enough.
       */
      holdAfterDeltas?: { deltas: number; until: Promise<unknown> };
      /** after this many complete blocks, fail: `cut` destroys the socket, `error` sends an error event */
      failAfterBlocks?: { blocks: number; how: 'cut' | 'error' };
    }
  | { error: { status: number; type: string; message: string; headers?: Record<string, string> } }
  /** stream a partial text, then destroy the socket */
  | { cut: { afterText: string } }
  /** answer 200, stream a partial text, then an `event: error` (what the API does when it fails mid-reply) */
  | { streamError: { afterText?: string; type: string; message: string } }
  /** answer 200, stream a partial text, then an SSE event whose data is not valid JSON (a broken proxy or server) */
  | { malformed: { afterText?: string } }
  /** accept and never answer; ends when the server closes */
  | { hang: true };

export interface RecordedRequest {
  body: any;
  headers: Record<string, string | string[] | undefined>;
  path: string;
  /** What the prompt-cache simulation billed for this request's prompt (set once it is accounted). */
  billed?: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
}

export type Script =
  | ScriptedReply[]
  | ((req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

export interface FakeApi {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

// ---- reply builders for the common faults (real statuses, types and headers) ----

export function rateLimited(retryAfterSeconds = 0): ScriptedReply {
  return {
    error: {
      status: 429,
      type: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  };
}
export function overloaded(): ScriptedReply {
  return { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
}
export function serverError(message = 'Internal server error'): ScriptedReply {
  return { error: { status: 500, type: 'api_error', message } };
}
export function badRequest(message: string): ScriptedReply {
  return { error: { status: 400, type: 'invalid_request_error', message } };
}
export function unauthorized(): ScriptedReply {
  return { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } };
}
export function text(t: string, extra: { usage?: ScriptedUsage; stop_reason?: StopReason } = {}): ScriptedReply {
  return { content: [{ type: 'text', text: t }], ...extra };
}
/**
 * A reply that searched the web: the server_tool_use block, its results, then the model's text,
 * as the API answers a request that offers the web_search server tool.
 */
export function webSearch(
  query: string,
  hits: Array<{ title: string; url: string }>,
  answer: string,
  id = randomId('srvtoolu_'),
): ScriptedReply {
  return {
    content: [
      { type: 'server_tool_use', id, name: 'web_search', input: { query } },
      {
        type: 'web_search_tool_result',
        tool_use_id: id,
        content: hits.map((h) => ({
          type: 'web_search_result',
          ...h,
          encrypted_content: randomId('enc_'),
          page_age: '1 day ago',
        })),
      },
      { type: 'text', text: answer },
    ],
  };
}

export function toolUse(name: string, input: unknown, id?: string): ScriptedReply {
  return { content: [{ type: 'tool_use', name, input, ...(id ? { id } : {}) }] };
}

// ---- request matchers, for scripts that serve concurrent conversations (subagents) ----

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && typeof b === 'object' && (b as any).type === 'text' && typeof (b as any).text === 'string')
    .map((b) => (b as any).text as string)
    .join('\n');
}

/** The text of the latest user message that has any text (tool_result-only turns are skipped). */
export function lastUserText(req: RecordedRequest): string {
  const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== 'user') continue;
    const t = textOf(messages[i].content);
    if (t) return t;
  }
  return '';
}

/** The text of the first user message: a subagent's prompt. */
export function firstUserText(req: RecordedRequest): string {
  const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
  const first = messages.find((m) => m?.role === 'user');
  return first ? textOf(first.content) : '';
}

/** The system prompt as one string (text blocks joined by newlines). */
export function systemText(req: RecordedRequest): string {
  return textOf(req.body?.system);
}

/** The tool_result blocks of the latest user message. */
export function lastToolResults(
  req: RecordedRequest,
): Array<{ tool_use_id: string; content: unknown; is_error?: boolean }> {
  const messages: any[] = Array.isArray(req.body?.messages) ? req.body.messages : [];
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || !Array.isArray(last.content)) return [];
  return last.content.filter((b: any) => b?.type === 'tool_result');
}

// ---- the server ----

type CacheBill = Pick<
  Required<Omit<ScriptedUsage, 'web_search_requests'>>,
  'input_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens'
>;

function randomId(prefix: string): string {
  return prefix + randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: randomId('req_') };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.headersSent || res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(data),
    'request-id': (body as any)?.request_id ?? randomId('req_'),
    ...headers,
  });
  res.end(data);
}

/** Split a string into about `parts` pieces, so the client has to reassemble it. */
function split(s: string, parts: number): string[] {
  if (s.length <= 1) return [s];
  const size = Math.max(1, Math.ceil(s.length / parts));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

interface ApiBlock {
  start: Record<string, unknown>;
  deltas: Array<Record<string, unknown>>;
  final: Record<string, unknown>;
}

function toApiBlock(block: ScriptedBlock): ApiBlock {
  switch (block.type) {
    case 'text':
      return {
        start: { type: 'text', text: '' },
        deltas: split(block.text, 3).map((t) => ({ type: 'text_delta', text: t })),
        final: { type: 'text', text: block.text },
      };
    case 'thinking': {
      const signature = randomId('sig_');
      return {
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [
          ...split(block.thinking, 3).map((t) => ({ type: 'thinking_delta', thinking: t })),
          { type: 'signature_delta', signature },
        ],
        final: { type: 'thinking', thinking: block.thinking, signature },
      };
    }
    case 'redacted_thinking':
      return {
        start: { type: 'redacted_thinking', data: block.data },
        deltas: [],
        final: { type: 'redacted_thinking', data: block.data },
      };
    case 'tool_use': {
      const id = block.id ?? randomId('toolu_');
      const json = JSON.stringify(block.input ?? {});
      return {
        start: { type: 'tool_use', id, name: block.name, input: {} },
        // The real API opens with an empty partial_json, then streams the input in pieces.
        deltas: ['', ...split(json, 4)].map((p) => ({ type: 'input_json_delta', partial_json: p })),
        final: { type: 'tool_use', id, name: block.name, input: block.input ?? {} },
      };
    }
    case 'server_tool_use': {
      const json = JSON.stringify(block.input);
      return {
        start: { type: 'server_tool_use', id: block.id, name: block.name, input: {} },
        deltas: ['', ...split(json, 3)].map((p) => ({ type: 'input_json_delta', partial_json: p })),
        final: { type: 'server_tool_use', id: block.id, name: block.name, input: block.input },
      };
    }
    case 'web_search_tool_result':
      return { start: { ...block }, deltas: [], final: { ...block } };
  }
}

/**
 * What the real API refuses in a conversation we build: a thinking block that lost its signature,
 * a redacted_thinking block that lost its data (they must come back exactly as received).
 */
function invalidThinking(messages: any[]): string | null {
  for (const [i, m] of messages.entries()) {
    if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const [j, b] of m.content.entries()) {
      if (b?.type === 'thinking' && (typeof b.signature !== 'string' || b.signature === ''))
        return `messages.${i}.content.${j}.thinking.signature: Field required`;
      if (b?.type === 'redacted_thinking' && (typeof b.data !== 'string' || b.data === ''))
        return `messages.${i}.content.${j}.redacted_thinking.data: Field required`;
    }
  }
  return null;
}

/**
 * What the real API refuses in `output_config.task_budget` (docs: Task budgets): the field needs the
 * `task-budgets-2026-03-13` beta header, `type: "tokens"`, and a positive whole `total`.
 */
function invalidTaskBudget(body: any, betaHeader: string | string[] | undefined): string | null {
  const tb = body?.output_config?.task_budget;
  if (tb === undefined) return null;
  const betas = (Array.isArray(betaHeader) ? betaHeader.join(',') : (betaHeader ?? '')).split(',').map((b) => b.trim());
  if (!betas.includes('task-budgets-2026-03-13'))
    return 'output_config.task_budget: task budgets require the beta header task-budgets-2026-03-13';
  if (tb?.type !== 'tokens') return "output_config.task_budget.type: Input should be 'tokens'";
  if (!Number.isInteger(tb.total) || tb.total <= 0)
    return 'output_config.task_budget.total: Input should be a positive integer';
  return null;
}

export interface FakeApiOptions {
  port?: number;
  /** Simulate the prompt cache (default true); false reports every input token as uncached. */
  promptCache?: boolean;
}

export async function startFakeApi(script: Script, opts: FakeApiOptions = {}): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const cache = opts.promptCache === false ? null : new PromptCacheSim();
  const sockets = new Set<Socket>();
  let closing = false;
  let messageCalls = 0;

  // Every wait ends early when the client goes away or the server closes.
  /** Resolves when `p` settles or the response closes (the client went away). */
  function untilOrClosed(p: Promise<unknown>, res: http.ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        res.off('close', done);
        resolve();
      };
      res.once('close', done);
      p.then(done, done);
    });
  }

  function sleep(ms: number, res: http.ServerResponse): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        res.off('close', done);
        resolve();
      }
      res.once('close', done);
    });
  }

  function writeEvent(res: http.ServerResponse, event: string, data: unknown) {
    if (res.destroyed || res.writableEnded) return;
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  function startSse(res: http.ServerResponse) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': randomId('req_'),
    });
  }

  function baseMessage(model: string, usage: Required<Omit<ScriptedUsage, 'web_search_requests'>>) {
    return {
      id: randomId('msg_'),
      type: 'message',
      role: 'assistant',
      model,
      content: [] as unknown[],
      stop_reason: null as string | null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: 1,
        service_tier: 'standard',
      },
    };
  }

  async function streamPartialText(res: http.ServerResponse, model: string, afterText: string) {
    startSse(res);
    const usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    writeEvent(res, 'message_start', { type: 'message_start', message: baseMessage(model, usage) });
    writeEvent(res, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    });
    for (const t of split(afterText, 3)) {
      writeEvent(res, 'content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: t },
      });
    }
    // Let the bytes reach the client before the fault, so it really is "mid-reply".
    await new Promise<void>((r) => res.write('', () => r()));
    await sleep(20, res);
  }

  async function answer(req: RecordedRequest, res: http.ServerResponse, reply: ScriptedReply, billed: CacheBill) {
    const model = typeof req.body.model === 'string' ? req.body.model : 'claude-sonnet-4-5-20250929';
    if ('error' in reply) {
      sendJson(res, reply.error.status, errorBody(reply.error.type, reply.error.message), reply.error.headers ?? {});
      return;
    }
    if ('hang' in reply) return; // the socket is destroyed when the server closes
    if ('cut' in reply) {
      await streamPartialText(res, model, reply.cut.afterText);
      res.socket?.destroy();
      return;
    }
    if ('malformed' in reply) {
      if (req.body.stream !== true) {
        // The non-streaming answer is broken the same way: a body that is not JSON.
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': randomId('req_') });
        res.end('{"type":"message","content":[{"type":"text","text":"unterminated');
        return;
      }
      await streamPartialText(res, model, reply.malformed.afterText ?? '');
      res.write(
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated\n\n',
      );
      res.end();
      return;
    }
    if ('streamError' in reply) {
      await streamPartialText(res, model, reply.streamError.afterText ?? '');
      writeEvent(res, 'error', errorBody(reply.streamError.type, reply.streamError.message));
      res.end();
      return;
    }

    await sleep(reply.delayMs ?? 0, res);
    if (res.destroyed) return;
    const scripted = reply.usage?.input_tokens !== undefined;
    const usage: Required<Omit<ScriptedUsage, 'web_search_requests'>> = {
      input_tokens: scripted ? reply.usage!.input_tokens! : billed.input_tokens,
      output_tokens: reply.usage?.output_tokens ?? 5,
      cache_read_input_tokens: scripted ? (reply.usage?.cache_read_input_tokens ?? 0) : billed.cache_read_input_tokens,
      cache_creation_input_tokens: scripted
        ? (reply.usage?.cache_creation_input_tokens ?? 0)
        : billed.cache_creation_input_tokens,
    };
    // The API searches only when the request offers the server tool; a script that says otherwise is a test bug.
    const searches = reply.content.filter((b) => b.type === 'server_tool_use').length;
    const offered =
      Array.isArray(req.body.tools) &&
      req.body.tools.some((t: any) => typeof t?.type === 'string' && t.type.startsWith('web_search_'));
    if (searches && !offered) {
      sendJson(
        res,
        400,
        errorBody(
          'invalid_request_error',
          'fake API: the script answers with web search blocks, but the request does not offer the web_search tool',
        ),
      );
      return;
    }
    const webSearchRequests = reply.usage?.web_search_requests ?? searches;
    const serverToolUse = webSearchRequests ? { server_tool_use: { web_search_requests: webSearchRequests } } : {};
    const blocks = reply.content.map(toApiBlock);
    const stopReason =
      reply.stop_reason ?? (reply.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
    const message = baseMessage(model, usage);
    Object.assign(message.usage, serverToolUse);

    if (req.body.stream !== true) {
      message.content = blocks.map((b) => b.final);
      message.stop_reason = stopReason;
      message.usage.output_tokens = usage.output_tokens;
      sendJson(res, 200, message);
      return;
    }

    const gap = reply.chunkDelayMs ?? 0;
    let deltasSent = 0;
    startSse(res);
    writeEvent(res, 'message_start', { type: 'message_start', message });
    writeEvent(res, 'ping', { type: 'ping' });
    for (const [index, block] of blocks.entries()) {
      if (reply.failAfterBlocks && index === reply.failAfterBlocks.blocks) {
        await new Promise<void>((r) => res.write('', () => r()));
        await sleep(Math.max(gap, 20), res);
        if (reply.failAfterBlocks.how === 'cut') res.socket?.destroy();
        else {
          writeEvent(res, 'error', errorBody('overloaded_error', 'Overloaded'));
          res.end();
        }
        return;
      }
      await sleep(gap, res);
      writeEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: block.start });
      for (const delta of block.deltas) {
        await sleep(gap, res);
        writeEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta });
        if (reply.holdAfterDeltas && ++deltasSent === reply.holdAfterDeltas.deltas)
          await untilOrClosed(reply.holdAfterDeltas.until, res);
      }
      writeEvent(res, 'content_block_stop', { type: 'content_block_stop', index });
    }
    await sleep(gap, res);
    writeEvent(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens, ...serverToolUse },
    });
    writeEvent(res, 'message_stop', { type: 'message_stop' });
    res.end();
  }

  async function nextReply(rec: RecordedRequest, index: number): Promise<ScriptedReply> {
    if (Array.isArray(script)) {
      const reply = script[index];
      if (reply) return reply;
      return {
        error: {
          status: 500,
          type: 'api_error',
          message: `fake API: script exhausted after ${script.length} requests`,
          // Tells a client not to retry: a test with a short script should fail, not spin.
          headers: { 'x-should-retry': 'false' },
        },
      };
    }
    try {
      return await script(rec, index);
    } catch (e) {
      return {
        error: {
          status: 500,
          type: 'api_error',
          message: `fake API: script threw: ${(e as Error)?.message ?? e}`,
          headers: { 'x-should-retry': 'false' },
        },
      };
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const rec: RecordedRequest = { body, headers: { ...req.headers }, path };
    requests.push(rec);

    const pathname = path.split('?')[0];
    if (pathname !== '/v1/messages') {
      sendJson(res, 404, errorBody('not_found_error', `Not found: ${req.method} ${pathname}`));
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, errorBody('invalid_request_error', `Method ${req.method} not allowed`));
      return;
    }
    if (!body || typeof body !== 'object') {
      sendJson(res, 400, errorBody('invalid_request_error', 'There was an error parsing the body of your request'));
      return;
    }
    for (const [field, ok] of [
      ['model', typeof body.model === 'string'],
      ['messages', Array.isArray(body.messages)],
      ['max_tokens', typeof body.max_tokens === 'number'],
    ] as const) {
      if (!ok) {
        sendJson(res, 400, errorBody('invalid_request_error', `${field}: Field required`));
        return;
      }
    }
    const budgetError = invalidTaskBudget(body, req.headers['anthropic-beta']);
    if (budgetError) {
      sendJson(res, 400, errorBody('invalid_request_error', budgetError));
      return;
    }
    const thinkingError = invalidThinking(body.messages);
    if (thinkingError) {
      sendJson(res, 400, errorBody('invalid_request_error', thinkingError));
      return;
    }
    let billed: CacheBill;
    try {
      billed = cache ? cache.account(body) : uncachedUsage(body);
    } catch (e) {
      if (!(e instanceof CacheRequestError)) throw e;
      sendJson(res, 400, errorBody('invalid_request_error', e.message));
      return;
    }
    rec.billed = billed;
    const reply = await nextReply(rec, messageCalls++);
    await answer(rec, res, reply, billed);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) sendJson(res, 500, errorBody('api_error', `fake API: ${(e as Error)?.message ?? e}`));
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      if (closing) return Promise.resolve();
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging replies and keep-alive connections would hold close() open forever.
        for (const s of sockets) s.destroy();
      });
    },
  };
}
