// The session's MCP servers: the connection manager (elicitations answered by hooks, then the host),
// and the servers of --mcp-config, the settings files and .mcp.json (src/mcp/sources.ts), started
// in the background. The policy lists of the settings hold for every server added later too.
import type { ControlChannel } from '../control/channel.js';
import type { HookRunner } from '../hooks/index.js';
import type { McpPolicy } from '../mcp/policy.js';
import { SessionMcp } from '../mcp/sessionMcp.js';
import { VERSION, type CliOptions } from '../cli/options.js';
import type { SessionEvent } from '../session/events.js';
import { StartupError } from '../session/guards.js';
import type { LoadedSettings } from '../settings/index.js';
import type { SessionConfig } from './sessionConfig.js';
import { logWarning, writeStderr } from '../util/log.js';

/** How long a host may take to answer an MCP server's question (the server's own deadline usually comes first). */
const ELICITATION_TIMEOUT_MS = 10 * 60_000;

export interface McpDeps {
  env: NodeJS.ProcessEnv;
  loaded: LoadedSettings;
  channel: ControlChannel;
  /** The session's hook runner (built after the servers: a permission-prompt tool may be one of theirs). */
  hooks: () => HookRunner;
  emit: (event: SessionEvent) => Promise<void>;
  /** The terminal UI's elicitation form, where the mode has one (it stands in for the host). */
  elicit?: (payload: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;
}

/** Throws StartupError for a bad --mcp-config (2) or a broken config file (1). */
export async function setupMcp(
  o: CliOptions,
  config: SessionConfig,
  deps: McpDeps,
): Promise<{ mcp: SessionMcp; policy: McpPolicy }> {
  const { channel, env } = deps;
  const hooksFor =
    (event: 'Elicitation' | 'ElicitationResult') =>
    async (fields: object & { mcp_server_name: string }, signal: AbortSignal) => {
      const hooks = deps.hooks();
      if (!hooks.has(event)) return undefined;
      return (await hooks.run(event, fields, { matchValue: fields.mcp_server_name, signal })).elicitation;
    };
  const mcp = new SessionMcp({
    // Elicitation: hooks first, then the terminal UI's form or the host (stream-json); nobody else can answer.
    elicitation: {
      hook: hooksFor('Elicitation'),
      resultHook: hooksFor('ElicitationResult'),
      ...(deps.elicit && o.permissionPrompts !== 'none'
        ? { askHost: deps.elicit }
        : config.hostCanAnswer
          ? {
              askHost: (payload, signal) =>
                channel.request('elicitation', payload, { timeoutMs: ELICITATION_TIMEOUT_MS, signal }),
            }
          : {}),
      unanswered: o.permissionPrompts === 'none' ? 'cancel' : 'decline',
      log: (line) => writeStderr(`${line}\n`),
    },
    onElicitationComplete: (server, id) =>
      void deps.emit({
        type: 'notice',
        notice: { subtype: 'elicitation_complete', serverName: server, elicitationId: id },
      }),
    cwd: config.cwd,
    env,
    clientVersion: VERSION,
    log: (line) => writeStderr(`${line}\n`),
    disallowedTools: o.disallowedTools,
    promptTool: o.permissionPromptTool,
  });
  const { parseMcpConfigs, McpConfigError } = await import('../mcp/config.js');
  const { gatherMcpServers } = await import('../mcp/sources.js');
  try {
    const found = gatherMcpServers({
      projectRoot: config.projectRoot,
      sources: config.sources,
      files: deps.loaded.files,
      flagServers: o.mcpConfig.length ? parseMcpConfigs(o.mcpConfig, config.cwd) : new Map(),
      strict: o.strictMcpConfig,
      env,
    });
    for (const w of found.warnings) logWarning(w);
    const groups = found.groups.filter((g) => [...g.configs.values()].some((c) => c.type !== 'sdk'));
    if (groups.length) mcp.connectConfigured(groups);
    return { mcp, policy: found.policy };
  } catch (err) {
    if (!(err instanceof McpConfigError)) throw err;
    // A bad flag is a usage error (2); a broken file is a broken configuration (1).
    throw new StartupError(err.message, err.message.startsWith('--mcp-config') ? 2 : 1);
  }
}
