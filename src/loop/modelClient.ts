// One streamed Messages API call, with our own retries.
//
// Yields every raw SSE event (for --include-partial-messages), an `api_retry` event before each
// retry sleep, and finally the assembled assistant message. The SDK's own retries are off so that
// each retry is visible to the host, and every wait ends on the caller's abort signal.
//
// A stream cut mid-reply is retried; its stream_events were already yielded (a consumer that shows
// partial output sees the failed attempt's deltas, then the retry's message_start), but the
// partial reply is never returned as a message.
import type { Anthropic } from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  Message,
  MessageParam,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';

export interface ModelRequest {
  model: string;
  system: string | Array<{ type: 'text'; text: string }>;
  messages: MessageParam[];
  tools: Array<{ name: string; description: string; input_schema: object }>;
  maxTokens: number;
  thinkingBudget?: number;
  betas?: string[];
  signal: AbortSignal;
}

/** The categories the host protocol uses for `api_retry.error` and assistant-message errors. */
export type ApiErrorCategory =
  | 'authentication_failed'
  | 'rate_limit'
  | 'overloaded'
  | 'invalid_request'
  | 'server_error'
  | 'unknown';

export type ModelEvent =
  | { type: 'stream_event'; event: RawMessageStreamEvent }
  | {
      type: 'api_retry';
      attempt: number;
      max_retries: number;
      retry_delay_ms: number;
      error_status: number | null;
      error: ApiErrorCategory;
    }
  | { type: 'message'; message: Message; durationMs: number };

export type ModelErrorKind =
  | 'auth'
  | 'invalid_request'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'aborted'
  | 'no_credentials';

export class ModelError extends Error {
  readonly status: number | null;
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  /** From `retry-after-ms` / `retry-after`, when the API said how long to wait. */
  readonly retryAfterMs: number | null;
  constructor(
    message: string,
    init: { status?: number | null; kind: ModelErrorKind; retryable: boolean; retryAfterMs?: number | null; cause?: unknown } = {
      kind: 'server',
      retryable: false,
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ModelError';
    this.status = init.status ?? null;
    this.kind = init.kind;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }

  get category(): ApiErrorCategory {
    switch (this.kind) {
      case 'auth':
      case 'no_credentials':
        return 'authentication_failed';
      case 'rate_limit':
        return 'rate_limit';
      case 'overloaded':
        return 'overloaded';
      case 'invalid_request':
        return 'invalid_request';
      case 'server':
        return 'server_error';
      default:
        return 'unknown';
    }
  }
}

export const NOT_LOGGED_IN = 'Not logged in · Please set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)';
const DEFAULT_MAX_RETRIES = 10;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 32_000;

export function hasCredentials(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim());
}

/** AGENT_MAX_RETRIES, else CLAUDE_CODE_MAX_RETRIES (drop-in compatibility), else 10. */
export function maxRetriesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  for (const v of [env.AGENT_MAX_RETRIES, env.CLAUDE_CODE_MAX_RETRIES]) {
    const n = v === undefined || v.trim() === '' ? NaN : Number(v);
    if (Number.isInteger(n) && n >= 0) return n;
  }
  return DEFAULT_MAX_RETRIES;
}

/** Jittered exponential backoff: ~0.5 s, ~1 s, ~2 s … capped at 32 s; the server's word wins. */
export function retryDelayMs(attempt: number, retryAfterMs: number | null = null): number {
  if (retryAfterMs !== null) return retryAfterMs;
  const base = Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
  return Math.round(base + Math.random() * 0.25 * base);
}

/** `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date); null if absent. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | null {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

// ---- the SDK client, loaded at first use (importing @anthropic-ai/sdk costs ~130 ms) ----

let sdkModule: Promise<typeof import('@anthropic-ai/sdk')> | null = null;
let cached: { key: string; client: Anthropic } | null = null;

async function getClient(env: NodeJS.ProcessEnv): Promise<Anthropic> {
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || null;
  const authToken = apiKey ? null : env.ANTHROPIC_AUTH_TOKEN?.trim() || null;
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || undefined;
  const timeout = Number(env.API_TIMEOUT_MS) > 0 ? Number(env.API_TIMEOUT_MS) : undefined;
  const key = JSON.stringify([apiKey, authToken, baseURL, timeout]);
  if (cached?.key === key) return cached.client;
  sdkModule ??= import('@anthropic-ai/sdk');
  const { Anthropic: Client } = await sdkModule;
  // Exactly one credential: the SDK refuses two, and would otherwise look for config files.
  const client = new Client({
    ...(apiKey ? { apiKey } : { authToken }),
    baseURL,
    timeout,
    maxRetries: 0,
  });
  cached = { key, client };
  return client;
}

// ---- error classification ----

function abortedError(cause?: unknown): ModelError {
  return new ModelError('Request was aborted.', { kind: 'aborted', retryable: false, cause });
}

const KIND_BY_API_TYPE: Record<string, ModelErrorKind> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  invalid_request_error: 'invalid_request',
  not_found_error: 'invalid_request',
  request_too_large: 'invalid_request',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  timeout_error: 'server',
};

function kindOfStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status >= 500 || status === 408 || status === 409) return 'server';
  return 'invalid_request';
}

const RETRYABLE: ReadonlySet<ModelErrorKind> = new Set(['rate_limit', 'overloaded', 'server', 'connection']);

/** Turn whatever the SDK or the network threw into a ModelError. */
export function toModelError(e: unknown, signal?: AbortSignal): ModelError {
  if (e instanceof ModelError) return e;
  if (signal?.aborted) return abortedError(e);
  const err = e as any;
  const name: string = err?.constructor?.name ?? err?.name ?? '';
  if (name === 'APIUserAbortError' || err?.name === 'AbortError') return abortedError(e);
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') {
    return new ModelError(`API Error: ${err.message || 'Connection error.'}`, { kind: 'connection', retryable: true, cause: e });
  }
  if (typeof err?.status === 'number' || (err && 'error' in err && 'headers' in err)) {
    // An APIError: an HTTP status, or an `event: error` in the middle of a stream (no status).
    const status: number | null = typeof err.status === 'number' ? err.status : null;
    const body = err.error as { error?: { type?: string; message?: string } } | undefined;
    const apiType = err.type ?? body?.error?.type ?? null;
    const apiMessage: string = err.apiMessage ?? body?.error?.message ?? (body ? JSON.stringify(body) : err.message);
    const kind = status !== null ? kindOfStatus(status) : (KIND_BY_API_TYPE[apiType ?? ''] ?? 'server');
    const headers = err.headers as { get(n: string): string | null } | undefined;
    const shouldRetry = headers?.get?.('x-should-retry');
    const retryable = shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : RETRYABLE.has(kind);
    const text = status !== null ? `API Error: ${status} ${apiMessage}` : `API Error: ${apiMessage}`;
    return new ModelError(text, { status, kind, retryable, retryAfterMs: parseRetryAfter(headers), cause: e });
  }
  // Anything else thrown while reading the body (undici's "terminated", ECONNRESET, …) is the
  // connection dying under us.
  const msg = err?.message ?? String(e);
  return new ModelError(`API Error: Connection error (${msg})`, { kind: 'connection', retryable: true, cause: e });
}

// ---- assembling the streamed message ----

/** Builds the final Message from raw stream events, the way the API's non-streaming reply would look. */
class MessageAssembler {
  private message: Message | null = null;
  private readonly json = new Map<number, string>();
  private stopped = false;

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
        return;
      case 'content_block_start': {
        const block = { ...event.content_block } as ContentBlock;
        this.need().content[event.index] = block;
        if (block.type === 'tool_use' || block.type === 'server_tool_use') this.json.set(event.index, '');
        return;
      }
      case 'content_block_delta': {
        const block = this.need().content[event.index] as any;
        if (!block) throw new Error(`content_block_delta for unknown block ${event.index}`);
        const d = event.delta;
        if (d.type === 'text_delta') block.text += d.text;
        else if (d.type === 'thinking_delta') block.thinking += d.thinking;
        else if (d.type === 'signature_delta') block.signature = d.signature;
        else if (d.type === 'input_json_delta') this.json.set(event.index, (this.json.get(event.index) ?? '') + d.partial_json);
        else if (d.type === 'citations_delta') (block.citations ??= []).push(d.citation);
        return;
      }
      case 'content_block_stop': {
        const raw = this.json.get(event.index);
        if (raw !== undefined) {
          const block = this.need().content[event.index] as any;
          // A tool_use with no input streams no JSON at all: that means {}.
          block.input = raw.trim() === '' ? {} : JSON.parse(raw);
          this.json.delete(event.index);
        }
        return;
      }
      case 'message_delta': {
        const m = this.need();
        m.stop_reason = event.delta.stop_reason;
        m.stop_sequence = event.delta.stop_sequence;
        // Delta usage is cumulative; copy the counts it carries, keep the rest.
        for (const [k, v] of Object.entries(event.usage ?? {})) {
          if (v !== null && v !== undefined) (m.usage as any)[k] = v;
        }
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
    }
  }

  /** The message, or a retryable error if the stream ended before message_stop. */
  finish(): Message {
    if (!this.message || !this.stopped) {
      throw new ModelError('API Error: the response stream ended before the reply was complete', {
        kind: 'connection',
        retryable: true,
      });
    }
    return this.message;
  }

  private need(): Message {
    if (!this.message) throw new Error('stream event before message_start');
    return this.message;
  }
}

// ---- the call ----

function buildParams(req: ModelRequest) {
  const systemEmpty = typeof req.system === 'string' ? req.system === '' : req.system.length === 0;
  return {
    model: req.model,
    max_tokens: req.maxTokens,
    messages: req.messages,
    ...(systemEmpty ? {} : { system: req.system }),
    ...(req.tools.length ? { tools: req.tools as Anthropic.Messages.Tool[] } : {}),
    ...(req.thinkingBudget ? { thinking: { type: 'enabled' as const, budget_tokens: req.thinkingBudget } } : {}),
    stream: true as const,
  };
}

async function* attempt(client: Anthropic, req: ModelRequest): AsyncGenerator<ModelEvent, Message> {
  const headers = req.betas?.length ? { 'anthropic-beta': req.betas.join(',') } : undefined;
  const stream = await client.messages.create(buildParams(req), { signal: req.signal, headers });
  const assembler = new MessageAssembler();
  for await (const event of stream) {
    try {
      assembler.add(event);
    } catch (e) {
      // A malformed event is the server's fault or ours, not a flaky network: don't retry it.
      throw new ModelError(`API Error: malformed stream: ${(e as Error).message}`, { kind: 'server', retryable: false, cause: e });
    }
    yield { type: 'stream_event', event };
  }
  // The SDK's stream ends quietly on abort; don't mistake that for a finished reply.
  if (req.signal.aborted) throw abortedError();
  return assembler.finish();
}

/** Resolves after `ms`, or rejects with an aborted ModelError as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortedError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects with an aborted ModelError when `signal` aborts, whatever `p` is doing. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {}); // nobody waits for it any more; don't let it become an unhandled rejection
    return Promise.reject(abortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Stream one model reply. Retries 429, 529, 5xx, connection errors and cut streams up to
 * `maxRetries` times (default: AGENT_MAX_RETRIES, else 10); throws ModelError otherwise.
 * `message.durationMs` is the wall time from the first request to the final message, retries included.
 */
export async function* streamModel(req: ModelRequest, opts: { maxRetries?: number } = {}): AsyncGenerator<ModelEvent, void> {
  const env = process.env;
  if (!hasCredentials(env)) {
    throw new ModelError(NOT_LOGGED_IN, { kind: 'no_credentials', retryable: false });
  }
  if (req.signal.aborted) throw abortedError();
  const maxRetries = opts.maxRetries ?? maxRetriesFromEnv(env);
  const client = await raceAbort(getClient(env), req.signal);
  const started = Date.now();

  for (let failures = 1; ; failures++) {
    const it = attempt(client, req);
    let outcome!: Message | ModelError;
    try {
      for (;;) {
        let step: IteratorResult<ModelEvent, Message>;
        try {
          step = await raceAbort(it.next(), req.signal);
        } catch (e) {
          outcome = toModelError(e, req.signal);
          break;
        }
        if (step.done) {
          outcome = step.value;
          break;
        }
        // Outside the try: an error the consumer throws in here is not an API failure to retry.
        yield step.value;
      }
    } finally {
      // Closes the HTTP stream if we stop early (abort, error, or the consumer stopped reading).
      // Not awaited: after an abort the pending read settles on its own, and we answer now.
      void it.return(undefined as never).catch(() => {});
    }

    if (!(outcome instanceof ModelError)) {
      yield { type: 'message', message: outcome, durationMs: Date.now() - started };
      return;
    }
    const err = outcome;
    if (!err.retryable || failures > maxRetries) throw err;
    const delay = retryDelayMs(failures, err.retryAfterMs);
    yield {
      type: 'api_retry',
      attempt: failures,
      max_retries: maxRetries,
      retry_delay_ms: delay,
      error_status: err.status,
      error: err.category,
    };
    await sleep(delay, req.signal);
  }
}
