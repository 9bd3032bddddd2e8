// The session's MCP servers: each connected in parallel with a deadline (MCP_TIMEOUT, 30 s), its
// tools listed and wrapped. A server that cannot start, answer or list its tools is "failed" —
// told on stderr and in system/init — and the session goes on without it. At exit every client is
// closed; a stdio server that does not leave when its stdin closes is sent SIGTERM.
import { debugLog } from '../util/debugLog.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../tools/tool.js';
import type { McpServerConfig } from './config.js';
import { HostMcpTransport, type HostRequest } from './hostTransport.js';
import { mcpTool } from './tools.js';
import { remoteTransport, stdioTransport, type OpenedTransport } from './transports.js';

export type McpStatus = 'pending' | 'connected' | 'failed';

export interface McpServerStatus {
  name: string;
  status: McpStatus;
  serverInfo?: { name: string; version: string };
  error?: string;
}

interface Entry extends McpServerStatus {
  client?: Client;
  tools: Tool[];
  pid?: number;
  exited?: boolean;
}

export interface McpManagerOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** One human-readable line for stderr. */
  log: (line: string) => void;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** The longest a host round trip may take (the MCP client's own deadlines come first). */
const HOST_REQUEST_TIMEOUT_MS = 100_000_000;

export class McpManager {
  private readonly entries = new Map<string, Entry>();
  private readonly connecting = new Set<Promise<void>>();
  private closing = false;

  constructor(private readonly opts: McpManagerOptions) {}

  private get timeoutMs(): number {
    return Number(this.opts.env.MCP_TIMEOUT) || DEFAULT_CONNECT_TIMEOUT_MS;
  }

  /** Start connecting the --mcp-config servers (all at once; `ready()` waits for them). */
  connectConfigured(configs: Map<string, McpServerConfig>): void {
    for (const [name, config] of configs) {
      if (config.type === 'sdk') continue; // connected by connectHost when initialize names it
      if (config.type === 'unsupported') this.fail(this.add(name), config.reason);
      else if ('url' in config) this.start(name, () => remoteTransport(config));
      else this.start(name, () => stdioTransport(config, this.opts.cwd, this.opts.env));
    }
  }

  /** Start connecting the host's in-process servers (initialize.sdkMcpServers) over the control channel. */
  connectHost(names: string[], request: HostRequest): void {
    for (const name of names) {
      const transport = new HostMcpTransport(name, request, HOST_REQUEST_TIMEOUT_MS);
      this.start(name, () => ({ transport, stderrTail: () => '', pid: () => null }));
    }
  }

  /** Resolves when no server is still connecting. */
  async ready(): Promise<void> {
    while (this.connecting.size) await Promise.all([...this.connecting]);
  }

  /** The tools of the connected servers, in the order the servers were named. */
  tools(): Tool[] {
    return [...this.entries.values()].filter((e) => e.status === 'connected').flatMap((e) => e.tools);
  }

  /** For system/init: `[{name, status}]`. */
  statuses(): Array<{ name: string; status: string }> {
    return [...this.entries.values()].map((e) => ({ name: e.name, status: e.status }));
  }

  /** For mcp_status: with serverInfo (connected) or the error (failed). */
  details(): McpServerStatus[] {
    return [...this.entries.values()].map(({ name, status, serverInfo, error }) => ({
      name,
      status,
      ...(serverInfo ? { serverInfo } : {}),
      ...(error ? { error } : {}),
    }));
  }

  /** Close every client; whatever stdio server is still running after `graceMs` gets SIGTERM. */
  async closeAll(graceMs = 1500): Promise<void> {
    this.closing = true;
    const closes = [...this.entries.values()].map((e) => e.client?.close().catch(() => {}));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closes), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.killAll();
  }

  /** Synchronous last resort (signals, process exit): SIGTERM every stdio server still running. */
  killAll(): void {
    this.closing = true;
    for (const e of this.entries.values()) {
      if (e.pid === undefined || e.exited) continue;
      try {
        process.kill(e.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      e.exited = true;
    }
  }

  private add(name: string): Entry {
    const entry: Entry = { name, status: 'pending', tools: [] };
    this.entries.set(name, entry);
    return entry;
  }

  private start(name: string, open: () => OpenedTransport): void {
    const entry = this.add(name);
    const p = this.connect(entry, open).finally(() => this.connecting.delete(p));
    this.connecting.add(p);
  }

  private async connect(entry: Entry, open: () => OpenedTransport): Promise<void> {
    let opened: OpenedTransport | undefined;
    const client = new Client({ name: 'agent-runtime', version: this.opts.clientVersion }, { capabilities: {} });
    const timeoutMs = this.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    // Known from the start, so closeAll/killAll also end a server that is still connecting.
    entry.client = client;
    try {
      opened = open();
      opened.transport.onclose = () => {
        entry.exited = true;
        if (entry.status === 'connected' && !this.closing) this.fail(entry, 'the connection closed');
      };
      const connected = client.connect(opened.transport, { timeout: timeoutMs });
      // A stdio child is spawned synchronously inside connect(): its pid is known now.
      entry.pid = opened.pid() ?? undefined;
      const work = connected.then(() => (client.getServerCapabilities()?.tools ? listTools(client, timeoutMs) : []));
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s (MCP_TIMEOUT)`)), timeoutMs);
      });
      const infos = await Promise.race([work, deadline]);
      entry.pid ??= opened.pid() ?? undefined;
      if (this.closing) throw new Error('the session is ending');
      entry.tools = infos.map((info) => mcpTool(entry.name, info, () => client));
      entry.serverInfo = client.getServerVersion() && { name: client.getServerVersion()!.name, version: client.getServerVersion()!.version };
      entry.status = 'connected';
      debugLog('mcp', () => `MCP server "${entry.name}": connected, ${entry.tools.length} tool(s)`);
    } catch (err) {
      entry.pid ??= opened?.pid() ?? undefined;
      const tail = opened?.stderrTail().trim();
      if (this.closing) entry.status = 'failed';
      else this.fail(entry, (err as Error).message + (tail ? `\n${tail}` : ''));
      // Closing the client closes the transport: a stdio child is ended.
      void client.close().catch(() => {});
    } finally {
      clearTimeout(timer);
    }
  }

  private fail(entry: Entry, reason: string): void {
    entry.status = 'failed';
    entry.error = reason;
    debugLog('mcp', `MCP server "${entry.name}": failed: ${reason}`);
    entry.tools = [];
    this.opts.log(`agent: MCP server "${entry.name}" failed: ${reason}`);
  }
}

async function listTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    out.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
