// An MCP server's tool as one of our tools: `mcp__<server>__<tool>`, the server's description and
// input schema offered to the model as given, input checked only for being an object (the server
// validates it), the call made with the run's abort signal. Text content is joined, images pass
// as image blocks, `isError` becomes an is_error tool_result; the host gets the raw MCP result.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, ToolError, type Tool, type ToolContentBlock, type ToolProgress } from '../../tools/tool.js';
import { AsyncQueue } from '../util/asyncQueue.js';
import { linkedSignal } from '../util/linkedSignal.js';
import { mcpToolName } from './names.js';

/** Longest text an MCP result hands to the model (env MAX_MCP_OUTPUT_TOKENS, ~4 chars a token). */
const DEFAULT_MAX_OUTPUT_TOKENS = 25_000;
/** A tool call has no deadline of its own unless MCP_TOOL_TIMEOUT (ms) sets one. */
const DEFAULT_TOOL_TIMEOUT_MS = 100_000_000;

export { mcpToolName, normalizeName } from './names.js';

const looseInput = lazySchema(() => z.record(z.string(), z.unknown()));

/**
 * `serverAlwaysLoad`: the server's config says `alwaysLoad: true` — its tools are never deferred
 * behind ToolSearch, except one the server lists with `_meta["anthropic/alwaysLoad"]: false`; a
 * tool listed with `true` is never deferred whatever its server says.
 */
export function mcpTool(serverName: string, info: McpToolInfo, client: () => Client, serverAlwaysLoad = false): Tool {
  const { $schema: _drop, ...schema } = info.inputSchema as Record<string, unknown>;
  const own = (info._meta as Record<string, unknown> | undefined)?.['anthropic/alwaysLoad'];
  return defineTool({
    name: mcpToolName(serverName, info.name),
    alwaysLoad: typeof own === 'boolean' ? own : serverAlwaysLoad,
    description: info.description ?? info.title ?? '',
    inputSchema: looseInput,
    apiInputSchema: { ...schema, type: 'object' },
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async *call(input, ctx) {
      // The server's progress notifications arrive while the call is awaited: queue them as
      // progress (the runner turns each into tool_progress) until the call settles.
      const progress = new AsyncQueue<ToolProgress>();
      // Hosts' servers (an editor's in-process tools) find their own record of the call by the
      // tool_use id; onprogress makes the client add a progressToken beside it.
      const link = linkedSignal(ctx.signal);
      const call = client()
        .callTool({ name: info.name, arguments: input, _meta: { 'claudecode/toolUseId': ctx.toolUseId } }, undefined, {
          signal: link.signal,
          timeout: Number(process.env.MCP_TOOL_TIMEOUT) || DEFAULT_TOOL_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: () => progress.push({ type: 'progress' }),
        })
        .finally(() => {
          link.release();
          progress.close();
        });
      call.catch(() => {});
      for await (const p of progress) yield p;
      let result: Awaited<ReturnType<Client['callTool']>>;
      try {
        result = await call;
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw new ToolError(`MCP server "${serverName}" failed to run ${info.name}: ${(err as Error).message}`);
      }
      return { content: toContent(result), isError: result.isError === true, data: result };
    },
  });
}

type McpContent = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
  uri?: string;
  name?: string;
};

/**
 * MCP content → what the model sees: one block per block the server sent (text, image; an
 * embedded text resource as its text), in order, never flattened into one string — hosts render
 * them apart (an editor's diff beside its summary). A single text block stays a block list too:
 * hosts read the result's blocks (Zed's adapter turns an Edit's one-block patch into a diff only
 * when the content is a list). A result with no content shows its structuredContent as JSON.
 */
export function toContent(result: Record<string, unknown>): ToolContentBlock[] {
  const items = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  const blocks: ToolContentBlock[] = [];
  for (const item of items) {
    if (item.type === 'text') blocks.push({ type: 'text', text: item.text ?? '' });
    else if (item.type === 'image' && item.data && item.mimeType)
      blocks.push({ type: 'image', source: { type: 'base64', media_type: item.mimeType, data: item.data } });
    else if (item.type === 'resource' && typeof item.resource?.text === 'string')
      blocks.push({ type: 'text', text: item.resource.text });
    else if (item.type === 'resource_link')
      blocks.push({ type: 'text', text: `[resource: ${item.name ?? ''} ${item.uri ?? ''}]`.trim() });
    else blocks.push({ type: 'text', text: `[${item.type} content of ${item.mimeType ?? 'unknown type'} not shown]` });
  }
  if (blocks.length === 0 && result.structuredContent !== undefined)
    blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  const limit = (Number(process.env.MAX_MCP_OUTPUT_TOKENS) || DEFAULT_MAX_OUTPUT_TOKENS) * 4;
  // The cap holds for the text of all blocks together.
  let left = limit;
  return blocks.map((b) => {
    if (b.type !== 'text') return b;
    const text = capText(b.text, Math.max(0, left));
    left -= b.text.length;
    return { type: 'text', text };
  });
}

function capText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n\n[MCP output truncated: ${text.length - limit} more characters (MAX_MCP_OUTPUT_TOKENS)]`;
}
