// A plugin's manifest, `.claude-plugin/plugin.json`: its name (the namespace of everything it
// ships), optional metadata, and optional paths or inline configs that add to or replace the
// default folders. A manifest that is not JSON or not of this shape is a PluginError naming the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

export class PluginError extends Error {}

/** A name is a namespace (`name:command`, `mcp__plugin_name_server__tool`): no spaces, no colons. */
const pluginName = lazySchema(() =>
  z.string({ error: 'must be a string' }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    error: 'must be letters, digits, ".", "_" or "-" (kebab-case, no spaces or colons)',
  }),
);

const pathList = lazySchema(() =>
  z.union([z.string(), z.array(z.string())], {
    error: 'must be a path or a list of paths (relative to the plugin root, "./…")',
  }),
);
const objectOrPath = (what: string) =>
  z.union([z.string(), z.record(z.string(), z.unknown())], {
    error: `must be a path (relative to the plugin root) or an inline ${what} object`,
  });

export const pluginManifestSchema = lazySchema(() =>
  z.looseObject({
    name: pluginName,
    version: z.string({ error: 'must be a string' }).optional(),
    description: z.string({ error: 'must be a string' }).optional(),
    commands: pathList.optional(),
    agents: pathList.optional(),
    skills: pathList.optional(),
    hooks: objectOrPath('hooks').optional(),
    mcpServers: objectOrPath('mcpServers').optional(),
  }),
);
export type PluginManifest = z.infer<typeof pluginManifestSchema>;

export const MANIFEST_PATH = join('.claude-plugin', 'plugin.json');

/** The manifest of the plugin at `root`; without one, the folder's name is the plugin's name (as the reference does). */
export function readManifest(root: string, folderName: string): PluginManifest {
  const file = join(root, MANIFEST_PATH);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new PluginError(`${file}: cannot read the manifest: ${(err as Error).message}`);
    const r = pluginName.safeParse(folderName);
    if (!r.success)
      throw new PluginError(
        `${root}: no ${MANIFEST_PATH}, and the folder name "${folderName}" is not a usable plugin name: ${r.error.issues[0]?.message}`,
      );
    return { name: folderName };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PluginError(`${file}: the plugin manifest is not valid JSON: ${(err as Error).message}`);
  }
  const r = pluginManifestSchema.safeParse(raw);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'manifest'}: ${i.message}`).join('; ');
    throw new PluginError(`${file}: invalid plugin manifest: ${why}`);
  }
  return r.data;
}
