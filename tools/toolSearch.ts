// ToolSearch: when many MCP tools are configured their definitions are withheld from the request
// (deferred, see src/loop/deferredTools.ts) and only their names are listed to the model. This
// tool finds deferred tools by keyword or by name and returns their full definitions; the loop
// then offers the found tools from the next model call on.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

const DEFAULT_MAX_RESULTS = 5;

export const toolSearchInputSchema = lazySchema(() =>
  z.strictObject({
    query: z
      .string()
      .min(1)
      .describe(
        'Keywords to search the deferred tools\' names and descriptions for, or "select:name1,name2" to load tools by exact name. Prefix a keyword with + to require it.',
      ),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`How many tools to return at most (default ${DEFAULT_MAX_RESULTS})`),
  }),
);
export type ToolSearchInput = z.infer<typeof toolSearchInputSchema>;

/** The structured `tool_use_result`: the names found, the query, and how many tools are deferred. */
export const toolSearchOutputSchema = lazySchema(() =>
  z.object({
    matches: z.array(z.string()),
    query: z.string(),
    total_deferred_tools: z.number(),
  }),
);
export type ToolSearchOutput = z.infer<typeof toolSearchOutputSchema>;

/** A deferred tool's definition, as the Messages API's `tools[]` carries it. */
export interface DeferredToolDefinition {
  name: string;
  description: string;
  input_schema: object;
}

/** What ToolSearch needs of the calling loop: its deferred tools (src/loop/deferredTools.ts implements it). */
export interface DeferredToolCatalog {
  /** Every deferred tool (loaded ones too), in offer order. */
  deferred(): DeferredToolDefinition[];
  /** Offer these tools from the next model call on. */
  load(names: string[]): void;
}

const DESCRIPTION = `Loads the definitions of deferred tools so you can call them.

Some tools (typically MCP tools, when many are configured) are not offered up front: a system reminder lists them by name only, and you cannot call them until they are loaded. Call ToolSearch first, then call the tools it returned from your next message on.

Query forms:
- "select:mcp__slack__send_message,mcp__slack__list_channels" loads those tools by exact name (use this when the listed name is clearly the tool you need).
- Keywords, e.g. "slack message", search the tools' names and descriptions and return the best matches (at most max_results, default ${DEFAULT_MAX_RESULTS}).
- "+slack send" requires "slack" in every match and ranks by the other words.

The result holds each matching tool's full definition (name, description, input schema).`;

/** A name split into lower-case words: `mcp__github__create_pull_request` → mcp, github, create, pull, request. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function containsWord(text: string, term: string): boolean {
  const at = text.indexOf(term);
  if (at < 0) return false;
  return at === 0 || !/[a-z0-9]/.test(text[at - 1]);
}

/** How well one tool matches one term: its name weighs more than its description. */
function termScore(tool: DeferredToolDefinition, words: string[], description: string, term: string): number {
  if (tool.name.toLowerCase() === term) return 20;
  if (words.includes(term)) return 10;
  if (words.some((w) => w.startsWith(term) || (term.length >= 4 && w.includes(term)))) return 5;
  if (containsWord(description, term)) return 2;
  return 0;
}

/**
 * Keyword search over names and descriptions: every `+term` must match; the score is the sum of
 * each term's score. Ties keep the offer order (stable sort).
 */
export function searchTools(tools: DeferredToolDefinition[], query: string, max: number): DeferredToolDefinition[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  const required = terms.filter((t) => t.startsWith('+') && t.length > 1).map((t) => t.slice(1));
  const ranked = terms.map((t) => (t.startsWith('+') ? t.slice(1) : t)).filter(Boolean);
  const scored: Array<{ tool: DeferredToolDefinition; score: number }> = [];
  for (const tool of tools) {
    const words = nameWords(tool.name);
    const description = tool.description.toLowerCase();
    if (required.some((t) => termScore(tool, words, description, t) === 0)) continue;
    const score = ranked.reduce((sum, t) => sum + termScore(tool, words, description, t), 0);
    if (score > 0) scored.push({ tool, score });
  }
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, max)
    .map((s) => s.tool);
}

/** `select:a,b`: exact names first, then a case-insensitive match; names not found are reported. */
export function selectTools(
  tools: DeferredToolDefinition[],
  list: string,
): { found: DeferredToolDefinition[]; missing: string[] } {
  const found: DeferredToolDefinition[] = [];
  const missing: string[] = [];
  for (const name of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const tool = tools.find((t) => t.name === name) ?? tools.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!tool) missing.push(name);
    else if (!found.includes(tool)) found.push(tool);
  }
  return { found, missing };
}

/** The definitions as the model reads them: one JSON object per tool inside <functions>. */
function definitionsText(tools: DeferredToolDefinition[]): string {
  const lines = tools.map(
    (t) =>
      `<function>${JSON.stringify({ description: t.description, name: t.name, parameters: t.input_schema })}</function>`,
  );
  return `<functions>\n${lines.join('\n')}\n</functions>`;
}

function catalog(ctx: ToolContext): DeferredToolCatalog {
  const c = ctx.loop?.deferredTools;
  if (!c) throw new ToolError('ToolSearch is not available here: no tools are deferred in this context.');
  return c;
}

export const ToolSearchTool = defineTool({
  name: 'ToolSearch',
  description: DESCRIPTION,
  inputSchema: toolSearchInputSchema,
  // The loop defers tools only while this is offered, and names it in the deferred-tools reminder.
  role: 'tool-search',
  // It only changes which tools the model is offered.
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(input, ctx) {
    const c = catalog(ctx);
    const all = c.deferred();
    const query = input.query.trim();
    const max = input.max_results ?? DEFAULT_MAX_RESULTS;
    let found: DeferredToolDefinition[];
    let note = '';
    const select = /^select:/i.exec(query);
    if (select) {
      const r = selectTools(all, query.slice(select[0].length));
      found = r.found;
      if (r.missing.length) note = `No deferred tool is named ${r.missing.map((n) => JSON.stringify(n)).join(', ')}.`;
    } else {
      found = searchTools(all, query, max);
    }
    const data: ToolSearchOutput = {
      matches: found.map((t) => t.name),
      query: input.query,
      total_deferred_tools: all.length,
    };
    if (found.length === 0) {
      const why = note || `No deferred tool matched ${JSON.stringify(query)}.`;
      return {
        content: `${why} ${all.length} tools are deferred; try other keywords, or select:<name> with a name from the list.`,
        data,
      };
    }
    c.load(found.map((t) => t.name));
    const head = `${found.length === 1 ? 'This tool is' : `These ${found.length} tools are`} now loaded; call ${found.length === 1 ? 'it' : 'them'} from your next message on.${note ? ` ${note}` : ''}`;
    return { content: `${head}\n${definitionsText(found)}`, data };
  },
});
