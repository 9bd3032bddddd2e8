// Model API failures: ModelError, classifying what the SDK threw, and the retry backoff and retry-after rules.

/** The categories the host protocol uses for `api_retry.error` and assistant-message errors. */
export type ApiErrorCategory =
  | 'authentication_failed'
  | 'rate_limit'
  | 'overloaded'
  | 'invalid_request'
  | 'server_error'
  | 'unknown';

export type ModelErrorKind =
  | 'auth'
  | 'invalid_request'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'aborted'
  | 'no_credentials'
  /** The API's reply was not valid JSON: a streamed one gets one non-streaming attempt. */
  | 'malformed_response'
  /** Our side failed before anything was sent (the body cannot be serialised): nothing to retry. */
  | 'local'
  /** --replay could not serve the request (it differs from the recording, or goes past it). */
  | 'replay';

export class ModelError extends Error {
  readonly status: number | null;
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  /** From `retry-after-ms` / `retry-after`, when the API said how long to wait. */
  readonly retryAfterMs: number | null;
  constructor(
    message: string,
    init: {
      status?: number | null;
      kind: ModelErrorKind;
      retryable: boolean;
      retryAfterMs?: number | null;
      cause?: unknown;
    } = {
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
      case 'malformed_response':
        return 'server_error';
      default:
        return 'unknown';
    }
  }
}

const DEFAULT_MAX_RETRIES = 10;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 32_000;

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
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | null {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const raw = headers?.get('retry-after')?.trim();
  if (!raw) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function abortedError(cause?: unknown): ModelError {
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

function isApiError(err: any): boolean {
  return (
    typeof err?.status === 'number' || Boolean(err && typeof err === 'object' && 'error' in err && 'headers' in err)
  );
}

function isConnectionError(err: any): boolean {
  const name: string = err?.constructor?.name ?? err?.name ?? '';
  return name === 'APIConnectionError' || name === 'APIConnectionTimeoutError';
}

/**
 * An error thrown while the request was being made, before any reply: the API's and the network's
 * errors are classified as usual; anything else (a body JSON.stringify cannot serialise: nesting
 * too deep, a cycle, a BigInt) is local, and a retry would fail the same way.
 */
export function toRequestError(e: unknown, signal?: AbortSignal): ModelError {
  const err = e as any;
  if (
    e instanceof ModelError ||
    signal?.aborted ||
    isApiError(err) ||
    isConnectionError(err) ||
    e instanceof SyntaxError
  )
    return toModelError(e, signal);
  const name: string = err?.constructor?.name ?? err?.name ?? '';
  if (name === 'APIUserAbortError' || err?.name === 'AbortError') return abortedError(e);
  const msg = err?.message ?? String(e);
  return new ModelError(`The request could not be built: ${msg}`, { kind: 'local', retryable: false, cause: e });
}

/** What @anthropic-ai/bedrock-sdk throws when a chunk of the event stream is not JSON. */
const BEDROCK_BAD_CHUNK = /^Could not parse a Bedrock chunk into JSON/;

/** Turn whatever the SDK or the network threw into a ModelError. */
export function toModelError(e: unknown, signal?: AbortSignal): ModelError {
  if (e instanceof ModelError) return e;
  if (signal?.aborted) return abortedError(e);
  const err = e as any;
  const name: string = err?.constructor?.name ?? err?.name ?? '';
  if (name === 'APIUserAbortError' || err?.name === 'AbortError') return abortedError(e);
  if (isConnectionError(err)) {
    return new ModelError(`API Error: ${err.message || 'Connection error.'}`, {
      kind: 'connection',
      retryable: true,
      cause: e,
    });
  }
  if (e instanceof SyntaxError || BEDROCK_BAD_CHUNK.test(err?.message ?? '')) {
    // The SDK's JSON.parse of an SSE event or a reply body (the Bedrock SDK's of an event-stream
    // chunk, which it rethrows as a plain AnthropicError): the bytes arrived, they are wrong.
    return new ModelError(`API Error: the API's reply was not valid JSON (${err.message})`, {
      kind: 'malformed_response',
      retryable: false,
      cause: e,
    });
  }
  if (isApiError(err)) {
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
