// The `fetch` the Anthropic SDK is given for the Messages API (providerClient.ts): one request over
// Node's http/https modules. Node's own fetch loads undici, with HTTP/2, TLS, zlib and a
// WebAssembly HTTP parser, at the first request of every process: about 80 ms of CPU at each start
// and more per request than a plain http.request. This covers what the SDK asks of a fetch: a
// method, headers, a string or byte body, an AbortSignal, redirects followed; a Response whose
// body is the Node stream itself (the SDK reads any async-iterable body). Bedrock's requests come
// here too: the wrapper's own Response, the SSE it transcodes the event stream into, is MadeResponse.
//
// Anything else goes to the global fetch unchanged: a proxy or a client certificate (their undici
// dispatcher is installed by outboundAgent.ts), a streamed or form body, a fetch option we do not
// implement, a protocol other than http: and https:. As Node's fetch does, a connection not made
// within 10 s fails (the SDK calls that a timeout; the loop retries it) rather than waiting for
// the system's TCP timeout, about two minutes, and a gzip, deflate or br body is decoded.
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { Readable } from 'node:stream';
import { loadExternal } from '../util/loadExternal.js';
import { outboundConfigured } from './outboundAgent.js';
import { WebHeaders } from './webHeaders.js';

type FetchInit = {
  method?: string;
  headers?: ConstructorParameters<typeof WebHeaders>[0];
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: string;
  duplex?: string;
  [option: string]: unknown;
};

/** Options this fetch honours; any other set in an init sends the request through the global fetch. */
const HANDLED = new Set(['method', 'headers', 'body', 'signal', 'redirect', 'duplex']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
/** Statuses whose response has no body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Node's fetch (undici) gives up on a connection after this long. */
const CONNECT_TIMEOUT_MS = 10_000;

export class HttpResponse {
  bodyUsed = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: WebHeaders,
    readonly url: string,
    readonly redirected: boolean,
    /** The response's bytes as they arrive (decoded); null for a status that has none. */
    readonly body: Readable | AsyncIterable<Uint8Array> | null,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  private async bytes(): Promise<Buffer> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    if (!this.body) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    for await (const chunk of this.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

/**
 * `new Response(body, init)` for a body a client makes itself, without Node's fetch: the Bedrock
 * wrapper's event stream transcoded to SSE (its core/streaming.mjs is given this class in place of
 * the global Response, scripts/bundle.mjs). `body` is an async iterable of bytes, which the SDK reads
 * as it reads httpFetch's bodies; ending its iteration early (an abort, a stream left unread) ends
 * the iterable with it. `url` is '' as a made Response's is (the wrapper sets it).
 */
export class MadeResponse extends HttpResponse {
  constructor(
    body: AsyncIterable<Uint8Array> | null,
    init: { status?: number; statusText?: string; headers?: ConstructorParameters<typeof WebHeaders>[0] } = {},
  ) {
    super(init.status ?? 200, init.statusText ?? '', new WebHeaders(init.headers), '', false, body);
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function bodyBytes(body: unknown): Buffer | null | undefined {
  if (body == null) return null;
  if (typeof body === 'string') return Buffer.from(body);
  if (Buffer.isBuffer(body)) return body;
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return undefined; // a stream, a Blob, a FormData …: not ours to send
}

function handles(url: URL, init: FetchInit, body: Buffer | null | undefined): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (body === undefined) return false;
  if (init.redirect !== undefined && init.redirect !== 'follow') return false;
  for (const key of Object.keys(init)) if (init[key] !== undefined && !HANDLED.has(key)) return false;
  return !outboundConfigured(process.env);
}

/** One exchange: resolves when the status line and headers are in. */
function exchange(
  url: URL,
  method: string,
  headers: WebHeaders,
  body: Buffer | null,
  signal: AbortSignal | null | undefined,
  connectTimeoutMs: number,
): Promise<IncomingMessage> {
  const http = loadExternal<typeof import('node:http')>(url.protocol === 'https:' ? 'node:https' : 'node:http');
  const outgoing: Record<string, string> = Object.fromEntries(headers);
  if (body && outgoing['content-length'] === undefined) outgoing['content-length'] = String(body.length);
  const options: RequestOptions = { method, headers: outgoing };
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const req = http.request(url, options);
    let response: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = abortError(signal as AbortSignal);
      req.destroy(reason as Error);
      response?.destroy(reason as Error);
      reject(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = () => signal?.removeEventListener('abort', onAbort);
    req.on('socket', (socket) => {
      if (!socket.connecting) return; // a kept-alive connection, already open
      const timer = setTimeout(() => {
        const error = new Error(`Connect Timeout Error (no connection to ${url.host} within ${connectTimeoutMs} ms)`);
        req.destroy(Object.assign(error, { code: 'UND_ERR_CONNECT_TIMEOUT' }));
      }, connectTimeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.on('error', (err) => {
      release();
      // As Node's fetch reports a failure to connect or to send: the SDK makes it a connection error.
      reject(signal?.aborted ? abortError(signal) : new TypeError('fetch failed', { cause: err }));
    });
    req.on('response', (res) => {
      response = res;
      // The abort listener stays until the body is done: an abort mid-stream ends the body with it.
      res.once('close', release);
      resolve(res);
    });
    req.end(body ?? undefined);
  });
}

/** The body as the Fetch standard gives it: decoded when the server compressed it. */
function decoded(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(encoding)) return res;
  const zlib = loadExternal<typeof import('node:zlib')>('node:zlib');
  const decoder =
    encoding === 'br'
      ? zlib.createBrotliDecompress()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  // An error on either side (a cut connection, an abort, bad bytes) ends the decoded body with it.
  loadExternal<typeof import('node:stream')>('node:stream').pipeline(res, decoder, () => {});
  return decoder;
}

export interface HttpFetchOptions {
  /** How long a new connection may take to open (default 10 s, as Node's fetch). */
  connectTimeoutMs?: number;
}

/** A fetch over node:http and node:https for the requests it can make, the global fetch for the rest. */
export function makeHttpFetch(options: HttpFetchOptions = {}) {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  return (input: string | URL | { url: string }, init: FetchInit = {}): Promise<HttpResponse> =>
    send(input, init, connectTimeoutMs);
}

/** The fetch the model clients are given. */
export const httpFetch = makeHttpFetch();

async function send(
  input: string | URL | { url: string },
  init: FetchInit,
  connectTimeoutMs: number,
): Promise<HttpResponse> {
  let url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const first = bodyBytes(init.body);
  if (!handles(url, init, first)) return (await fetch(input as string, init as RequestInit)) as unknown as HttpResponse;
  let method = (init.method ?? 'GET').toUpperCase();
  const headers = new WebHeaders(init.headers);
  let body = first ?? null;
  for (let redirects = 0; ; redirects++) {
    const res = await exchange(url, method, headers, body, init.signal, connectTimeoutMs);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location && redirects < MAX_REDIRECTS) {
      res.resume();
      const next = new URL(location, url);
      if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
        method = 'GET';
        body = null;
        for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language'])
          headers.delete(name);
      }
      // Credentials are for the origin they were given for.
      if (next.origin !== url.origin) for (const name of ['authorization', 'x-api-key', 'cookie']) headers.delete(name);
      url = next;
      continue;
    }
    if (REDIRECTS.has(status) && location) {
      res.destroy();
      throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
    }
    const responseHeaders = new WebHeaders();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i], raw[i + 1]);
    const empty = NULL_BODY.has(status) || method === 'HEAD';
    if (empty) res.resume();
    return new HttpResponse(
      status,
      res.statusMessage ?? '',
      responseHeaders,
      url.href,
      redirects > 0,
      empty ? null : decoded(res),
    );
  }
}
