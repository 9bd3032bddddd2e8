// Glob: file paths matching a pattern, newest first, capped so a broad pattern cannot flood.
import { promises as fsp } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Entry } from 'fast-glob';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';

export const GLOB_MAX_RESULTS = 100;
/** Matches gathered before sorting stop here, so a pattern like `**` over a huge tree stays bounded. */
const GLOB_MAX_SCANNED = 100_000;
export const GLOB_TRUNCATED_NOTE = '(Results are truncated. Consider using a more specific path or pattern.)';

export const GLOB_DESCRIPTION = `Fast file pattern matching tool that works with any codebase size.

- Supports glob patterns like "**/*.js" or "src/**/*.ts".
- Returns absolute paths of matching files, sorted by modification time (newest first), at most ${GLOB_MAX_RESULTS}.
- Hidden files (dot files) are not matched unless the pattern names them; .git and node_modules are skipped unless the pattern names them.
- Use this tool when you need to find files by name patterns. For open-ended searches that need several rounds of globbing and grepping, search step by step.
- You can call several tools in one message: it is often better to run several searches at once.`;

export const globInputSchema = lazySchema(() =>
  z.object({
    pattern: z.string().describe('The glob pattern to match files against'),
    path: z
      .string()
      .optional()
      .describe(
        'The directory to search in. If not specified, the current working directory will be used. Omit this field to use the default directory; do not pass "undefined" or "null". Must be a valid directory path if provided.',
      ),
  }),
);
export type GlobInput = z.infer<typeof globInputSchema>;

export interface GlobOutput {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
  durationMs: number;
  totalMatches: number;
}

/** The directory a search starts in: the given path (absolute, or relative to cwd) or cwd. */
export async function resolveSearchDir(path: string | undefined, cwd: string): Promise<string> {
  const dir = path === undefined || path === '' ? cwd : isAbsolute(path) ? resolve(path) : resolve(cwd, path);
  let st;
  try {
    st = await fsp.stat(dir);
  } catch {
    throw new ToolError(`Directory does not exist: ${dir}`);
  }
  if (!st.isDirectory()) throw new ToolError(`Path is not a directory: ${dir}`);
  return dir;
}

/** Newest first; equal times by path so the order is stable. */
export function byMtimeDesc(a: { path: string; mtimeMs: number }, b: { path: string; mtimeMs: number }): number {
  return b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

export const GlobTool = defineTool({
  name: 'Glob',
  description: GLOB_DESCRIPTION,
  inputSchema: globInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  kind: 'search',
  describedBy: ['pattern'],
  access: (input) => ({ paths: [input.path ?? '.'] }),
  label: (input) => `Find ${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
  async *call(input, ctx) {
    const started = Date.now();
    const dir = await resolveSearchDir(input.path, ctx.cwd);
    const ignore = ['**/.git/**'];
    if (!input.pattern.includes('node_modules')) ignore.push('**/node_modules/**');

    const found: { path: string; mtimeMs: number }[] = [];
    // Loaded at the first Glob: fast-glob reads the machine's CPU count as it loads, which the
    // start-up snapshot (scripts/snapshot.cjs) would otherwise keep from the build.
    const fg = (await import('fast-glob')).default;
    const stream = fg.stream(input.pattern, {
      cwd: dir,
      absolute: true,
      dot: false,
      onlyFiles: true,
      stats: true,
      ignore,
      followSymbolicLinks: false,
      suppressErrors: true,
    });
    // A walk that matches nothing yields nothing to check the signal on: the abort ends the stream itself.
    const walk = stream as NodeJS.ReadableStream & { destroy: () => void };
    const stop = () => walk.destroy();
    ctx.signal.addEventListener('abort', stop, { once: true });
    let capped = false;
    try {
      for await (const entry of walk as AsyncIterable<Entry>) {
        if (ctx.signal.aborted) break;
        if (ctx.isPathReadable && !ctx.isPathReadable(entry.path)) continue;
        found.push({ path: entry.path, mtimeMs: entry.stats?.mtimeMs ?? 0 });
        if (found.length >= GLOB_MAX_SCANNED) {
          capped = true;
          break;
        }
      }
    } catch (err) {
      if (!ctx.signal.aborted) throw err;
    } finally {
      ctx.signal.removeEventListener('abort', stop);
      walk.destroy();
    }
    if (ctx.signal.aborted) throw new ToolError('Glob was interrupted.');
    found.sort(byMtimeDesc);

    const truncated = capped || found.length > GLOB_MAX_RESULTS;
    const filenames = found.slice(0, GLOB_MAX_RESULTS).map((f) => f.path);
    const data: GlobOutput = {
      filenames,
      numFiles: filenames.length,
      truncated,
      durationMs: Date.now() - started,
      totalMatches: found.length,
    };
    if (filenames.length === 0) return { content: 'No files found', data };
    const content = filenames.join('\n') + (truncated ? `\n${GLOB_TRUNCATED_NOTE}` : '');
    return { content, data };
  },
});
