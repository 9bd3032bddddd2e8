// --mcp-config values → named server configs. Each value is inline JSON or a path to a JSON file
// holding `{"mcpServers": {name: config}}`; later values win for a repeated name. A value that is
// not valid JSON or not of that shape stops the start (exit 2); a server whose config is of a type
// we cannot connect is kept and reported as failed, never dropped in silence.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

const stdioSchema = lazySchema(() =>
  z.object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'command must not be empty'),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Never defer this server's tools behind ToolSearch. */
    alwaysLoad: z.boolean().optional(),
  }),
);
const remoteSchema = lazySchema(() =>
  z.object({
    type: z.enum(['sse', 'http']),
    url: z.url({ error: 'url must be a URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    alwaysLoad: z.boolean().optional(),
  }),
);

export type StdioServerConfig = z.infer<typeof stdioSchema>;
export type RemoteServerConfig = z.infer<typeof remoteSchema>;
/** `unsupported`: a config we keep only to report it as failed, with the reason. */
/** `sdk`: the host's in-process server; it connects over mcp_message once initialize names it. */
export type McpServerConfig =
  | StdioServerConfig
  | RemoteServerConfig
  | { type: 'sdk' }
  | { type: 'unsupported'; reason: string };

const fileSchema = lazySchema(() => z.object({ mcpServers: z.record(z.string(), z.unknown()) }));

export class McpConfigError extends Error {}

/** Parse every --mcp-config value (in order) into one name → config map. */
export function parseMcpConfigs(values: string[], cwd: string): Map<string, McpServerConfig> {
  const out = new Map<string, McpServerConfig>();
  for (const value of values) {
    const raw = readValue(value, cwd);
    const file = fileSchema.safeParse(raw);
    if (!file.success)
      throw new McpConfigError(`--mcp-config: expected {"mcpServers": {name: config}} in ${describe(value)}`);
    for (const [name, config] of Object.entries(file.data.mcpServers)) out.set(name, parseServer(name, config));
  }
  return out;
}

/** One server's config; a malformed one throws McpConfigError naming the server (`origin` starts the message). */
export function parseServer(name: string, config: unknown, origin = '--mcp-config'): McpServerConfig {
  const type = (config as { type?: unknown } | null)?.type;
  if (type === 'sdk') return { type: 'sdk' };
  const schema =
    type === undefined || type === 'stdio' ? stdioSchema : type === 'sse' || type === 'http' ? remoteSchema : null;
  if (!schema)
    return {
      type: 'unsupported',
      reason: `server type ${JSON.stringify(type)} is not supported (stdio, sse and http are)`,
    };
  const r = schema.safeParse(config);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
    throw new McpConfigError(`${origin}: server "${name}": ${why}`);
  }
  return r.data;
}

function readValue(value: string, cwd: string): unknown {
  const text = value.trimStart().startsWith('{') ? value : readFile(value, cwd);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`--mcp-config: ${describe(value)} is not valid JSON: ${(err as Error).message}`);
  }
}

function readFile(path: string, cwd: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new McpConfigError(
      `--mcp-config: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

function describe(value: string): string {
  return value.trimStart().startsWith('{') ? 'the inline JSON' : value;
}
