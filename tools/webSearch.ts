// WebSearch: the Messages API searches the web itself (its server-side web_search tool). The tool
// makes one model call that carries the server tool; the reply's server_tool_use and
// web_search_tool_result blocks become the results the model reads and the host is shown.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';
import type { AssistantMessage } from './agentEvents.js';
import type { ServerTool } from './tool.js';

const domainList = lazySchema(() => z.array(z.string().min(1)).optional());

export const webSearchInputSchema = lazySchema(() =>
  z
    .strictObject({
      query: z.string().min(2).describe('The search query to use'),
      allowed_domains: domainList.describe('Only include search results from these domains'),
      blocked_domains: domainList.describe('Never include search results from these domains'),
    })
    .refine((i) => !(i.allowed_domains?.length && i.blocked_domains?.length), {
      message: 'give allowed_domains or blocked_domains, not both',
    }),
);
export type WebSearchInput = z.infer<typeof webSearchInputSchema>;

const hitSchema = lazySchema(() =>
  z.object({
    title: z.string().describe('The title of the search result'),
    url: z.string().describe('The URL of the search result'),
  }),
);

/** The SDK's WebSearchOutput: the structured `tool_use_result`. */
export const webSearchOutputSchema = lazySchema(() =>
  z.object({
    query: z.string().describe('The search query that was executed'),
    results: z
      .array(
        z.union([
          z.object({ tool_use_id: z.string().describe('ID of the tool use'), content: z.array(hitSchema) }),
          z.string(),
        ]),
      )
      .describe('Search results and/or text commentary from the model'),
    durationSeconds: z.number().describe('Time taken to complete the search operation'),
  }),
);
export type WebSearchOutput = z.infer<typeof webSearchOutputSchema>;

/** The server tool's version the request names, and how many searches one call may make. */
export const WEB_SEARCH_TOOL_TYPE = 'web_search_20250305';
const MAX_SEARCHES = 8;

const DESCRIPTION = `Searches the web and returns the results (titles and URLs) with a short summary.
- Use it for information past your training data or that changes: current events, recent releases, documentation of new versions.
- allowed_domains limits the results to some sites; blocked_domains leaves sites out (not both).
- Cite what you use: after answering, list the sources as Markdown links under "Sources:".
- To read a result in full, use WebFetch on its URL.`;

const SYSTEM =
  'You search the web for the user. Use the web_search tool, then summarise what you found in a few sentences, naming the sources.';

/** The reply's blocks, in order, as the SDK's results: each search's hits, and the text around them. */
export function resultsOf(reply: AssistantMessage): { results: WebSearchOutput['results']; errors: string[] } {
  const results: WebSearchOutput['results'] = [];
  const errors: string[] = [];
  for (const block of reply.content) {
    if (block.type === 'text') {
      const t = String(block.text ?? '').trim();
      if (t) results.push(t);
    } else if (block.type === 'web_search_tool_result') {
      const content = block.content;
      if (Array.isArray(content)) {
        const hits = content
          .filter(
            (h): h is { title?: unknown; url: string } =>
              !!h && typeof h === 'object' && typeof (h as { url?: unknown }).url === 'string',
          )
          .map((h) => ({ title: typeof h.title === 'string' ? h.title : h.url, url: h.url }));
        results.push({ tool_use_id: String(block.tool_use_id ?? ''), content: hits });
      } else {
        const code = (content as { error_code?: unknown } | undefined)?.error_code;
        errors.push(typeof code === 'string' ? code : 'unknown_error');
      }
    }
  }
  return { results, errors };
}

/** What the model reads: the links of every search, then the commentary. */
function formatForModel(query: string, results: WebSearchOutput['results']): string {
  const parts = results.map((r) => (typeof r === 'string' ? r : `Links: ${JSON.stringify(r.content)}`));
  return `Web search results for query: "${query}"\n\n${parts.join('\n\n') || 'No results found.'}\n\nREMINDER: cite the sources you use as Markdown links.`;
}

export const WebSearchTool = defineTool({
  name: 'WebSearch',
  deferred: true,
  description: DESCRIPTION,
  inputSchema: webSearchInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  kind: 'fetch',
  describedBy: ['query'],
  label: (input) => `Search the web: ${input.query}`,
  async *call(input, ctx) {
    const loop = ctx.loop;
    if (!loop) throw new ToolError('WebSearch needs the model to search, and this context has none');
    const started = Date.now();
    const server: ServerTool = {
      type: WEB_SEARCH_TOOL_TYPE,
      name: 'web_search',
      max_uses: MAX_SEARCHES,
      ...(input.allowed_domains?.length ? { allowed_domains: input.allowed_domains } : {}),
      ...(input.blocked_domains?.length ? { blocked_domains: input.blocked_domains } : {}),
    };
    const model = loop.model();
    const reply = await loop.sideCall({
      model,
      system: SYSTEM,
      prompt: `Perform a web search for the query: ${input.query}`,
      tools: [server],
      maxTokens: 4096,
      signal: ctx.signal,
      caller: ctx.toolUseId,
    });
    // The host is shown the search reply itself (server_tool_use, web_search_tool_result, text),
    // under this call, as it is shown a subagent's messages.
    yield { type: 'forward', event: { parentToolUseId: ctx.toolUseId, type: 'assistant', message: reply } };
    const { results, errors } = resultsOf(reply);
    const hits = results.filter((r) => typeof r !== 'string');
    if (errors.length && hits.length === 0) {
      throw new ToolError(`Web search failed: ${errors.join(', ')} (query: "${input.query}")`);
    }
    const data: WebSearchOutput = { query: input.query, results, durationSeconds: (Date.now() - started) / 1000 };
    return { content: formatForModel(input.query, results), data };
  },
});
