// A remote MCP server over streamable HTTP (the MCP SDK's server side, stateless: one server and
// transport per request), with one tool, `add`. It records each request's method and path, so a
// test can tell which connections reached it.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { listenTracked } from './listen.js';

export interface McpHttpServer {
  /** The endpoint: http://127.0.0.1:<port>/mcp */
  url: string;
  seen: string[];
  close(): Promise<void>;
}

function calcServer(): McpServer {
  const server = new McpServer({ name: 'remote-calc', version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

export async function startMcpHttpServer(): Promise<McpHttpServer> {
  const seen: string[] = [];
  const server = http.createServer(async (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      // Stateless: no server-sent stream to open, no session to end.
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const mcp = calcServer();
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  const { url, close } = await listenTracked(server);
  return { url: `${url}/mcp`, seen, close };
}
