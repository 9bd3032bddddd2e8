// The MCP server policy lists of the settings: deniedMcpServers (a server matching an entry never
// starts, whatever its scope) and allowedMcpServers (when set, only a server matching an entry
// starts; an empty list admits none). An entry matches by serverName, by serverCommand (the exact
// [command, ...args] of a stdio server) or by serverUrl (a URL pattern, `*` any run of characters)
// of a remote one. Deny entries from every source add up (a deny only narrows). The allow list is
// the one of the highest source that sets it, project and local settings excepted: a repository's
// files may not widen what the user or the organization allows.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { LoadedFile } from '../settings/load.js';
import type { McpServerConfig } from './config.js';

const entrySchema = lazySchema(() =>
  z
    .object({
      serverName: z.string().min(1).optional(),
      serverCommand: z.array(z.string()).min(1).optional(),
      serverUrl: z.string().min(1).optional(),
    })
    .refine(
      (e) => e.serverName !== undefined || e.serverCommand !== undefined || e.serverUrl !== undefined,
      'an entry needs serverName, serverCommand or serverUrl',
    ),
);
const listSchema = lazySchema(() => z.array(entrySchema));
type Entry = z.infer<typeof entrySchema>;

export class McpPolicyError extends Error {}

export interface McpPolicy {
  /** Why the server may not start, or undefined when it may. */
  blocked(name: string, config: McpServerConfig, scope: string): string | undefined;
  /** Lines for stderr: allow lists a project file tried to set. */
  warnings: string[];
}

export function mcpPolicy(files: LoadedFile[]): McpPolicy {
  const warnings: string[] = [];
  const read = (f: LoadedFile, key: 'allowedMcpServers' | 'deniedMcpServers'): Entry[] | undefined => {
    const raw = (f.settings as Record<string, unknown>)[key];
    if (raw === undefined) return undefined;
    const r = listSchema.safeParse(raw);
    if (!r.success) {
      const i = r.error.issues[0];
      throw new McpPolicyError(
        `${f.path}: ${key}${i.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}: ${i.message}`,
      );
    }
    return r.data;
  };
  const denied = files.flatMap((f) => read(f, 'deniedMcpServers') ?? []);
  let allowed: Entry[] | undefined;
  for (const f of files) {
    const list = read(f, 'allowedMcpServers');
    if (list === undefined) continue;
    if (f.source === 'project' || f.source === 'local') {
      warnings.push(
        `${f.path}: allowedMcpServers ignored here: a project's files cannot widen which MCP servers may run; set it in user or managed settings`,
      );
      continue;
    }
    allowed = list;
  }
  return {
    warnings,
    blocked(name, config, scope) {
      const deny = denied.find((e) => matches(e, name, config));
      if (deny) return `blocked by deniedMcpServers (${describe(deny)})`;
      // The organization's own servers need no allow entry.
      if (allowed === undefined || scope === 'managed') return undefined;
      if (allowed.some((e) => matches(e, name, config))) return undefined;
      return allowed.length ? 'not in allowedMcpServers' : 'allowedMcpServers is empty: no MCP server may run';
    },
  };
}

function matches(e: Entry, name: string, config: McpServerConfig): boolean {
  if (e.serverName !== undefined) return e.serverName === name;
  if (e.serverCommand !== undefined)
    return 'command' in config && sameList(e.serverCommand, [config.command, ...config.args]);
  if (e.serverUrl !== undefined) return 'url' in config && urlMatches(e.serverUrl, config.url);
  return false;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** `*` matches any run of characters; a pattern without a query also matches the URL with one, and with or without a trailing slash. */
export function urlMatches(pattern: string, url: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
  if (re.test(url)) return true;
  if (pattern.includes('?')) return false;
  const bare = url.replace(/[?#].*$/, '');
  return re.test(bare) || re.test(bare.endsWith('/') ? bare.slice(0, -1) : `${bare}/`);
}

function escapeRegex(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function describe(e: Entry): string {
  if (e.serverName !== undefined) return `serverName ${JSON.stringify(e.serverName)}`;
  if (e.serverCommand !== undefined) return `serverCommand ${JSON.stringify(e.serverCommand)}`;
  return `serverUrl ${JSON.stringify(e.serverUrl)}`;
}
