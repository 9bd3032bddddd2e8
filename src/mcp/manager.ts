// The session's MCP servers: each connected in parallel with a deadline (MCP_TIMEOUT, 30 s), its
// tools listed and wrapped. A server that cannot start, answer or list its tools is "failed" —
// told on stderr and in system/init — and the session goes on without it. At exit every client is
// closed; a stdio server that does not leave when its stdin closes is sent SIGTERM.
// The host changes the set while the session runs (mcp_set_servers replaces the dynamic servers,
// mcp_reconnect, mcp_toggle); the next turn offers the tools of whatever is connected then.
import { debugLog } from '../util/log.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type Prompt,
  type Tool as McpToolInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { listPrompts, type ServerPrompt } from './prompts.js';
import { elicitationHandler, type ElicitationDeps } from './elicitation.js';
import type { Tool } from '../../tools/tool.js';
import type { McpServerConfig } from './config.js';
import { HostMcpTransport, type HostRequest } from './hostTransport.js';
import { type HostManifest, ManifestReplay } from './hostManifests.js';
import { mcpTool, mcpToolName } from './tools.js';
import { resourceTools } from './resourceTools.js';
import { remoteTransport, stdioTransport, type OpenedTransport } from './transports.js';
import { withLinkedSignal } from '../util/linkedSignal.js';
import { withTimeout } from '../util/withTimeout.js';

export type McpStatus = 'pending' | 'connected' | 'failed' | 'disabled';

/** Where a server's definition came from (mcp_status `scope`): the reference's names. */
export type McpScope = 'user' | 'project' | 'local' | 'dynamic' | 'managed' | 'sdk' | 'plugin';

export interface McpServerStatus {
  name: string;
  status: McpStatus;
  scope: McpScope;
  serverInfo?: { name: string; version: string };
  error?: string;
}

interface Entry extends McpServerStatus {
  client?: Client;
  tools: Tool[];
  /** The server's own tool list, as tools/list gave it. */
  infos?: McpToolInfo[];
  /** Its prompts (prompts/list), offered as slash commands. */
  prompts?: Prompt[];
  pid?: number;
  exited?: boolean;
  /** How to (re)open its transport; absent for a config we can only report as failed. */
  open?: () => OpenedTransport;
  /** Its config as JSON: mcp_set_servers restarts a server whose config changed. */
  configKey: string;
  /** Named by mcp_set_servers (or an in-process server): the set the next call replaces. */
  dynamic: boolean;
  /** The config's `alwaysLoad`: its tools are never deferred behind ToolSearch. */
  alwaysLoad?: boolean;
  /** True from the moment we close it on purpose: its closing is not a failure. */
  leaving?: boolean;
  /** The pending connect, awaited by whoever needs its outcome. */
  connecting?: Promise<void>;
}

export interface SetServersResult {
  added: string[];
  removed: string[];
  errors: Record<string, string>;
}

export class McpControlError extends Error {}

export interface McpManagerOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** One human-readable line for stderr. */
  log: (line: string) => void;
  /** Who answers a server's elicitation/create (hooks, the host); without it the capability is not offered. */
  elicitation?: ElicitationDeps;
  /** A server's notifications/elicitation/complete (url mode). */
  onElicitationComplete?: (serverName: string, elicitationId: string) => void;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long a permission prompt tool may think before the call is denied (MCP_TOOL_TIMEOUT overrides). */
const PERMISSION_TOOL_TIMEOUT_MS = 10 * 60_000;
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

  /**
   * Start connecting configured servers (all at once; `ready()` waits for them). `held` names the
   * ones that must not start yet (a project server nobody approved): they are listed as disabled
   * with the reason, and mcp_toggle can start them.
   */
  connectConfigured(
    configs: Map<string, McpServerConfig>,
    scope: McpScope = 'dynamic',
    held: Map<string, string> = new Map(),
  ): void {
    for (const [name, config] of configs) {
      if (config.type === 'sdk') continue; // connected by connectHost when initialize names it
      const reason = held.get(name);
      if (reason === undefined) {
        this.startConfig(name, config, false, scope);
        continue;
      }
      const entry = this.add(name, JSON.stringify(config), false, scope);
      entry.open = this.opener(name, config);
      entry.status = 'disabled';
      entry.error = reason;
      this.opts.log(`agent: MCP server "${name}" (${scope}) not started: ${reason}`);
    }
  }

  /**
   * Start connecting the host's in-process servers (initialize.sdkMcpServers) over the control
   * channel; `manifests` (parked from initialize.sdkMcpServerManifests) answer their handshakes.
   */
  connectHost(names: string[], request: HostRequest, manifests: Map<string, HostManifest> = new Map()): void {
    this.hostRequest = request;
    for (const name of names) {
      const manifest = manifests.get(name);
      if (manifest) this.hostManifests.set(name, manifest);
      this.startConfig(name, { type: 'sdk' }, true, 'sdk');
    }
  }

  /** Parked manifests: each is taken by the next connect of its server, and never kept. */
  private readonly hostManifests = new Map<string, HostManifest>();

  private hostRequest?: HostRequest;

  private opener(name: string, config: McpServerConfig): (() => OpenedTransport) | undefined {
    if (config.type === 'unsupported') return undefined;
    if (config.type === 'sdk') {
      const request = this.hostRequest;
      if (!request) return undefined;
      return () => {
        const manifest = this.hostManifests.get(name);
        this.hostManifests.delete(name);
        return {
          transport: new HostMcpTransport(
            name,
            request,
            HOST_REQUEST_TIMEOUT_MS,
            manifest && new ManifestReplay(manifest),
          ),
          stderrTail: () => '',
          pid: () => null,
        };
      };
    }
    if ('url' in config) return () => remoteTransport(config);
    return () => stdioTransport(config, this.opts.cwd, this.opts.env);
  }

  private startConfig(name: string, config: McpServerConfig, dynamic: boolean, scope: McpScope): Entry {
    const entry = this.add(name, JSON.stringify(config), dynamic, scope);
    entry.open = this.opener(name, config);
    if ('alwaysLoad' in config) entry.alwaysLoad = config.alwaysLoad;
    if (!entry.open)
      this.fail(
        entry,
        config.type === 'unsupported' ? config.reason : 'an in-process server needs a host that runs it',
      );
    else this.begin(entry);
    return entry;
  }

  /**
   * mcp_set_servers: the dynamic servers become exactly `configs` (parsed by the caller). A server
   * whose config is unchanged stays connected; a changed one is restarted; one left out is closed.
   * Servers from --mcp-config stay unless an earlier call named them. Answers once every added
   * server has connected or failed.
   */
  async setServers(configs: Map<string, McpServerConfig>, request?: HostRequest): Promise<SetServersResult> {
    if (request) this.hostRequest = request;
    const removed: string[] = [];
    const added: string[] = [];
    for (const entry of [...this.entries.values()]) {
      if (!entry.dynamic || configs.has(entry.name)) continue;
      await this.close(entry);
      this.entries.delete(entry.name);
      removed.push(entry.name);
    }
    for (const [name, config] of configs) {
      const old = this.entries.get(name);
      const key = JSON.stringify(config);
      if (old && old.configKey === key) {
        old.dynamic = true;
        continue;
      }
      if (old) {
        await this.close(old);
        this.entries.delete(name);
      }
      this.startConfig(name, config, true, config.type === 'sdk' ? 'sdk' : 'dynamic');
      added.push(name);
    }
    await Promise.all(added.map((n) => this.entries.get(n)?.connecting));
    const errors: Record<string, string> = {};
    for (const name of added) {
      const e = this.entries.get(name);
      if (e?.status === 'failed') errors[name] = e.error ?? 'failed to connect';
    }
    return { added, removed, errors };
  }

  /**
   * reload_plugins (and the start): the plugin servers become exactly `configs`, as setServers
   * does for the dynamic ones. Answers once every added server has connected or failed.
   */
  async setPluginServers(configs: Map<string, McpServerConfig>): Promise<{ added: string[]; removed: string[] }> {
    const removed: string[] = [];
    const added: string[] = [];
    for (const entry of [...this.entries.values()]) {
      if (entry.scope !== 'plugin' || configs.has(entry.name)) continue;
      await this.close(entry);
      this.entries.delete(entry.name);
      removed.push(entry.name);
    }
    for (const [name, config] of configs) {
      const old = this.entries.get(name);
      if (old && old.configKey === JSON.stringify(config)) continue;
      if (old) {
        await this.close(old);
        this.entries.delete(name);
      }
      this.startConfig(name, config, false, 'plugin');
      added.push(name);
    }
    await Promise.all(added.map((n) => this.entries.get(n)?.connecting));
    return { added, removed };
  }

  /** The plugin servers' names (reload_plugins' cache check compares them). */
  pluginServerNames(): string[] {
    return [...this.entries.values()].filter((e) => e.scope === 'plugin').map((e) => e.name);
  }

  /** mcp_reconnect: close the server (whatever its state) and connect it again; throws if that fails. */
  async reconnect(name: string): Promise<void> {
    const entry = this.known(name, 'mcp_reconnect');
    if (entry.status === 'disabled')
      throw new McpControlError(`mcp_reconnect: MCP server "${name}" is disabled; enable it with mcp_toggle`);
    if (!entry.open)
      throw new McpControlError(`mcp_reconnect: MCP server "${name}" cannot be connected: ${entry.error}`);
    await this.close(entry);
    this.begin(entry);
    await entry.connecting;
    if (entry.status !== 'connected')
      throw new McpControlError(`mcp_reconnect: MCP server "${name}" failed: ${entry.error}`);
  }

  /** mcp_toggle: disabled closes the server and withdraws its tools; enabled connects it again. */
  async toggle(name: string, enabled: boolean): Promise<void> {
    const entry = this.known(name, 'mcp_toggle');
    if (!enabled) {
      if (entry.status === 'disabled') return;
      await this.close(entry);
      entry.status = 'disabled';
      entry.error = undefined;
      return;
    }
    if (entry.status !== 'disabled') return;
    if (!entry.open) return void this.fail(entry, entry.error ?? 'cannot be connected');
    this.begin(entry);
    await entry.connecting;
    if ((entry.status as McpStatus) !== 'connected')
      throw new McpControlError(`mcp_toggle: MCP server "${name}" failed to connect: ${entry.error}`);
  }

  /** The prompts of the connected servers (slash commands `/mcp__server__prompt`). */
  prompts(): ServerPrompt[] {
    const out: ServerPrompt[] = [];
    for (const e of this.entries.values()) {
      const client = e.client;
      if (e.status !== 'connected' || !client) continue;
      for (const prompt of e.prompts ?? [])
        out.push({
          server: e.name,
          prompt,
          get: (args) => client.getPrompt({ name: prompt.name, arguments: args }, { timeout: this.timeoutMs }),
        });
    }
    return out;
  }

  /** The connected client of a server, or an error that names why there is none. */
  connectedClient(name: string, subtype: string): Client {
    const entry = this.known(name, subtype);
    if (entry.status !== 'connected' || !entry.client)
      throw new McpControlError(
        `${subtype}: MCP server "${name}" is not connected (${entry.status}${entry.error ? `: ${entry.error.split('\n')[0]}` : ''}); send mcp_reconnect`,
      );
    return entry.client;
  }

  /**
   * Call a connected server's tool by its qualified name (mcp__server__tool) outside a model turn
   * (the permission prompt tool); throws naming why it cannot be called.
   */
  async callByName(
    qualified: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    await this.ready();
    for (const e of this.entries.values()) {
      const info = e.infos?.find((i) => mcpToolName(e.name, i.name) === qualified);
      if (!info) continue;
      if (e.status !== 'connected' || !e.client)
        throw new Error(`its MCP server "${e.name}" is ${e.status}${e.error ? `: ${e.error.split('\n')[0]}` : ''}`);
      const client = e.client;
      return (await withLinkedSignal(signal, (own) =>
        client.callTool({ name: info.name, arguments: args }, undefined, {
          signal: own,
          timeout: Number(this.opts.env.MCP_TOOL_TIMEOUT) || PERMISSION_TOOL_TIMEOUT_MS,
        }),
      )) as Record<string, unknown>;
    }
    const down = [...this.entries.values()]
      .filter((e) => e.status !== 'connected')
      .map((e) => `${e.name} (${e.status})`);
    throw new Error(
      `is not a tool of any connected MCP server${down.length ? ` (not connected: ${down.join(', ')})` : ''}`,
    );
  }

  /** Whether a server is the host's in-process one (its resources the host reads itself). */
  isHostServer(name: string): boolean {
    return this.entries.get(name)?.configKey === JSON.stringify({ type: 'sdk' });
  }

  /** Connected servers that declare resources, with their clients, in order (the resource tools). */
  resourceServers(): Array<{ name: string; client: Client }> {
    return [...this.entries.values()]
      .filter((e) => e.status === 'connected' && e.client?.getServerCapabilities()?.resources)
      .map((e) => ({ name: e.name, client: e.client! }));
  }

  /** The tools of the connected servers, then ListMcpResources / ReadMcpResource while any server has resources. */
  offeredTools(): Tool[] {
    return this.resourceServers().length ? [...this.tools(), ...this.resourceTools] : this.tools();
  }

  private readonly resourceTools = resourceTools({ servers: () => this.resourceServers() });

  private known(name: string, subtype: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) {
      const names = [...this.entries.keys()];
      throw new McpControlError(
        `${subtype}: no MCP server named "${name}"${names.length ? ` (servers: ${names.join(', ')})` : ''}`,
      );
    }
    return entry;
  }

  /** Close one server on purpose: no failure reported, its tools gone, its child ended. */
  private async close(entry: Entry): Promise<void> {
    entry.leaving = true;
    entry.tools = [];
    const client = entry.client;
    entry.client = undefined;
    await entry.connecting?.catch(() => {});
    if (client) {
      await withTimeout(
        client.close().catch(() => {}),
        1500,
      );
    }
    if (entry.pid !== undefined && !entry.exited) {
      try {
        process.kill(entry.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    entry.exited = true;
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
    return [...this.entries.values()].map(({ name, status, scope, serverInfo, error }) => ({
      name,
      status,
      scope,
      // The SDK's `source`: the config scope, or sdk for the host's in-process servers.
      source: scope,
      ...(serverInfo ? { serverInfo } : {}),
      ...(error ? { error } : {}),
    }));
  }

  /** Close every client; whatever stdio server is still running after `graceMs` gets SIGTERM. */
  async closeAll(graceMs = 1500): Promise<void> {
    this.closing = true;
    const closes = [...this.entries.values()].map((e) => e.client?.close().catch(() => {}));
    await withTimeout(Promise.all(closes), graceMs);
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

  private add(name: string, configKey: string, dynamic: boolean, scope: McpScope): Entry {
    const entry: Entry = { name, status: 'pending', scope, tools: [], configKey, dynamic };
    this.entries.set(name, entry);
    return entry;
  }

  private begin(entry: Entry): void {
    entry.status = 'pending';
    entry.error = undefined;
    entry.leaving = false;
    entry.exited = false;
    entry.pid = undefined;
    const p = this.connect(entry, entry.open!).finally(() => this.connecting.delete(p));
    entry.connecting = p;
    this.connecting.add(p);
  }

  private async connect(entry: Entry, open: () => OpenedTransport): Promise<void> {
    let opened: OpenedTransport | undefined;
    // Elicitation is offered when something answers it; an answer (a decline when nobody can be
    // asked) always comes, so a server never waits on us.
    const elicit = this.opts.elicitation;
    const client = new Client(
      { name: 'agent-runtime', version: this.opts.clientVersion },
      { capabilities: elicit ? { elicitation: { form: {}, url: {} } } : {} },
    );
    if (elicit) {
      const answer = elicitationHandler(entry.name, elicit);
      client.setRequestHandler(ElicitRequestSchema, (req, extra) => answer(req, extra.signal));
    }
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) =>
      this.opts.onElicitationComplete?.(entry.name, n.params.elicitationId),
    );
    const timeoutMs = this.timeoutMs;
    // Known from the start, so closeAll/killAll also end a server that is still connecting.
    entry.client = client;
    try {
      opened = open();
      opened.transport.onclose = () => {
        if (entry.client !== client) return; // an older connection of a reconnected server
        entry.exited = true;
        if (entry.status === 'connected' && !this.closing && !entry.leaving) this.fail(entry, 'the connection closed');
      };
      const connected = client.connect(opened.transport, { timeout: timeoutMs });
      // A stdio child is spawned synchronously inside connect(): its pid is known now.
      entry.pid = opened.pid() ?? undefined;
      const work = connected.then(() => (client.getServerCapabilities()?.tools ? listTools(client, timeoutMs) : []));
      const infos = await withTimeout(work, timeoutMs);
      if (!infos) throw new Error(`no answer within ${timeoutMs / 1000} s (MCP_TIMEOUT)`);
      entry.pid ??= opened.pid() ?? undefined;
      if (this.closing) throw new Error('the session is ending');
      if (entry.leaving || entry.client !== client) throw new Error('closed on request');
      entry.tools = infos.map((info) => mcpTool(entry.name, info, () => client, entry.alwaysLoad));
      entry.infos = infos;
      // Its prompts, for the slash commands; a server that cannot list them still serves its tools.
      entry.prompts = client.getServerCapabilities()?.prompts
        ? await listPrompts(client, timeoutMs).catch((err: Error) => {
            this.opts.log(`agent: MCP server "${entry.name}": listing its prompts failed: ${err.message}`);
            return [];
          })
        : [];
      // tools/list_changed: list again; the next turn offers the new set (a failed re-list keeps the old one).
      // The re-list counts as connecting work, so the next turn (which waits for ready()) sees the new set.
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (entry.client !== client || entry.status !== 'connected') return;
        const relist = (async () => {
          try {
            const fresh = await listTools(client, timeoutMs);
            if (entry.client === client && entry.status === 'connected') {
              entry.tools = fresh.map((info) => mcpTool(entry.name, info, () => client, entry.alwaysLoad));
              entry.infos = fresh;
            }
          } catch (err) {
            this.opts.log(
              `agent: MCP server "${entry.name}": re-listing its tools after list_changed failed: ${(err as Error).message}`,
            );
          }
        })().finally(() => this.connecting.delete(relist));
        this.connecting.add(relist);
      });
      // prompts/list_changed: list them again; the slash commands (the terminal's `/` menu, the next
      // init line's slash_commands) follow (a failed re-list keeps the old ones).
      if (client.getServerCapabilities()?.prompts)
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
          if (entry.client !== client || entry.status !== 'connected') return;
          listPrompts(client, timeoutMs).then(
            (fresh) => {
              if (entry.client === client && entry.status === 'connected') entry.prompts = fresh;
            },
            (err: Error) =>
              this.opts.log(
                `agent: MCP server "${entry.name}": re-listing its prompts after list_changed failed: ${err.message}`,
              ),
          );
        });
      entry.serverInfo = client.getServerVersion() && {
        name: client.getServerVersion()!.name,
        version: client.getServerVersion()!.version,
      };
      entry.status = 'connected';
      debugLog('mcp', () => `MCP server "${entry.name}": connected, ${entry.tools.length} tool(s)`);
    } catch (err) {
      entry.pid ??= opened?.pid() ?? undefined;
      const tail = opened?.stderrTail().trim();
      if (entry.leaving || entry.client !== client) {
        /* closed on purpose while connecting: its new state is set by whoever closed it */
      } else if (this.closing) entry.status = 'failed';
      else this.fail(entry, failureText(err as Error) + (tail ? `\n${tail}` : ''));
      // Closing the client closes the transport: a stdio child is ended.
      void client.close().catch(() => {});
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

/** An error's message, and what caused it when that says more (fetch's "fetch failed" hides the socket's reason). */
function failureText(err: Error): string {
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  const why = typeof cause?.message === 'string' && cause.message ? cause.message : cause?.code;
  return why && typeof why === 'string' && !err.message.includes(why) ? `${err.message} (${why})` : err.message;
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
