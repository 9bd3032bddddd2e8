// ListMcpResources / ReadMcpResource: the model's way to the resources of the connected MCP
// servers (shapes as sdk-tools.d.ts gives them). Offered only while a connected server declares
// resources. A binary item is written to a temp file and its path given, never pasted as base64.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { defineTool, ToolError, type Tool } from '../../tools/tool.js';
import { withLinkedSignal } from '../util/linkedSignal.js';
import { makeDirs } from '../util/makeDirs.js';

export interface ResourceSource {
  /** Connected servers that declare resources, in order. */
  servers(): Array<{ name: string; client: Client }>;
}

const listInput = lazySchema(() =>
  z.object({ server: z.string().optional().describe('Optional server name to filter resources by') }),
);
const readInput = lazySchema(() =>
  z.object({
    server: z.string().describe('The MCP server name'),
    uri: z.string().describe('The resource URI to read'),
  }),
);

export function resourceTools(source: ResourceSource): Tool[] {
  const pick = (server: string) => {
    const all = source.servers();
    const found = all.find((s) => s.name === server);
    if (!found)
      throw new ToolError(
        `Server "${server}" not found or has no resources. Servers with resources: ${all.map((s) => s.name).join(', ') || 'none'}`,
      );
    return found;
  };
  const list = defineTool({
    name: 'ListMcpResources',
    description:
      'List the resources of the connected MCP servers (all, or one server). Each has a uri to read with ReadMcpResource.',
    inputSchema: listInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call(input, ctx) {
      const servers = input.server !== undefined ? [pick(input.server)] : source.servers();
      const out: Array<{ uri: string; name: string; mimeType?: string; description?: string; server: string }> = [];
      for (const { name, client } of servers) {
        let cursor: string | undefined;
        try {
          do {
            const at = cursor;
            const page = await withLinkedSignal(ctx.signal, (signal) =>
              client.listResources(at ? { cursor: at } : undefined, { signal }),
            );
            for (const r of page.resources)
              out.push({
                uri: r.uri,
                name: r.name,
                ...(r.mimeType ? { mimeType: r.mimeType } : {}),
                ...(r.description ? { description: r.description } : {}),
                server: name,
              });
            cursor = page.nextCursor;
          } while (cursor);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          throw new ToolError(`MCP server "${name}" failed to list its resources: ${(err as Error).message}`);
        }
      }
      return { content: out.length ? JSON.stringify(out) : 'No resources found.', data: out };
    },
  });
  const read = defineTool({
    name: 'ReadMcpResource',
    description: 'Read one resource of a connected MCP server by its uri (see ListMcpResources).',
    inputSchema: readInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call(input, ctx) {
      const { client } = pick(input.server);
      let result: Awaited<ReturnType<Client['readResource']>>;
      try {
        result = await withLinkedSignal(ctx.signal, (signal) => client.readResource({ uri: input.uri }, { signal }));
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw new ToolError(`MCP server "${input.server}" could not read ${input.uri}: ${(err as Error).message}`);
      }
      let dir: string | undefined;
      const contents = result.contents.map((c, i) => {
        const base = { uri: c.uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}) };
        if ('text' in c && typeof c.text === 'string') return { ...base, text: c.text };
        if ('blob' in c && typeof c.blob === 'string') {
          // In the session's scratch folder, which goes with the session.
          if (dir === undefined) {
            makeDirs(ctx.scratchDir);
            dir = mkdtempSync(join(ctx.scratchDir, 'mcp-resource-'));
          }
          const path = join(dir, `${i}-${(c.uri.split('/').pop() || 'resource').replace(/[^a-zA-Z0-9._-]/g, '_')}`);
          writeFileSync(path, Buffer.from(c.blob, 'base64'));
          return { ...base, blobSavedTo: path };
        }
        return base;
      });
      const data = { contents };
      return { content: JSON.stringify(data), data };
    },
  });
  return [list, read];
}
