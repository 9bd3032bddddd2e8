// Where a session's MCP servers are defined, and which of them may start. Sources, lowest
// precedence first (a later one wins for a repeated name): user settings, the project's .mcp.json,
// project settings, local settings, --settings, --mcp-config (and the SDK's servers), managed
// settings. Each file source's `mcpServers` is `{name: config}` in the .mcp.json shape, with
// ${VAR} and ${VAR:-default} taken from the environment. --strict-mcp-config keeps only
// --mcp-config; --setting-sources decides which files are read (.mcp.json is `project`).
//
// A project server (.mcp.json or .claude/settings.json, both committed with the repository) starts
// only once approved: enableAllProjectMcpServers, or its name in enabledMcpjsonServers; a name in
// disabledMcpjsonServers never starts. The approval is read from the user's own files (user,
// local, --settings, managed), never from project settings: a repository cannot approve its own
// servers. Headless there is no one to ask, so an unapproved server is listed as disabled with
// the reason (stderr, mcp_status) and a host may start it with mcp_toggle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { LoadedFile, SettingSource } from '../settings/load.js';
import { McpConfigError, parseServer, type McpServerConfig } from './config.js';
import { mcpPolicy, McpPolicyError, type McpPolicy } from './policy.js';
import type { McpScope } from './manager.js';

export interface ServerGroup {
  scope: McpScope;
  configs: Map<string, McpServerConfig>;
  /** Servers that must not start yet, with the reason (not approved, disabled). */
  held: Map<string, string>;
}

export interface McpSourceOptions {
  /** Where .mcp.json is read (--project-config-root, else the working directory). */
  projectRoot: string;
  sources: SettingSource[];
  /** The session's loaded settings files, lowest precedence first. */
  files: LoadedFile[];
  /** --mcp-config, parsed. */
  flagServers: Map<string, McpServerConfig>;
  strict: boolean;
  env: NodeJS.ProcessEnv;
}

export interface McpSources {
  /** One group per scope, each name in exactly one group (the highest source that defines it). */
  groups: ServerGroup[];
  /** Lines for stderr: approval keys or allow lists a project file tried to set. */
  warnings: string[];
  /** allowedMcpServers / deniedMcpServers, for servers added later (initialize, mcp_set_servers). */
  policy: McpPolicy;
}

const POLICY_KEYS = ['managedMcpServers'] as const;
const APPROVAL_KEYS = ['enableAllProjectMcpServers', 'enabledMcpjsonServers', 'disabledMcpjsonServers'] as const;
const mcpJsonSchema = lazySchema(() =>
  z.object({
    mcpServers: z.record(z.string(), z.unknown(), { error: 'mcpServers must be an object of name → config' }),
  }),
);

/** Every source's servers, resolved to one config per name; throws McpConfigError for a broken .mcp.json. */
export function gatherMcpServers(o: McpSourceOptions): McpSources {
  const warnings: string[] = [];
  // A policy list we do not build yet: refusing beats running without the servers it provides.
  for (const f of o.files) {
    const set = POLICY_KEYS.filter((k) => (f.settings as Record<string, unknown>)[k] !== undefined);
    if (set.length)
      throw new McpConfigError(
        `${f.path}: ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} not supported by this agent runtime yet; refusing to start rather than ignore an MCP server policy`,
      );
  }
  let policy: McpPolicy;
  try {
    policy = mcpPolicy(o.files);
  } catch (err) {
    if (err instanceof McpPolicyError) throw new McpConfigError(err.message);
    throw err;
  }
  warnings.push(...policy.warnings);
  const layers: Array<{
    scope: McpScope;
    origin: string;
    servers: Record<string, unknown> | Map<string, McpServerConfig>;
    needsApproval: boolean;
  }> = [];
  if (!o.strict) {
    const byFile = (source: LoadedFile['source']) => o.files.filter((f) => f.source === source);
    const settingsLayer = (f: LoadedFile, scope: McpScope, needsApproval: boolean) => {
      const servers = (f.settings as { mcpServers?: unknown }).mcpServers;
      if (servers === undefined) return;
      if (!isObject(servers)) throw new McpConfigError(`${f.path}: mcpServers must be an object of name → config`);
      layers.push({ scope, origin: f.path, servers, needsApproval });
    };
    for (const f of byFile('user')) settingsLayer(f, 'user', false);
    if (o.sources.includes('project')) {
      const mcpJson = readMcpJson(join(o.projectRoot, '.mcp.json'));
      if (mcpJson)
        layers.push({
          scope: 'project',
          origin: join(o.projectRoot, '.mcp.json'),
          servers: mcpJson,
          needsApproval: true,
        });
    }
    for (const f of byFile('project')) {
      settingsLayer(f, 'project', true);
      const tried = APPROVAL_KEYS.filter((k) => (f.settings as Record<string, unknown>)[k] !== undefined);
      if (tried.length)
        warnings.push(
          `${f.path}: ${tried.join(', ')} ignored here: a repository cannot approve its own MCP servers; set ${tried.length > 1 ? 'them' : 'it'} in user or local settings (.claude/settings.local.json)`,
        );
    }
    for (const f of byFile('local')) settingsLayer(f, 'local', false);
    for (const f of byFile('flag')) settingsLayer(f, 'dynamic', false);
  }
  layers.push({ scope: 'dynamic', origin: '--mcp-config', servers: o.flagServers, needsApproval: false });
  if (!o.strict)
    for (const f of o.files.filter((x) => x.source === 'managed')) {
      const servers = (f.settings as { mcpServers?: unknown }).mcpServers;
      if (servers === undefined) continue;
      if (!isObject(servers)) throw new McpConfigError(`${f.path}: mcpServers must be an object of name → config`);
      layers.push({ scope: 'managed', origin: f.path, servers, needsApproval: false });
    }

  const approval = approvalFrom(o.files);
  const chosen = new Map<string, { scope: McpScope; config: McpServerConfig; held?: string }>();
  for (const layer of layers) {
    const entries = layer.servers instanceof Map ? [...layer.servers] : Object.entries(layer.servers);
    for (const [name, raw] of entries) {
      const config =
        layer.servers instanceof Map ? (raw as McpServerConfig) : fileServer(name, raw, layer.origin, o.env);
      const held = layer.needsApproval ? approval(name) : undefined;
      // A name defined again higher up replaces the lower definition whole.
      chosen.delete(name);
      chosen.set(name, {
        scope: layer.scope,
        config: withPolicy(policy, name, config, layer.scope),
        ...(held ? { held } : {}),
      });
    }
  }
  const groups = new Map<McpScope, ServerGroup>();
  for (const [name, c] of chosen) {
    const g = groups.get(c.scope) ?? { scope: c.scope, configs: new Map(), held: new Map() };
    groups.set(c.scope, g);
    g.configs.set(name, c.config);
    if (c.held) g.held.set(name, c.held);
  }
  return { groups: [...groups.values()], warnings, policy };
}

/** A server the policy blocks is kept only to be reported failed with the reason (mcp_toggle cannot start it). */
export function withPolicy(policy: McpPolicy, name: string, config: McpServerConfig, scope: McpScope): McpServerConfig {
  if (config.type === 'sdk' || config.type === 'unsupported') return config;
  const why = policy.blocked(name, config, scope);
  return why ? { type: 'unsupported', reason: why } : config;
}

/** name → why it may not start (undefined: approved). */
function approvalFrom(files: LoadedFile[]): (name: string) => string | undefined {
  const trusted = files.filter((f) => f.source !== 'project').map((f) => f.settings as Record<string, unknown>);
  const list = (key: string) =>
    trusted.flatMap((s) =>
      Array.isArray(s[key]) ? (s[key] as unknown[]).filter((x): x is string => typeof x === 'string') : [],
    );
  const disabled = new Set(list('disabledMcpjsonServers'));
  const enabled = new Set(list('enabledMcpjsonServers'));
  // The highest trusted source that sets it decides (managed false beats user true).
  const all =
    [...trusted].reverse().find((s) => typeof s.enableAllProjectMcpServers === 'boolean')
      ?.enableAllProjectMcpServers === true;
  return (name) => {
    if (disabled.has(name)) return 'disabled by disabledMcpjsonServers';
    if (all || enabled.has(name)) return undefined;
    return `a project server is not started until approved: add "${name}" to enabledMcpjsonServers (or set enableAllProjectMcpServers) in user or local settings, or enable it with mcp_toggle`;
  };
}

function readMcpJson(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new McpConfigError(`${file}: cannot be read (${(err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`${file}: not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const r = mcpJsonSchema.safeParse(raw);
  if (!r.success)
    throw new McpConfigError(`${file}: expected {"mcpServers": {name: config}}: ${r.error.issues[0].message}`);
  return r.data.mcpServers;
}

/** One server of a file: ${VAR} expanded, then parsed; a broken one is kept as failed, naming the file. */
function fileServer(name: string, raw: unknown, origin: string, env: NodeJS.ProcessEnv): McpServerConfig {
  const missing = new Set<string>();
  const expanded = expandVars(raw, env, missing);
  if (missing.size)
    return {
      type: 'unsupported',
      reason: `${origin}: environment variable${missing.size > 1 ? 's' : ''} ${[...missing].join(', ')} not set (use \${VAR:-default} for a default)`,
    };
  try {
    return parseServer(name, expanded, origin);
  } catch (err) {
    if (err instanceof McpConfigError) return { type: 'unsupported', reason: err.message };
    throw err;
  }
}

/** ${VAR} and ${VAR:-default} in every string of a config (keys stay as written). */
export function expandVars(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, v: string, def: string | undefined) => {
      const got = env[v];
      if (got !== undefined && got !== '') return got;
      if (def !== undefined) return def;
      missing.add(v);
      return '';
    });
  if (Array.isArray(value)) return value.map((v) => expandVars(v, env, missing));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandVars(v, env, missing)]));
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
