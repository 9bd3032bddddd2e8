// One MCP client transport per configured server: a child process over stdio, or a remote server
// over SSE or streamable HTTP. A stdio server's stderr is kept as a capped tail (shown when it
// fails), never passed through to our stdout or stderr.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { undiciFetch } from '../net/undici.js';
import { nestedShellEnv } from '../util/processGroup.js';
import type { RemoteServerConfig, StdioServerConfig } from './config.js';

/** How much of a server's stderr we keep (its last bytes). */
export const STDERR_TAIL_BYTES = 8 * 1024;

export interface OpenedTransport {
  transport: Transport;
  /** The last bytes the server wrote to stderr (stdio only). */
  stderrTail(): string;
  /** The child's pid once started (stdio only). */
  pid(): number | null;
}

export function stdioTransport(config: StdioServerConfig, cwd: string, env: NodeJS.ProcessEnv): OpenedTransport {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...stringEnv(nestedShellEnv(env)), ...config.env },
    cwd,
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail += chunk.toString();
    if (tail.length > STDERR_TAIL_BYTES) tail = tail.slice(-STDERR_TAIL_BYTES);
  });
  return { transport, stderrTail: () => tail, pid: () => transport.pid };
}

export function remoteTransport(config: RemoteServerConfig): OpenedTransport {
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  // The headers go with every request, the SSE stream's GET included. undici's fetch, not Node's
  // built-in one: a TLS server that refuses us must fail the connection, not leave it hanging.
  const transport =
    config.type === 'sse'
      ? new SSEClientTransport(url, { requestInit, fetch: undiciFetch })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch: undiciFetch });
  return { transport, stderrTail: () => '', pid: () => null };
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
