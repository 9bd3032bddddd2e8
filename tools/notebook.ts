// Jupyter notebooks (.ipynb, nbformat 4): parsing, cell addressing and the cell-by-cell view Read
// shows. Shared by Read and NotebookEdit so both name cells the same way.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { ToolError, type ToolContentBlock } from './tool.js';

/** A multiline string in nbformat is a string or a list of lines. */
const multiline = lazySchema(() => z.union([z.string(), z.array(z.string())]));

const outputSchema = lazySchema(() =>
  z.looseObject({
    output_type: z.string(),
    text: multiline.optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    ename: z.string().optional(),
    evalue: z.string().optional(),
    traceback: z.array(z.string()).optional(),
  }),
);

const cellSchema = lazySchema(() =>
  z.looseObject({
    cell_type: z.string(),
    id: z.string().optional(),
    source: multiline,
    metadata: z.record(z.string(), z.unknown()).optional(),
    outputs: z.array(outputSchema).optional(),
    execution_count: z.number().nullable().optional(),
  }),
);

export const notebookSchema = lazySchema(() =>
  z.looseObject({
    cells: z.array(cellSchema),
    metadata: z.looseObject({}).optional(),
    nbformat: z.number().optional(),
    nbformat_minor: z.number().optional(),
  }),
);
export type Notebook = z.infer<typeof notebookSchema>;
export type NotebookCell = z.infer<typeof cellSchema>;
type NotebookOutput = z.infer<typeof outputSchema>;

/** Text of one output, per cell, before it is cut (a cell printing a log must not flood the model). */
const MAX_OUTPUT_CHARS = 10_000;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export function joinSource(s: string | string[] | undefined): string {
  if (s === undefined) return '';
  return Array.isArray(s) ? s.join('') : s;
}

export function parseNotebook(text: string, filePath: string): Notebook {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ToolError(`${filePath} is not a valid notebook: it is not JSON (${(err as Error).message}).`);
  }
  const parsed = notebookSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ToolError(
      `${filePath} is not a valid notebook: ${issue?.path.join('.') || 'top level'}: ${issue?.message}`,
    );
  }
  return parsed.data;
}

export function notebookLanguage(nb: Notebook): string {
  const meta = nb.metadata as { language_info?: { name?: unknown }; kernelspec?: { language?: unknown } } | undefined;
  const name = meta?.language_info?.name ?? meta?.kernelspec?.language;
  return typeof name === 'string' && name ? name : 'python';
}

/** The id the model uses for a cell: its own id (nbformat ≥ 4.5), else `cell-N` by position. */
export function cellIdOf(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

/** The position of a cell named by the model: its id, or `cell-N` for notebooks without ids. */
export function findCellIndex(nb: Notebook, cellId: string): number {
  const byId = nb.cells.findIndex((c) => c.id === cellId);
  if (byId !== -1) return byId;
  const m = /^cell-(\d+)$/.exec(cellId);
  if (m) {
    const i = Number(m[1]);
    if (i < nb.cells.length && nb.cells[i].id === undefined) return i;
  }
  return -1;
}

function cut(text: string): string {
  return text.length <= MAX_OUTPUT_CHARS
    ? text
    : `${text.slice(0, MAX_OUTPUT_CHARS)}\n... [${text.length - MAX_OUTPUT_CHARS} characters of output truncated]`;
}

/** Terminal colour codes in tracebacks are noise to the model. */
function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

function outputBlocks(out: NotebookOutput): ToolContentBlock[] {
  if (out.output_type === 'stream') return [{ type: 'text', text: cut(joinSource(out.text)) }];
  if (out.output_type === 'error') {
    const tb = out.traceback?.length ? out.traceback.map(stripAnsi).join('\n') : `${out.ename}: ${out.evalue}`;
    return [{ type: 'text', text: cut(tb) }];
  }
  const data = out.data ?? {};
  const blocks: ToolContentBlock[] = [];
  const txt = data['text/plain'];
  if (txt !== undefined) blocks.push({ type: 'text', text: cut(joinSource(txt as string | string[])) });
  for (const mt of IMAGE_TYPES) {
    const img = data[mt];
    if (img === undefined) continue;
    const b64 = joinSource(img as string | string[]).replace(/\s+/g, '');
    blocks.push({ type: 'image', source: { type: 'base64', media_type: mt, data: b64 } });
    break;
  }
  return blocks;
}

/**
 * The notebook as the model reads it: one `<cell>` per cell with its source, then its outputs
 * (text, or an image block for a plot). Consecutive text is merged into one block.
 */
export function renderNotebook(nb: Notebook): ToolContentBlock[] {
  const blocks: ToolContentBlock[] = [];
  const pushText = (t: string) => {
    const last = blocks[blocks.length - 1];
    if (last?.type === 'text') last.text += `\n${t}`;
    else blocks.push({ type: 'text', text: t });
  };
  nb.cells.forEach((cell, i) => {
    const id = cellIdOf(cell, i);
    const count =
      cell.cell_type === 'code' && cell.execution_count != null ? ` execution_count="${cell.execution_count}"` : '';
    pushText(`<cell id="${id}" type="${cell.cell_type}"${count}>\n${joinSource(cell.source)}\n</cell>`);
    const outs = (cell.outputs ?? []).flatMap(outputBlocks);
    if (outs.length === 0) return;
    pushText(`<outputs cell="${id}">`);
    for (const b of outs) {
      if (b.type === 'text') pushText(b.text);
      else blocks.push(b);
    }
    pushText('</outputs>');
  });
  if (blocks.length === 0)
    blocks.push({ type: 'text', text: '<system-reminder>The notebook has no cells.</system-reminder>' });
  return blocks;
}

/** nbformat's own indentation (one space), so a round trip through an edit keeps diffs small. */
export function serializeNotebook(nb: Notebook): string {
  return `${JSON.stringify(nb, null, 1)}\n`;
}
