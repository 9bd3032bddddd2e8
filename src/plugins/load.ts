// One plugin folder → what it ships, namespaced by its name: commands (`/name:cmd`), agents
// (`name:agent`), skills (`name:skill`), hooks and MCP servers (`plugin:name:server`, so their tools
// are `mcp__plugin_name_server__tool`). `${CLAUDE_PLUGIN_ROOT}` in hook commands, MCP configs and
// command/skill text becomes the plugin's absolute folder. A broken manifest, hooks file or MCP
// file is a PluginError naming the file; a single bad command, agent or skill file is a warning.
import { readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SkillEntry } from '../../tools/skill.js';
import type { AgentDef } from '../agents/definitions.js';
import { loadAgentDir, parseAgentMarkdown } from '../agents/markdownAgents.js';
import { loadCommandDir, parseCommandMarkdown, type MarkdownCommand } from '../commands/markdownCommands.js';
import type { CommandHooksConfig } from '../hooks/hookRunner.js';
import { McpConfigError, parseServer, type McpServerConfig } from '../mcp/config.js';
import { expandVars } from '../mcp/sources.js';
import { hooksSettingsSchema } from '../settings/schema.js';
import { loadSkillDir } from '../skills/catalog.js';
import { PluginError, readManifest, type PluginManifest } from './manifest.js';

export interface PluginSpec {
  /** As given (`--plugin-dir`, the SDK's `plugins`); resolved against the session's cwd. */
  path: string;
  /** `--plugin-dir-no-mcp` / `skipMcpDiscovery`: the host runs this plugin's MCP servers itself. */
  skipMcp?: boolean;
}

export interface LoadedPlugin {
  name: string;
  /** The absolute folder. */
  path: string;
  version?: string;
  description?: string;
  commands: MarkdownCommand[];
  agents: AgentDef[];
  skills: SkillEntry[];
  hooks: CommandHooksConfig;
  /** Keyed by the scoped name `plugin:<plugin>:<server>`. */
  mcpServers: Map<string, McpServerConfig>;
  /** Files skipped (a bad command, agent or skill), each with its reason. */
  warnings: string[];
}

export const PLUGIN_ROOT_VAR = 'CLAUDE_PLUGIN_ROOT';

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT` as a whole word) → the folder, in every string of a JSON value. */
export function expandPluginRoot<T>(value: T, root: string): T {
  if (typeof value === 'string')
    return value.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g, () => root) as T;
  if (Array.isArray(value)) return value.map((v) => expandPluginRoot(v, root)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandPluginRoot(v, root)])) as T;
  return value;
}

/** The scoped server name the reference uses: `plugin:<plugin>:<server>`. */
export function pluginServerName(plugin: string, server: string): string {
  return `plugin:${plugin}:${server}`;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** A manifest path: relative to the root and inside it (a plugin never reaches outside its folder). */
function inside(root: string, p: string, field: string, manifestFile: string): string {
  const abs = resolve(root, p);
  const rel = relative(root, abs);
  if (isAbsolute(p) || rel === '..' || rel.startsWith(`..${sep}`))
    throw new PluginError(
      `${manifestFile}: ${field}: "${p}" is outside the plugin folder (paths are relative to it, "./…")`,
    );
  if (!exists(abs)) throw new PluginError(`${manifestFile}: ${field}: "${p}" does not exist`);
  return abs;
}

const listOf = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PluginError(`${file}: cannot read the plugin's ${what}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new PluginError(`${file}: the plugin's ${what} is not valid JSON: ${(err as Error).message}`);
  }
}

/** `{hooks: {Event: [...]}}` (the hooks.json form) or `{Event: [...]}`, checked as settings hooks are. */
function parseHooks(raw: unknown, where: string, root: string): CommandHooksConfig {
  const obj = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!obj) throw new PluginError(`${where}: hooks must be a JSON object ({"hooks": {Event: [{matcher, hooks}]}})`);
  const events =
    obj.hooks !== undefined && typeof obj.hooks === 'object' && !Array.isArray(obj.hooks)
      ? obj.hooks
      : Object.fromEntries(Object.entries(obj).filter(([k]) => k !== 'description'));
  const r = hooksSettingsSchema.safeParse(events);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.join('.') || 'hooks'}: ${i.message}`).join('; ');
    throw new PluginError(`${where}: invalid hooks: ${why}`);
  }
  return expandPluginRoot(r.data as CommandHooksConfig, root);
}

/**
 * `{mcpServers: {name: config}}` (the .mcp.json form) or `{name: config}`; `${VAR}` and
 * `${VAR:-default}` take the environment as in any .mcp.json (a variable not set makes that server
 * failed, naming it).
 */
function parseMcp(
  raw: unknown,
  where: string,
  plugin: string,
  root: string,
  env: NodeJS.ProcessEnv,
): Map<string, McpServerConfig> {
  const obj = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!obj) throw new PluginError(`${where}: MCP servers must be a JSON object ({"mcpServers": {name: config}})`);
  const servers =
    obj.mcpServers !== undefined && typeof obj.mcpServers === 'object' && !Array.isArray(obj.mcpServers)
      ? (obj.mcpServers as Record<string, unknown>)
      : obj;
  const out = new Map<string, McpServerConfig>();
  for (const [name, config] of Object.entries(servers)) {
    const scoped = pluginServerName(plugin, name);
    let parsed: McpServerConfig;
    const missing = new Set<string>();
    const expanded = expandVars(expandPluginRoot(config, root), env, missing);
    if (missing.size) {
      out.set(scoped, {
        type: 'unsupported',
        reason: `${where}: server "${name}": environment variable${missing.size > 1 ? 's' : ''} ${[...missing].join(', ')} not set (use \${VAR:-default} for a default)`,
      });
      continue;
    }
    try {
      parsed = parseServer(scoped, expanded, where);
    } catch (err) {
      if (err instanceof McpConfigError) throw new PluginError(err.message);
      throw err;
    }
    // The server knows where its plugin lives, as hooks do.
    if (parsed.type === undefined || parsed.type === 'stdio')
      parsed = { ...parsed, env: { [PLUGIN_ROOT_VAR]: root, ...parsed.env } };
    out.set(scoped, parsed);
  }
  return out;
}

/** Read one plugin folder. Throws PluginError for a missing folder or a broken manifest, hooks or MCP file. */
export async function loadPlugin(
  spec: PluginSpec,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedPlugin> {
  const root = resolve(cwd, spec.path);
  if (!isDir(root))
    throw new PluginError(`plugin folder ${spec.path}: ${exists(root) ? 'not a directory' : 'no such directory'}`);
  const manifest: PluginManifest = readManifest(root, basename(root));
  const manifestFile = join(root, '.claude-plugin', 'plugin.json');
  const name = manifest.name;
  const warnings: string[] = [];
  const expand = (text: string) => expandPluginRoot(text, root);

  // Commands: commands/ and the manifest's extra files or folders.
  const commands: MarkdownCommand[] = [];
  const commandSources = [
    ...(isDir(join(root, 'commands')) ? [join(root, 'commands')] : []),
    ...listOf(manifest.commands).map((p) => inside(root, p, 'commands', manifestFile)),
  ];
  for (const src of commandSources) {
    if (isDir(src)) {
      const { commands: found, problems } = await loadCommandDir(src, 'plugin');
      for (const p of problems) warnings.push(`${p.file}: ${p.problem}; the command was skipped`);
      for (const c of found) commands.push({ ...c, name: `${name}:${c.name}`, body: expand(c.body) });
    } else if (src.endsWith('.md')) {
      try {
        const { parse } = await import('yaml');
        const c = parseCommandMarkdown(
          readFileSync(src, 'utf8'),
          `${name}:${basename(src, '.md')}`,
          'plugin',
          src,
          parse,
        );
        commands.push({ ...c, body: expand(c.body) });
      } catch (err) {
        warnings.push(`${src}: ${(err as Error).message}; the command was skipped`);
      }
    }
  }

  // Agents: agents/*.md and the manifest's extra files or folders.
  const agents: AgentDef[] = [];
  const agentSources = [
    ...(isDir(join(root, 'agents')) ? [join(root, 'agents')] : []),
    ...listOf(manifest.agents).map((p) => inside(root, p, 'agents', manifestFile)),
  ];
  for (const src of agentSources) {
    if (isDir(src)) {
      const { agents: found, problems } = await loadAgentDir(src, 'plugin');
      for (const p of problems) warnings.push(`${p.file}: ${p.problem}; the agent was skipped`);
      for (const a of found) agents.push({ ...a, name: `${name}:${a.name}`, prompt: expand(a.prompt) });
    } else if (src.endsWith('.md')) {
      try {
        const { parse } = await import('yaml');
        const a = parseAgentMarkdown(readFileSync(src, 'utf8'), 'plugin', basename(src, '.md'), parse);
        agents.push({ ...a, name: `${name}:${a.name}`, prompt: expand(a.prompt) });
      } catch (err) {
        warnings.push(`${src}: ${(err as Error).message}; the agent was skipped`);
      }
    }
  }

  // Skills: skills/<skill>/SKILL.md and the manifest's extra folders.
  const skills: SkillEntry[] = [];
  const skillRoots = [
    ...(isDir(join(root, 'skills')) ? [join(root, 'skills')] : []),
    ...listOf(manifest.skills).map((p) => inside(root, p, 'skills', manifestFile)),
  ];
  for (const dir of skillRoots) {
    for (const s of await loadSkillDir(dir, 'plugin', (m) => warnings.push(m)))
      skills.push({ ...s, name: `${name}:${s.name}`, body: expand(s.body) });
  }

  // Hooks: hooks/hooks.json, or the manifest's path or inline object (which replaces it).
  let hooks: CommandHooksConfig = {};
  if (typeof manifest.hooks === 'object') hooks = parseHooks(manifest.hooks, `${manifestFile}: hooks`, root);
  else {
    const file =
      manifest.hooks !== undefined
        ? inside(root, manifest.hooks, 'hooks', manifestFile)
        : join(root, 'hooks', 'hooks.json');
    if (manifest.hooks !== undefined || exists(file)) hooks = parseHooks(readJson(file, 'hooks file'), file, root);
  }

  // MCP servers: .mcp.json, or the manifest's path or inline object; none with skipMcp.
  let mcpServers = new Map<string, McpServerConfig>();
  if (!spec.skipMcp) {
    if (typeof manifest.mcpServers === 'object')
      mcpServers = parseMcp(manifest.mcpServers, `${manifestFile}: mcpServers`, name, root, env);
    else {
      const file =
        manifest.mcpServers !== undefined
          ? inside(root, manifest.mcpServers, 'mcpServers', manifestFile)
          : join(root, '.mcp.json');
      if (manifest.mcpServers !== undefined || exists(file))
        mcpServers = parseMcp(readJson(file, 'MCP config'), file, name, root, env);
    }
  }

  return {
    name,
    path: root,
    ...(manifest.version !== undefined ? { version: manifest.version } : {}),
    ...(manifest.description !== undefined ? { description: manifest.description } : {}),
    commands,
    agents,
    skills,
    hooks,
    mcpServers,
    warnings,
  };
}
