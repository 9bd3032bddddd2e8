// Read: a window of a text file as numbered lines (or an image as an image block). Streams the
// file so a huge one costs only the lines shown, never the whole file in memory.
import { createReadStream, promises as fsp, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext, type ToolResult } from './tool.js';
import { requireAbsolute } from './write.js';
import { parseNotebook, renderNotebook } from './notebook.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
export const READ_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** A notebook is parsed whole (it is one JSON document); past this, Bash with jq reads parts. */
export const READ_MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024;
/** Binary sniffing looks at this much of the file's head. */
const SNIFF_BYTES = 8192;
/**
 * A file up to this size is read in one synchronous call once its stat has answered (so the file
 * system is responsive): tens of microseconds, where the streamed path's seven thread-pool round
 * trips (open, read, close for the binary sniff; open, reads, close for the lines) cost about a
 * millisecond of a model turn. Larger files stream, so a huge file never sits in memory whole.
 */
const READ_AT_ONCE_BYTES = 256 * 1024;
/** Shown lines are joined into at most this many characters; past it the output says where it stopped. */
export const READ_MAX_OUTPUT_CHARS = 100_000;

export const READ_DESCRIPTION = `Reads a file from the local filesystem. You can access any file directly by using this tool.

Usage:
- The file_path parameter must be an absolute path, not a relative path.
- By default, it reads up to ${READ_DEFAULT_LIMIT} lines starting from the beginning of the file.
- You can optionally specify a line offset (the 1-based number of the first line shown) and a limit (how many lines), which is handy for long files; otherwise read the whole file.
- Lines longer than ${READ_MAX_LINE_CHARS} characters are cut.
- Results are returned like \`cat -n\`: the line number, a tab, then the line as it is in the file.
- This tool can read images (PNG, JPG, GIF, WEBP): their contents are presented to you visually.
- Jupyter notebooks (.ipynb) are shown cell by cell, each with its id, type and outputs (plots as images); edit them with NotebookEdit.
- It reads files, not directories: to list a directory use Bash with ls, or Glob.
- Reading a file that exists but is empty returns a warning in place of contents.
- Read several files at once by making several Read calls in one message.`;

export const EMPTY_FILE_NOTE =
  '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>';

export const readInputSchema = lazySchema(() =>
  z.object({
    file_path: z.string().describe('The absolute path to the file to read'),
    offset: z
      .number()
      .int()
      .optional()
      .describe('The line number to start reading from. Only provide if the file is too large to read at once'),
    limit: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The number of lines to read. Only provide if the file is too large to read at once.'),
  }),
);
export type ReadInput = z.infer<typeof readInputSchema>;

const IMAGE_TYPES: Record<string, 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

export interface LineWindow {
  /** The lines from `startLine` on (at most `limit`), each already cut to the max line length. */
  lines: string[];
  /** Total lines in the file (a final line without '\n' counts; an empty file has 0). */
  totalLines: number;
  /** How many of the shown lines were cut. */
  cutLines: number;
}

/**
 * Stream the file once: keep the lines in [startLine, startLine+limit) (each capped), count the
 * rest. A single giant line never sits in memory whole: bytes past the cap are only counted.
 */
export async function readLineWindow(
  path: string,
  startLine: number,
  limit: number,
  signal?: AbortSignal,
  /** The file's bytes, when already read whole: then nothing is read from `path`. */
  whole?: Buffer,
): Promise<LineWindow> {
  const lines: string[] = [];
  let lineNo = 1;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let cut = false;
  let cutLines = 0;
  let pendingBytes = false; // bytes seen since the last '\n'
  // A UTF-8 char is at most 4 bytes: this many bytes always hold the max line's characters.
  const maxBytes = READ_MAX_LINE_CHARS * 4;
  const inWindow = () => lineNo >= startLine && lineNo < startLine + limit;

  const endLine = () => {
    if (inWindow()) {
      let text = Buffer.concat(parts).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (cut || text.length > READ_MAX_LINE_CHARS) {
        text = `${text.slice(0, READ_MAX_LINE_CHARS)}… [line truncated]`;
        cutLines++;
      }
      lines.push(text);
    }
    parts = [];
    partBytes = 0;
    cut = false;
    pendingBytes = false;
    lineNo++;
  };

  const chunks = whole
    ? [whole]
    : (createReadStream(path, { highWaterMark: 64 * 1024, signal }) as AsyncIterable<Buffer>);
  for await (const chunk of chunks) {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (end > pos) {
        pendingBytes = true;
        if (inWindow() && !cut) {
          const room = maxBytes - partBytes;
          const piece = chunk.subarray(pos, Math.min(end, pos + room));
          parts.push(Buffer.from(piece));
          partBytes += piece.length;
          if (end - pos > room) cut = true;
        }
      }
      if (nl === -1) break;
      endLine();
      pos = nl + 1;
    }
  }
  if (pendingBytes) endLine();
  return { lines, totalLines: lineNo - 1, cutLines };
}

function hasNulByte(buf: Buffer): boolean {
  return buf.includes(0);
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const fh = await fsp.open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export function formatNumbered(lines: string[], firstLine: number): string {
  return lines.map((l, i) => `${String(firstLine + i).padStart(6)}\t${l}`).join('\n');
}

async function readImage(filePath: string, size: number, mediaType: (typeof IMAGE_TYPES)[string]): Promise<ToolResult> {
  if (size > READ_MAX_IMAGE_BYTES) {
    throw new ToolError(`Image file is too large to read (${size} bytes; the limit is ${READ_MAX_IMAGE_BYTES} bytes).`);
  }
  const base64 = (await fsp.readFile(filePath)).toString('base64');
  return {
    content: [{ type: 'image', source: { type: 'base64', media_type: mediaType, data: base64 } }],
    data: { type: 'image', file: { base64, type: mediaType, originalSize: size } },
  };
}

function record(ctx: ToolContext, filePath: string, mtimeMs: number, size: number): void {
  ctx.readFiles.set(filePath, { mtimeMs, size });
}

export const ReadTool = defineTool({
  name: 'Read',
  description: READ_DESCRIPTION,
  inputSchema: readInputSchema,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  kind: 'read',
  describedBy: ['file_path'],
  access: (input) => ({ paths: [input.file_path] }),
  label: (input) => `Read ${input.file_path}`,
  // Read pages whole lines up to its own, larger cap (a file is what the model asked to see).
  outputCap: READ_MAX_OUTPUT_CHARS + 1_000,
  async *call(input, ctx) {
    const filePath = requireAbsolute(input.file_path);
    let st;
    try {
      st = await fsp.stat(filePath);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolError(`File does not exist: ${filePath}`);
      if (code === 'EACCES') throw new ToolError(`Permission denied: ${filePath}`);
      throw err;
    }
    if (st.isDirectory()) {
      throw new ToolError(
        `${filePath} is a directory, not a file. To list its contents use Bash with ls, or the Glob tool.`,
      );
    }
    if (!st.isFile()) throw new ToolError(`${filePath} is not a regular file.`);

    const mediaType = IMAGE_TYPES[extname(filePath).toLowerCase()];
    if (mediaType) {
      const result = await readImage(filePath, st.size, mediaType);
      record(ctx, filePath, st.mtimeMs, st.size);
      return result;
    }

    if (extname(filePath).toLowerCase() === '.ipynb') {
      if (st.size > READ_MAX_NOTEBOOK_BYTES) {
        throw new ToolError(
          `Notebook is too large to read whole (${st.size} bytes; the limit is ${READ_MAX_NOTEBOOK_BYTES}). Use Bash with jq to read parts of it, e.g. jq '.cells[0:10]' ${filePath}`,
        );
      }
      const nb = parseNotebook(await fsp.readFile(filePath, 'utf8'), filePath);
      record(ctx, filePath, st.mtimeMs, st.size);
      return { content: renderNotebook(nb), data: { type: 'notebook', file: { filePath, cells: nb.cells } } };
    }

    if (st.size === 0) {
      record(ctx, filePath, st.mtimeMs, st.size);
      return {
        content: EMPTY_FILE_NOTE,
        data: { type: 'text', file: { filePath, content: '', numLines: 0, startLine: 1, totalLines: 0 } },
      };
    }
    const whole = st.size <= READ_AT_ONCE_BYTES ? readFileSync(filePath) : undefined;
    if (hasNulByte(whole ? whole.subarray(0, SNIFF_BYTES) : await readHead(filePath, SNIFF_BYTES))) {
      throw new ToolError(
        `This tool cannot read binary files. The file appears to be binary: ${filePath}. Use Bash with a suitable tool (e.g. xxd, file) to inspect it.`,
      );
    }

    const startLine = Math.max(1, input.offset ?? 1);
    const limit = input.limit ?? READ_DEFAULT_LIMIT;
    const win = await readLineWindow(filePath, startLine, limit, ctx.signal, whole);
    record(ctx, filePath, st.mtimeMs, st.size);

    if (win.lines.length === 0) {
      return {
        content: `<system-reminder>Warning: the file exists but is shorter than the provided offset (${startLine}). The file has ${win.totalLines} lines.</system-reminder>`,
        data: { type: 'text', file: { filePath, content: '', numLines: 0, startLine, totalLines: win.totalLines } },
      };
    }

    let shown = win.lines;
    let text = formatNumbered(shown, startLine);
    if (text.length > READ_MAX_OUTPUT_CHARS) {
      // Keep whole lines only, so the model can continue from a known line number.
      let chars = 0;
      let keep = 0;
      for (const l of shown) {
        chars += l.length + 8;
        if (chars > READ_MAX_OUTPUT_CHARS) break;
        keep++;
      }
      shown = shown.slice(0, Math.max(1, keep));
      text = formatNumbered(shown, startLine);
    }
    const lastShown = startLine + shown.length - 1;
    if (lastShown < win.totalLines) {
      text += `\n\n(Showing lines ${startLine}-${lastShown} of ${win.totalLines}. Use offset and limit to read more.)`;
    }
    return {
      content: text,
      data: {
        type: 'text',
        file: { filePath, content: shown.join('\n'), numLines: shown.length, startLine, totalLines: win.totalLines },
      },
    };
  },
});
