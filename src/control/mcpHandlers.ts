// Control requests that change or read the session's MCP servers: mcp_set_servers (replace the
// dynamic set), mcp_reconnect, mcp_toggle, mcp_read_resource. Each answers once the change has
// happened (servers connected or failed), or throws a message naming what is wrong; the next turn
// offers the tools of whatever is connected then. set_mcp_permission_mode_override pins a server's
// tools to per-call asks in bypassPermissions mode (tighten-only).
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { McpManager } from '../mcp/manager.js';
import type { McpServerConfig } from '../mcp/config.js';
import type { HostRequest } from '../mcp/hostTransport.js';
import { normalizeName } from '../mcp/tools.js';
import type { ControlChannel } from './channel.js';
import { parseControlRequest } from './parseRequest.js';

const setServersSchema = lazySchema(() =>
  z.object({
    servers: z.record(z.string(), z.unknown(), {
      error: 'mcp_set_servers: servers must be an object of name → config',
    }),
  }),
);
const serverNameSchema = lazySchema(() =>
  z.object({
    serverName: z.string({ error: 'serverName must be a string' }).min(1, 'serverName must not be empty'),
  }),
);
const toggleSchema = serverNameSchema.extend({ enabled: z.boolean({ error: 'enabled must be true or false' }) });
const readResourceSchema = serverNameSchema.extend({ uri: z.string({ error: 'uri must be a string' }) });
const modeOverrideSchema = serverNameSchema.extend({
  mode: z.union([z.enum(['default', 'auto']), z.null()], { error: 'mode must be "default", "auto" or null' }),
});

export interface McpControlTarget {
  /** The session's manager, created on first use (a session may start with no servers). */
  manager(): Promise<McpManager>;
  /** Parse one server config; throws a message naming the server. */
  parseServer(name: string, config: unknown): Promise<McpServerConfig>;
  hostRequest: HostRequest;
  /** Normalized names of the servers whose tools are asked about even in bypassPermissions. */
  askedServers(): Set<string>;
  /** The names of the servers the session knows now (none when it has no manager yet). */
  knownServers(): Promise<string[]>;
}

export function registerMcpControlHandlers(channel: ControlChannel, target: McpControlTarget): void {
  channel.on('mcp_set_servers', async (req) => {
    const { servers } = parseControlRequest(setServersSchema, req, 'mcp_set_servers');
    // Every config is checked before anything changes: a bad one leaves the set as it was.
    const configs = new Map<string, McpServerConfig>();
    for (const [name, config] of Object.entries(servers)) configs.set(name, await target.parseServer(name, config));
    return (await target.manager()).setServers(configs, target.hostRequest);
  });
  channel.on('mcp_reconnect', async (req) => {
    await (await target.manager()).reconnect(parseControlRequest(serverNameSchema, req, 'mcp_reconnect').serverName);
    return {};
  });
  channel.on('mcp_toggle', async (req) => {
    const r = parseControlRequest(toggleSchema, req, 'mcp_toggle');
    await (await target.manager()).toggle(r.serverName, r.enabled);
    return {};
  });
  channel.on('mcp_read_resource', async (req) => {
    const r = parseControlRequest(readResourceSchema, req, 'mcp_read_resource');
    if (!r.uri.startsWith('ui://'))
      throw new Error(`mcp_read_resource: only ui:// resources can be read this way, not ${JSON.stringify(r.uri)}`);
    const m = await target.manager();
    if (m.isHostServer(r.serverName))
      throw new Error(
        `mcp_read_resource: MCP server "${r.serverName}" runs in the host (type sdk); read its resources there`,
      );
    const client = m.connectedClient(r.serverName, 'mcp_read_resource');
    try {
      const result = await client.readResource({ uri: r.uri });
      return { contents: result.contents };
    } catch (err) {
      throw new Error(
        `mcp_read_resource: MCP server "${r.serverName}" could not read ${r.uri}: ${(err as Error).message}`,
      );
    }
  });
  channel.on('set_mcp_permission_mode_override', async (req) => {
    const r = parseControlRequest(modeOverrideSchema, req, 'set_mcp_permission_mode_override');
    // 'auto' hands each call to the reference's auto-mode classifier; there is none here, and
    // treating it as 'default' or as no override would not be what the host asked for.
    if (r.mode === 'auto')
      throw new Error(
        'set_mcp_permission_mode_override: mode "auto" routes calls through an auto-mode classifier, which this agent runtime does not have; use "default" (ask for every call) or null',
      );
    const asked = target.askedServers();
    if (r.mode === 'default') asked.add(normalizeName(r.serverName));
    else asked.delete(normalizeName(r.serverName));
    const known = await target.knownServers();
    // Stored either way: it applies once a server of that name connects (a typo gets a warning).
    return known.includes(r.serverName)
      ? {}
      : {
          warning: `no MCP server named "${r.serverName}" is known yet${known.length ? ` (servers: ${known.join(', ')})` : ''}; the override applies once one connects`,
        };
  });
}
