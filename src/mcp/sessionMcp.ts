// One session's MCP servers, from whichever side names them first (--mcp-config at start,
// initialize's sdkMcpServers, mcp_set_servers, plugins), and their tools kept in the session's ToolSet.
// The MCP code loads only when a session has servers: most runs never pay for it.
import type { ToolSet } from '../../tools/toolSet.js';
import { parseRule, ruleNamesTool } from '../permissions/rules.js';
import type { McpServerConfig } from './config.js';
import type { HostRequest } from './hostTransport.js';
import { type ManifestVerdict, parkManifests } from './hostManifests.js';
import type { ElicitationDeps } from './elicitation.js';
import type { McpManager, McpScope, McpServerStatus } from './manager.js';
import type { ServerPrompt } from './prompts.js';

export interface SessionMcpOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  log: (line: string) => void;
  /** --disallowedTools: a plain tool name (or `mcp__server`) keeps an MCP tool from being offered. */
  disallowedTools: string[];
  /** --permission-prompt-tool's MCP tool: it decides about calls, the model does not call it. */
  promptTool?: string;
  /** Who answers the servers' elicitation requests, and where url-mode completions are told. */
  elicitation?: ElicitationDeps;
  onElicitationComplete?: (serverName: string, elicitationId: string) => void;
}

export class SessionMcp {
  private setup: Promise<McpManager> | undefined;
  /** Set once the manager exists: what exit handlers may kill synchronously. */
  private created: McpManager | undefined;

  constructor(private readonly o: SessionMcpOptions) {}

  /** The connected servers' prompts (none before the manager exists). */
  prompts(): ServerPrompt[] {
    return this.created?.prompts() ?? [];
  }

  /** The manager, created on first use (a session may start with no servers). */
  manager(): Promise<McpManager> {
    this.setup ??= import('./manager.js').then(({ McpManager }) => {
      const m = new McpManager({
        cwd: this.o.cwd,
        env: this.o.env,
        clientVersion: this.o.clientVersion,
        log: this.o.log,
        elicitation: this.o.elicitation,
        onElicitationComplete: this.o.onElicitationComplete,
      });
      return (this.created = m);
    });
    return this.setup;
  }

  /**
   * Configured servers (src/mcp/sources.ts groups, or initialize's mcpServers): connecting starts
   * now; the first run waits for them. Held ones are listed as disabled with their reason.
   */
  connectConfigured(
    groups: Array<{ scope: McpScope; configs: Map<string, McpServerConfig>; held?: Map<string, string> }>,
  ): void {
    this.setup = this.manager().then((m) => {
      for (const g of groups) m.connectConfigured(g.configs, g.scope, g.held);
      return m;
    });
  }

  /** The permission prompt tool's call (mcp__server__tool), once the servers have connected. */
  async callByName(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.setup) throw new Error('has no MCP server: give its server with --mcp-config, settings or .mcp.json');
    return (await this.setup).callByName(name, args, signal);
  }

  /** The names of the servers the session knows now. */
  async names(): Promise<string[]> {
    return this.setup ? (await this.setup).statuses().map((s) => s.name) : [];
  }

  /**
   * initialize's in-process servers: connected after the initialize answer is written. `manifests`
   * (initialize.sdkMcpServerManifests, as sent) answer their handshakes; the verdict on each entry
   * is returned for the answer. A server an earlier initialize named is already connected: its
   * entry is not used.
   */
  connectHost(names: string[], request: HostRequest, manifests?: unknown): Record<string, ManifestVerdict> {
    const { parked, verdicts } =
      manifests === undefined
        ? { parked: undefined, verdicts: {} }
        : parkManifests(manifests, names, (name) => this.hostNamed.has(name));
    for (const name of names) this.hostNamed.add(name);
    this.setup = this.manager().then(async (m) => {
      await new Promise((r) => setImmediate(r));
      m.connectHost(names, request, parked);
      return m;
    });
    return verdicts;
  }

  /** The in-process servers initialize has named so far. */
  private readonly hostNamed = new Set<string>();

  /**
   * Wait for the servers being connected and offer their tools now (a name a local tool already
   * has, or one --disallowedTools names, is left out). The statuses for system/init; undefined when
   * the session has no servers. `changed` is true when the offered names changed.
   */
  async sync(
    tools: ToolSet,
  ): Promise<{ statuses: Array<{ name: string; status: string }>; changed: boolean } | undefined> {
    if (!this.setup) return undefined;
    const m = await this.setup;
    await m.ready();
    const denied = this.o.disallowedTools.filter((r) => !r.includes('(')).map(parseRule);
    const seen = tools.localNames();
    const fresh = m
      .offeredTools()
      .filter(
        (t) =>
          t.name !== this.o.promptTool &&
          !denied.some((r) => ruleNamesTool(r, t.name)) &&
          !seen.has(t.name) &&
          seen.add(t.name),
      );
    const changed = tools.setMcp(fresh);
    return { statuses: m.statuses(), changed };
  }

  /** The plugins' servers become exactly `configs` (reload_plugins); resolves once the new ones connected or failed. */
  async setPluginServers(configs: Map<string, McpServerConfig>): Promise<void> {
    if (!configs.size && !this.setup) return;
    await (await this.manager()).setPluginServers(configs);
  }

  /** The plugin servers now known (reload_plugins' cache check compares them). */
  async pluginServerNames(): Promise<string[]> {
    return this.setup ? (await this.setup).pluginServerNames() : [];
  }

  /** mcp_status: every server's state (none when the session has no manager). */
  async details(): Promise<McpServerStatus[]> {
    return this.setup ? (await this.setup).details() : [];
  }

  /** At the end of the session: close every client (stdio servers that linger get SIGTERM). */
  async closeAll(): Promise<void> {
    if (this.setup) await (await this.setup).closeAll();
  }

  /** On a hard exit: kill the stdio servers' processes now. */
  killAll(): void {
    this.created?.killAll();
  }
}
