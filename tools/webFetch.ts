// WebFetch: fetch a URL, turn its HTML into Markdown, and let a small fast model answer the
// prompt over it, so a whole page never lands in the main conversation. Redirects are followed
// only within the host the permission was given for; a cross-host one goes back to the model.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import type TurndownService from 'turndown';
import { loadExternal } from '../src/util/loadExternal.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';
import { replyText } from './agentEvents.js';

export const webFetchInputSchema = lazySchema(() =>
  z.strictObject({
    url: z.string().describe('The URL to fetch content from'),
    prompt: z.string().min(1).describe('The prompt to run on the fetched content'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.',
      ),
  }),
);
export type WebFetchInput = z.infer<typeof webFetchInputSchema>;

/** The SDK's WebFetchOutput: the structured `tool_use_result`. */
export const webFetchOutputSchema = lazySchema(() =>
  z.object({
    bytes: z.number().describe('Size of the fetched content in bytes'),
    code: z.number().describe('HTTP response code'),
    codeText: z.string().describe('HTTP response code text'),
    result: z.string().describe('Processed result from applying the prompt to the content'),
    durationMs: z.number().describe('Time taken to fetch and process the content'),
    url: z.string().describe('The URL that was fetched'),
  }),
);
export type WebFetchOutput = z.infer<typeof webFetchOutputSchema>;

export interface WebFetchLimits {
  /** A body larger than this is refused (read no further). */
  maxBytes: number;
  /** The whole fetch (every redirect hop and the body) must end within this. */
  timeoutMs: number;
  /** The page text handed to the small model per call; `offset` reads on. */
  maxPageChars: number;
  /** How long a fetched page is reused for the same URL. */
  cacheTtlMs: number;
  maxRedirects: number;
}

export const WEB_FETCH_LIMITS: WebFetchLimits = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 60_000,
  maxPageChars: 100_000,
  cacheTtlMs: 15 * 60_000,
  maxRedirects: 10,
};

const DESCRIPTION = `Fetches a URL and answers a prompt about its content.
- Takes a URL and a prompt; fetches the page, converts HTML to Markdown, and a small, fast model answers the prompt from the page. Returns that answer, not the raw page.
- Use it to read web pages and documentation. If an MCP tool offers web fetching, prefer it.
- The URL must be fully formed. HTTP URLs are upgraded to HTTPS (except localhost).
- Read-only; each fetch is cached for 15 minutes per URL, so asking again about the same page is fast.
- When the page redirects to a different host, the result says so and gives the new URL: call WebFetch again with it.
- Long pages are cut; the result says which offset to pass to read on.`;

const SMALL_MODEL_SYSTEM =
  'You answer questions about one web page, using only its content. Be concise; quote exactly where wording matters.';

interface FetchedPage {
  url: string;
  code: number;
  codeText: string;
  contentType: string;
  bytes: number;
  /** Markdown (HTML) or the text as sent; undefined for binary content. */
  text?: string;
  body: Buffer;
}

/** Pages fetched in the last 15 minutes, by requested URL; bounded so a long session stays small. */
class PageCache {
  private readonly pages = new Map<string, { page: FetchedPage; at: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxEntries = 64,
  ) {}
  get(url: string): FetchedPage | undefined {
    const hit = this.pages.get(url);
    if (!hit) return undefined;
    if (this.now() - hit.at > this.ttlMs) {
      this.pages.delete(url);
      return undefined;
    }
    return hit.page;
  }
  set(url: string, page: FetchedPage): void {
    this.pages.delete(url);
    this.pages.set(url, { page, at: this.now() });
    while (this.pages.size > this.maxEntries) this.pages.delete(this.pages.keys().next().value!);
  }
}

function isLocalHost(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
}

/** The URL to fetch: parsed, http(s) only, no credentials, http upgraded to https except for localhost. */
export function normaliseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError(`Invalid URL "${raw.slice(0, 200)}": give a fully formed URL such as https://example.com/page`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`Unsupported URL scheme "${url.protocol}": WebFetch fetches http and https URLs only`);
  }
  if (url.username || url.password) throw new ToolError('URLs with a user name or password are not fetched');
  if (url.protocol === 'http:' && !isLocalHost(url.hostname)) url.protocol = 'https:';
  return url;
}

/** Same host, or the same host with or without "www.": a redirect WebFetch follows by itself. */
function sameSite(a: URL, b: URL): boolean {
  const strip = (h: string) => h.toLowerCase().replace(/^www\./, '');
  return strip(a.hostname) === strip(b.hostname) && (a.port === b.port || a.protocol !== b.protocol);
}

const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml)/i;

function isBinary(contentType: string, body: Buffer): boolean {
  if (contentType && !TEXTUAL.test(contentType)) return true;
  // No (or a lying) content type: NUL bytes in the first KB mean binary.
  return body.subarray(0, 1024).includes(0);
}

let turndownService: TurndownService | undefined;

/** Loaded on the first HTML page, not at start-up: most sessions never fetch one. */
async function turndown(): Promise<TurndownService> {
  if (turndownService) return turndownService;
  // Kept out of the bundle (scripts/bundle.mjs): loaded from node_modules.
  const Turndown = loadExternal<typeof TurndownService>('turndown');
  turndownService = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndownService.remove(['script', 'style', 'noscript', 'iframe', 'svg', 'template', 'head', 'title'] as never);
  return turndownService;
}

/** HTML past this is not converted (turndown takes about a second per MB): the text says where it was cut. */
export const MAX_HTML_CHARS = 1_000_000;

/** HTML → Markdown; the <main> or <article> element when the page has one (the page's chrome left out). */
export async function htmlToMarkdown(html: string): Promise<string> {
  // Scripts and styles can be most of a page's bytes: drop them before the (slower) conversion.
  let source = html.replace(/<(script|style|noscript|svg|template)\b[\s\S]*?<\/\1\s*>/gi, '');
  const main = /<(main|article)\b[^>]*>([\s\S]*?)<\/\1>/i.exec(source);
  if (main && main[2].trim().length > 200) source = main[2];
  const cut = source.length > MAX_HTML_CHARS;
  const markdown = (await turndown()).turndown(cut ? source.slice(0, MAX_HTML_CHARS) : source).trim();
  return cut
    ? `${markdown}\n\n[The page's HTML was cut at ${MAX_HTML_CHARS} of its ${source.length} characters.]`
    : markdown;
}

type Hop = { kind: 'page'; page: FetchedPage } | { kind: 'redirect'; from: URL; to: URL; code: number };

async function readCapped(res: Response, maxBytes: number, url: URL): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new ToolError(`${url.href} is ${declared} bytes, more than WebFetch's limit of ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        await res.body.cancel().catch(() => {});
        throw new ToolError(
          `${url.href} sent more than WebFetch's limit of ${maxBytes} bytes; the download was stopped`,
        );
      }
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks);
}

/** Fetch one URL, following same-site redirects; a cross-host redirect is returned, not followed. */
async function fetchPage(start: URL, limits: WebFetchLimits, signal: AbortSignal, fetch: PageFetch): Promise<Hop> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let url = start;
  try {
    for (let hop = 0; ; hop++) {
      const res = await fetch(url, {
        redirect: 'manual',
        signal: both,
        headers: { accept: 'text/markdown, text/html;q=0.9, */*;q=0.8', 'user-agent': 'agent-runtime WebFetch' },
      });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel().catch(() => {});
        const to = new URL(res.headers.get('location')!, url);
        if (to.protocol !== 'http:' && to.protocol !== 'https:')
          throw new ToolError(`${url.href} redirects to an unsupported URL: ${to.href}`);
        if (!sameSite(url, to)) return { kind: 'redirect', from: url, to, code: res.status };
        if (hop >= limits.maxRedirects)
          throw new ToolError(`Too many redirects (more than ${limits.maxRedirects}) starting at ${start.href}`);
        url = to;
        continue;
      }
      const body = await readCapped(res, limits.maxBytes, url);
      const contentType = res.headers.get('content-type') ?? '';
      const page: FetchedPage = {
        url: url.href,
        code: res.status,
        codeText: res.statusText,
        contentType,
        bytes: body.byteLength,
        body,
      };
      if (!isBinary(contentType, body)) {
        const raw = body.toString('utf8');
        page.text =
          /html/i.test(contentType) || (!contentType && /^\s*<(!doctype|html)/i.test(raw))
            ? await htmlToMarkdown(raw)
            : raw;
      }
      return { kind: 'page', page };
    }
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (signal.aborted) throw err;
    if (timeout.aborted)
      throw new ToolError(
        `Fetching ${url.href} took longer than ${limits.timeoutMs >= 1000 ? `${Math.round(limits.timeoutMs / 1000)} s` : `${limits.timeoutMs} ms`} and was stopped`,
      );
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolError(`Could not fetch ${url.href}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
}

const EXT: Record<string, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'application/zip': '.zip',
};

/** Binary content is kept in the session's scratch folder: the model may Read it (images, PDFs). */
async function saveBinary(page: FetchedPage, ctx: ToolContext): Promise<string> {
  const ext = EXT[page.contentType.split(';')[0].trim().toLowerCase()] ?? '.bin';
  const file = path.join(ctx.scratchDir, `webfetch-${ctx.toolUseId.replace(/[^\w-]/g, '_')}${ext}`);
  await mkdir(ctx.scratchDir, { recursive: true, mode: 0o700 });
  await writeFile(file, page.body);
  return file;
}

/** What WebFetch needs of a fetch: a URL and options in, a Response out. */
export type PageFetch = (url: URL, init: RequestInit) => Promise<Response>;

export interface WebFetchDeps {
  limits?: Partial<WebFetchLimits>;
  now?: () => number;
  /** The fetch that reaches the page (the session gives undici's: src/net/undici.ts); the global one by default. */
  fetch?: PageFetch;
}

/** The host of an http(s) url, lower-cased, or undefined when it is not one. */
function urlHost(url: string): string | undefined {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname ? u.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

export function createWebFetchTool(deps: WebFetchDeps = {}) {
  const limits = { ...WEB_FETCH_LIMITS, ...deps.limits };
  const now = deps.now ?? Date.now;
  const cache = new PageCache(limits.cacheTtlMs, now);
  // The global read at each call, so a test's stub of it applies.
  const fetchImpl: PageFetch = deps.fetch ?? ((url, init) => globalThis.fetch(url, init));

  return defineTool({
    name: 'WebFetch',
    deferred: true,
    description: DESCRIPTION,
    inputSchema: webFetchInputSchema,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    kind: 'fetch',
    describedBy: ['url'],
    label: (input) => `Fetch ${input.url}`,
    // `WebFetch(domain:example.com)` covers the site and its subdomains.
    matchesRuleContent: (content, input) => {
      if (!content.startsWith('domain:')) return false;
      const domain = content.slice('domain:'.length).toLowerCase();
      try {
        const host = new URL(input.url).hostname.toLowerCase();
        return host === domain || host.endsWith(`.${domain}`);
      } catch {
        return false;
      }
    },
    // As the reference offers it: this site from now on, not every site.
    suggestRuleContent: (input) => {
      const host = urlHost(input.url);
      return host === undefined ? undefined : `domain:${host}`;
    },
    async *call(input, ctx) {
      const started = now();
      const url = normaliseUrl(input.url);
      const loop = ctx.loop;
      if (!loop) throw new ToolError('WebFetch needs a model to read the page, and this context has none');

      let page = cache.get(url.href);
      if (!page) {
        const hop = await fetchPage(url, limits, ctx.signal, fetchImpl);
        if (hop.kind === 'redirect') {
          const result = `REDIRECT DETECTED: ${hop.from.href} redirects to a different host: ${hop.to.href} (HTTP ${hop.code}).\nTo read it, call WebFetch again with url "${hop.to.href}" and the same prompt.`;
          const data: WebFetchOutput = {
            bytes: 0,
            code: hop.code,
            codeText: 'Redirect',
            result,
            durationMs: now() - started,
            url: url.href,
          };
          return { content: result, data };
        }
        page = hop.page;
        if (page.code >= 200 && page.code < 300) cache.set(url.href, page);
      }

      const base = { bytes: page.bytes, code: page.code, codeText: page.codeText, url: page.url };
      if (page.code < 200 || page.code >= 300) {
        const snippet = page.text ? `\n${page.text.slice(0, 500)}` : '';
        throw new ToolError(`Request failed: HTTP ${page.code} ${page.codeText} for ${page.url}${snippet}`, {
          ...base,
          result: '',
          durationMs: now() - started,
        } satisfies WebFetchOutput);
      }
      if (page.text === undefined) {
        const file = await saveBinary(page, ctx);
        const result = `${page.url} is binary content (${page.contentType || 'unknown type'}, ${page.bytes} bytes), not text: it was saved to ${file}. Use Read on that file if it is an image or a PDF.`;
        return { content: result, data: { ...base, result, durationMs: now() - started } satisfies WebFetchOutput };
      }

      const offset = input.offset ?? 0;
      if (offset > 0 && offset >= page.text.length) {
        throw new ToolError(`offset ${offset} is past the end of the page text (${page.text.length} characters)`);
      }
      const slice = page.text.slice(offset, offset + limits.maxPageChars);
      const rest = page.text.length - offset - slice.length;
      const model = loop.smallFastModel();
      const reply = await loop.sideCall({
        model,
        system: SMALL_MODEL_SYSTEM,
        prompt: `Web page content (${page.url}${offset ? `, from character ${offset}` : ''}):\n---\n${slice}\n---\n\n${input.prompt}\n\nAnswer from the content above only.`,
        maxTokens: 4096,
        signal: ctx.signal,
        caller: ctx.toolUseId,
      });
      const answer = replyText(reply) || '(the model gave no answer)';
      const more =
        rest > 0
          ? `\n\n[The page has ${rest} more characters: call WebFetch with offset ${offset + slice.length} to read on.]`
          : '';
      const result = answer + more;
      return { content: result, data: { ...base, result, durationMs: now() - started } satisfies WebFetchOutput };
    },
  });
}

export const WebFetchTool = createWebFetchTool();
