// Write: replace or create a whole file, atomically, and only over a file the model has seen.
// Also home of the file helpers Edit shares (read-before-write check, atomic write).
import { randomHex } from '../src/util/ids.js';
import { promises as fsp, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { structuredPatch } from 'diff';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';

export const WRITE_DESCRIPTION = `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if it changed on disk since you read it.
- file_path must be an absolute path. Missing parent directories are created.
- Prefer the Edit tool for changing existing files: it only sends the part that changes.
- Do not create documentation files (*.md, README) unless explicitly asked.`;

export const NOT_READ_MESSAGE = 'File has not been read yet. Read it first before writing to it.';
export const MODIFIED_MESSAGE =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';

/** Diffs of files larger than this are skipped: the patch is for display, not worth seconds. */
const MAX_DIFF_CHARS = 1_000_000;

export const writeInputSchema = lazySchema(() =>
  z.object({
    file_path: z.string().describe('The absolute path to the file to write (must be absolute, not relative)'),
    content: z.string().describe('The content to write to the file'),
  }),
);
export type WriteInput = z.infer<typeof writeInputSchema>;

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface WriteOutput {
  type: 'create' | 'update';
  filePath: string;
  content: string;
  structuredPatch: PatchHunk[];
  originalFile: string | null;
}

export function requireAbsolute(filePath: string): string {
  if (!isAbsolute(filePath)) {
    throw new ToolError(`file_path must be an absolute path, not a relative one: ${filePath}`);
  }
  // Normalised, so `/a/../b` and `/b` are the same file to readFiles.
  return resolve(filePath);
}

/** stat, or undefined when nothing is there. */
export async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fsp.stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Write/Edit may only touch an existing file that Read saw, and that has not changed since. */
export function assertReadAndUnchanged(ctx: ToolContext, filePath: string, st: Stats): void {
  const seen = ctx.readFiles.get(filePath);
  if (!seen) throw new ToolError(NOT_READ_MESSAGE);
  if (seen.mtimeMs !== st.mtimeMs || seen.size !== st.size) throw new ToolError(MODIFIED_MESSAGE);
}

/**
 * Write through a temp file in the same directory and rename it over the target, so a reader
 * never sees half a file. Keeps the mode of the file it replaces. Writes through a symlink to its
 * target (renaming over the link would replace the link with a plain file).
 */
export async function writeFileAtomic(filePath: string, content: string): Promise<void> {
  let target = filePath;
  try {
    target = await fsp.realpath(filePath);
  } catch {
    /* does not exist yet: write at the path given */
  }
  const dir = dirname(target);
  await fsp.mkdir(dir, { recursive: true });
  const existing = await statOrUndefined(target);
  const tmp = join(dir, `.${basename(target)}.${randomHex(6)}.tmp`);
  try {
    await fsp.writeFile(tmp, content, { encoding: 'utf8', mode: existing ? existing.mode & 0o7777 : 0o666 });
    if (existing) await fsp.chmod(tmp, existing.mode & 0o7777);
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Remember the file as the model now knows it, so a follow-up Edit/Write is allowed. */
export async function recordWritten(ctx: ToolContext, filePath: string): Promise<void> {
  const st = await fsp.stat(filePath);
  ctx.readFiles.set(filePath, { mtimeMs: st.mtimeMs, size: st.size });
}

export function makePatch(filePath: string, before: string, after: string): PatchHunk[] {
  if (before.length + after.length > MAX_DIFF_CHARS) return [];
  return structuredPatch(filePath, filePath, before, after, undefined, undefined, { context: 3 }).hunks;
}

export const WriteTool = defineTool({
  name: 'Write',
  description: WRITE_DESCRIPTION,
  inputSchema: writeInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  kind: 'edit',
  describedBy: ['file_path'],
  access: (input) => ({ paths: [input.file_path] }),
  label: (input) => `Write ${input.file_path}`,
  async *call(input, ctx) {
    const filePath = requireAbsolute(input.file_path);
    const st = await statOrUndefined(filePath);
    if (st?.isDirectory()) throw new ToolError(`${filePath} is a directory, not a file.`);
    let originalFile: string | null = null;
    if (st) {
      assertReadAndUnchanged(ctx, filePath, st);
      originalFile = st.size <= MAX_DIFF_CHARS ? await fsp.readFile(filePath, 'utf8') : null;
    }
    // File checkpoints (when on) copy the file before its first change of this turn.
    await ctx.services?.fileHistory?.beforeWrite(filePath);
    await writeFileAtomic(filePath, input.content);
    await recordWritten(ctx, filePath);
    const data: WriteOutput = {
      type: st ? 'update' : 'create',
      filePath,
      content: input.content,
      structuredPatch: originalFile !== null ? makePatch(filePath, originalFile, input.content) : [],
      originalFile,
    };
    const content = st
      ? `The file ${filePath} has been updated successfully.`
      : `File created successfully at: ${filePath}`;
    return { content, data };
  },
});
