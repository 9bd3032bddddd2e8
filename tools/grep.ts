// Grep: regex search over files. Uses ripgrep when it is on PATH, else a JS search that applies
// the same file selection rules, so both give the same answer on the same tree. Both feed one
// formatter: an impl only finds hits, it never formats. This file is the tool (schema, description,
// runGrep); the impls, dispatch and formatting live in grep/.
//
// File selection (rg's defaults, which the JS path reproduces):
// - hidden files and directories (name starting with '.') are skipped, symlinks are not followed;
// - .gitignore files apply only inside a git repository (a directory holding `.git`), from the
//   directory of the file up to the repository root; .ignore and .rgignore files apply anywhere,
//   up to the filesystem root; per kind, the deepest file that matches decides; .rgignore beats
//   .ignore beats .gitignore. Global gitignore and .git/info/exclude are not used (rg is run
//   with --no-ignore-global --no-ignore-exclude so both impls agree);
// - `glob` (rg --glob, several separated by spaces) decides alone when it matches: a file it
//   matches is searched even if hidden or ignored; `type` (rg --type) excludes other files (even
//   ones an ignore file re-included) and lets hidden files of its type through;
// - files holding a NUL byte are binary and skipped (rg stops at the NUL; it still prints matches
//   that came before a NUL lying past its first 64 KiB buffer — the JS path does not);
// - an explicitly named file is searched whatever the ignore rules say.
import { promises as fsp } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';
import { byMtimeDesc } from './glob.js';
import { readSearchableSync } from './grep/js.js';
import { formatContentLines, paginate, paginationNote } from './grep/format.js';
import { defaultGrepImpl, searchContent, searchFiles } from './grep/search.js';
import { compilePattern, TYPE_GLOBS, type GrepImpl, type SearchSpec } from './grep/shared.js';

// Re-exported: the impl modules' public names, importable from here as before the split.
export { compilePattern, GREP_MAX_LINE_CHARS } from './grep/shared.js';
export type { ContentResult, FileHits, GrepImpl, HitLine, SearchSpec } from './grep/shared.js';
export { findRg } from './grep/rg.js';
export { formatContentLines } from './grep/format.js';
export { defaultGrepImpl, searchContent, searchFiles } from './grep/search.js';

export const GREP_DEFAULT_HEAD_LIMIT = 250;

export const GREP_DESCRIPTION = `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command.
- Supports full regex syntax (e.g. "log.*Error", "function\\s+\\w+").
- Filter files with the glob parameter (e.g. "*.js", "**/*.tsx") or the type parameter (e.g. "js", "py", "rust").
- Output modes: "content" shows matching lines (path:line:text, paths relative to the working directory), "files_with_matches" shows only file paths, newest first (default), "count" shows match counts per file.
- head_limit caps the output lines/entries (default ${GREP_DEFAULT_HEAD_LIMIT}, 0 for unlimited); offset skips the first entries.
- Hidden files, files ignored by .gitignore/.ignore and binary files are skipped, as ripgrep does.
- Pattern syntax: ripgrep (not grep) — literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code).
- Patterns match within single lines by default. For patterns that span lines, like \`struct \\{[\\s\\S]*?field\`, use multiline: true.`;

const nonNegInt = lazySchema(() => z.number().int().nonnegative());

export const grepInputSchema = lazySchema(() =>
  z.object({
    pattern: z.string().describe('The regular expression pattern to search for in file contents'),
    path: z
      .string()
      .optional()
      .describe('File or directory to search in (rg PATH). Defaults to current working directory.'),
    glob: z
      .string()
      .optional()
      .describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe(
        'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
      ),
    '-B': nonNegInt
      .optional()
      .describe('Number of lines to show before each match (rg -B). Requires output_mode: "content".'),
    '-A': nonNegInt
      .optional()
      .describe('Number of lines to show after each match (rg -A). Requires output_mode: "content".'),
    '-C': nonNegInt.optional().describe('Alias for context.'),
    context: nonNegInt
      .optional()
      .describe('Number of lines to show before and after each match (rg -C). Requires output_mode: "content".'),
    '-n': z
      .boolean()
      .optional()
      .describe('Show line numbers in output (rg -n). Requires output_mode: "content". Defaults to true.'),
    '-i': z.boolean().optional().describe('Case insensitive search (rg -i)'),
    type: z.string().optional().describe('File type to search (rg --type). Common types: js, py, rust, go, java, etc.'),
    head_limit: nonNegInt
      .optional()
      .describe(
        `Limit output to first N lines/entries, equivalent to "| head -N". Defaults to ${GREP_DEFAULT_HEAD_LIMIT}; 0 for unlimited.`,
      ),
    offset: nonNegInt.optional().describe('Skip first N lines/entries before applying head_limit. Defaults to 0.'),
    multiline: z
      .boolean()
      .optional()
      .describe(
        'Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.',
      ),
  }),
);
export type GrepInput = z.infer<typeof grepInputSchema>;
export type GrepMode = NonNullable<GrepInput['output_mode']>;

export interface GrepOutput {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
  appliedOffset?: number;
  timedOut?: boolean;
}

export interface GrepRunOptions {
  impl?: GrepImpl;
}

/** The whole Grep call, with the impl chosen by the caller (tests force each one). */
export async function runGrep(
  input: GrepInput,
  ctx: { cwd: string; signal: AbortSignal; isPathReadable?: (absPath: string) => boolean },
  opts: GrepRunOptions = {},
): Promise<{ content: string; data: GrepOutput }> {
  const impl = opts.impl ?? defaultGrepImpl();
  const mode: GrepMode = input.output_mode ?? 'files_with_matches';
  const limit = input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT;
  const offset = input.offset ?? 0;

  const target = input.path ? (isAbsolute(input.path) ? resolve(input.path) : resolve(ctx.cwd, input.path)) : ctx.cwd;
  let st;
  try {
    st = await fsp.stat(target);
  } catch {
    throw new ToolError(`Path does not exist: ${target}`);
  }
  const context = input.context ?? input['-C'] ?? 0;
  const spec: SearchSpec = {
    root: st.isDirectory() ? target : dirname(target),
    file: st.isDirectory() ? undefined : target,
    pattern: input.pattern,
    ignoreCase: input['-i'] ?? false,
    multiline: input.multiline ?? false,
    globs: input.glob ? input.glob.split(/\s+/).filter(Boolean) : [],
    type: input.type,
    before: mode === 'content' ? (input['-B'] ?? context) : 0,
    after: mode === 'content' ? (input['-A'] ?? context) : 0,
    signal: ctx.signal,
    readable: ctx.isPathReadable,
  };
  // Validate the type up front: both impls then fail the same way.
  if (spec.type !== undefined && !TYPE_GLOBS[spec.type]) throw new ToolError(`unrecognized file type: ${spec.type}`);
  // rg searches a named binary file anyway ("binary file matches"); both impls skip it instead.
  if (spec.file && readSearchableSync(spec.file) === undefined) {
    return emptyResult(mode, limit, offset);
  }
  if (impl === 'js') compilePattern(spec.pattern, spec.ignoreCase, spec.multiline);

  if (mode === 'files_with_matches') {
    const found = await searchFiles(spec, impl);
    const withTimes = await Promise.all(
      found.map(async (p) => ({ path: p, mtimeMs: (await fsp.stat(p).catch(() => undefined))?.mtimeMs ?? 0 })),
    );
    withTimes.sort(byMtimeDesc);
    const { page, limited } = paginate(
      withTimes.map((f) => f.path),
      offset,
      limit,
    );
    const data: GrepOutput = { mode, numFiles: page.length, filenames: page, ...pageInfo(limited, limit, offset) };
    if (page.length === 0) return { content: 'No files found', data };
    const head = `Found ${page.length} ${page.length === 1 ? 'file' : 'files'}`;
    return { content: `${head}\n${page.join('\n')}${paginationNote(limited, limit, offset)}`, data };
  }

  if (mode === 'count') {
    const { files, timedOut } = await searchContent(spec, impl, 0, false);
    const entries = files.map((f) => ({
      rel: relative(ctx.cwd, f.path) || basename(f.path),
      path: f.path,
      count: f.count,
    }));
    const { page, limited } = paginate(entries, offset, limit);
    const total = page.reduce((n, e) => n + e.count, 0);
    const data: GrepOutput = {
      mode,
      numFiles: page.length,
      filenames: page.map((e) => e.path),
      numMatches: total,
      ...pageInfo(limited, limit, offset),
      ...(timedOut ? { timedOut } : {}),
    };
    if (page.length === 0) return { content: 'No matches found', data };
    const lines = page.map((e) => `${e.rel}:${e.count}`).join('\n');
    const summary = `\n\nFound ${total} total ${total === 1 ? 'occurrence' : 'occurrences'} across ${page.length} ${page.length === 1 ? 'file' : 'files'}.`;
    return { content: lines + summary + paginationNote(limited, limit, offset), data };
  }

  // Fetch one line past the page so we know whether it was cut.
  const want = limit === 0 ? 0 : offset + limit + 1;
  const { files, timedOut } = await searchContent(spec, impl, want);
  const all = formatContentLines(files, ctx.cwd, input['-n'] ?? true, spec.before > 0 || spec.after > 0);
  const { page, limited } = paginate(all, offset, limit);
  const content = page.join('\n');
  const data: GrepOutput = {
    mode,
    numFiles: files.length,
    filenames: files.map((f) => f.path),
    content,
    numLines: page.length,
    ...pageInfo(limited, limit, offset),
    ...(timedOut ? { timedOut } : {}),
  };
  if (page.length === 0) return { content: 'No matches found', data };
  return { content: content + paginationNote(limited, limit, offset), data };
}

function pageInfo(limited: boolean, limit: number, offset: number): Partial<GrepOutput> {
  return { ...(limited ? { appliedLimit: limit } : {}), ...(offset > 0 ? { appliedOffset: offset } : {}) };
}

function emptyResult(mode: GrepMode, limit: number, offset: number): { content: string; data: GrepOutput } {
  const data: GrepOutput = { mode, numFiles: 0, filenames: [], ...pageInfo(false, limit, offset) };
  return { content: mode === 'files_with_matches' ? 'No files found' : 'No matches found', data };
}

export const GrepTool = defineTool({
  name: 'Grep',
  description: GREP_DESCRIPTION,
  inputSchema: grepInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  kind: 'search',
  describedBy: ['pattern'],
  access: (input) => ({ paths: [input.path ?? '.'] }),
  label: (input) => `Search for ${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
  async *call(input, ctx) {
    return await runGrep(input, ctx);
  },
});
