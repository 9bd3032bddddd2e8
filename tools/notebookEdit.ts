// NotebookEdit: replace, insert or delete one cell of a Jupyter notebook the model has read, with
// the same read-before-edit and atomic-write rules as Edit.
import { randomHex } from '../src/util/ids.js';
import { promises as fsp } from 'node:fs';
import { extname } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';
import {
  cellIdOf,
  findCellIndex,
  joinSource,
  notebookLanguage,
  parseNotebook,
  serializeNotebook,
  type NotebookCell,
} from './notebook.js';
import { assertReadAndUnchanged, recordWritten, requireAbsolute, statOrUndefined, writeFileAtomic } from './write.js';

export const NOTEBOOK_EDIT_DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb file).

Usage:
- notebook_path must be an absolute path. Read the notebook first: Read shows each cell with its id; this tool fails for a notebook you have not read, or one that changed on disk since.
- edit_mode "replace" (the default) sets the source of the cell cell_id to new_source (a code cell's outputs and execution count are cleared); cell_type changes its type.
- edit_mode "insert" adds a new cell after the cell cell_id, or at the beginning when cell_id is omitted; cell_type is required.
- edit_mode "delete" removes the cell cell_id (new_source is ignored; pass an empty string).
- Cells without an id in the file are named cell-0, cell-1, … by position, as Read shows them.`;

export const notebookEditInputSchema = lazySchema(() =>
  z.object({
    notebook_path: z
      .string()
      .describe('The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)'),
    cell_id: z
      .string()
      .optional()
      .describe(
        'The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.',
      ),
    new_source: z.string().describe('The new source for the cell'),
    cell_type: z
      .enum(['code', 'markdown'])
      .optional()
      .describe(
        'The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.',
      ),
    edit_mode: z
      .enum(['replace', 'insert', 'delete'])
      .default('replace')
      .describe('The type of edit to make (replace, insert, delete). Defaults to replace.'),
  }),
);
export type NotebookEditInput = z.infer<typeof notebookEditInputSchema>;

/** The SDK's NotebookEditOutput. */
export interface NotebookEditOutput {
  new_source: string;
  old_source?: string;
  cell_id?: string;
  cell_type: 'code' | 'markdown';
  language: string;
  edit_mode: string;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

/** nbformat 4.5 added cell ids: a notebook at or past it gets one for a new cell. */
function wantsIds(nbformat = 4, minor = 0): boolean {
  return nbformat > 4 || (nbformat === 4 && minor >= 5);
}

function newCell(type: 'code' | 'markdown', source: string, withId: boolean): NotebookCell {
  const id = withId ? { id: randomHex(4) } : {};
  if (type === 'markdown') return { cell_type: 'markdown', ...id, metadata: {}, source };
  return { cell_type: 'code', ...id, metadata: {}, source, outputs: [], execution_count: null };
}

export const NotebookEditTool = defineTool({
  name: 'NotebookEdit',
  deferred: true,
  description: NOTEBOOK_EDIT_DESCRIPTION,
  inputSchema: notebookEditInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  kind: 'edit',
  describedBy: ['notebook_path'],
  access: (input) => ({ paths: [input.notebook_path] }),
  label: (input) => `Edit notebook ${input.notebook_path}`,
  async *call(input, ctx) {
    let filePath: string;
    try {
      filePath = requireAbsolute(input.notebook_path);
    } catch {
      throw new ToolError(`notebook_path must be an absolute path, not a relative one: ${input.notebook_path}`);
    }
    if (extname(filePath).toLowerCase() !== '.ipynb') {
      throw new ToolError(`${filePath} is not a Jupyter notebook (.ipynb). Use Edit or Write for other files.`);
    }
    const st = await statOrUndefined(filePath);
    if (!st) throw new ToolError(`Notebook does not exist: ${filePath}`);
    if (!st.isFile()) throw new ToolError(`${filePath} is not a file.`);
    assertReadAndUnchanged(ctx, filePath, st);
    const original = await fsp.readFile(filePath, 'utf8');
    const nb = parseNotebook(original, filePath);
    const mode = input.edit_mode;

    const locate = (cellId: string): number => {
      const i = findCellIndex(nb, cellId);
      if (i === -1) {
        const known = nb.cells.slice(0, 20).map((c, j) => cellIdOf(c, j));
        throw new ToolError(
          `Cell with ID "${cellId}" not found in notebook. Its cells are: ${known.join(', ') || '(none)'}${nb.cells.length > 20 ? ', …' : ''}.`,
        );
      }
      return i;
    };

    let cellId: string | undefined;
    let cellType: 'code' | 'markdown';
    let oldSource: string | undefined;
    if (mode === 'insert') {
      if (!input.cell_type) throw new ToolError('cell_type is required when edit_mode is insert (code or markdown).');
      const at = input.cell_id === undefined ? 0 : locate(input.cell_id) + 1;
      const cell = newCell(input.cell_type, input.new_source, wantsIds(nb.nbformat, nb.nbformat_minor));
      nb.cells.splice(at, 0, cell);
      cellId = cell.id ?? `cell-${at}`;
      cellType = input.cell_type;
    } else {
      if (input.cell_id === undefined) throw new ToolError(`cell_id is required when edit_mode is ${mode}.`);
      const i = locate(input.cell_id);
      const cell = nb.cells[i];
      cellId = input.cell_id;
      oldSource = joinSource(cell.source);
      if (mode === 'delete') {
        nb.cells.splice(i, 1);
        cellType = cell.cell_type === 'markdown' ? 'markdown' : 'code';
      } else {
        cellType = input.cell_type ?? (cell.cell_type === 'markdown' ? 'markdown' : 'code');
        const next: NotebookCell = { ...cell, cell_type: cellType, source: input.new_source };
        if (cellType === 'code') {
          // The old outputs no longer describe the new source.
          next.outputs = [];
          next.execution_count = null;
        } else {
          delete next.outputs;
          delete next.execution_count;
        }
        nb.cells[i] = next;
      }
    }

    const updated = serializeNotebook(nb);
    // File checkpoints (when on) copy the notebook before its first change of this turn.
    await ctx.services?.fileHistory?.beforeWrite(filePath);
    await writeFileAtomic(filePath, updated);
    await recordWritten(ctx, filePath);
    const data: NotebookEditOutput = {
      new_source: input.new_source,
      ...(oldSource !== undefined ? { old_source: oldSource } : {}),
      cell_id: cellId,
      cell_type: cellType,
      language: notebookLanguage(nb),
      edit_mode: mode,
      notebook_path: filePath,
      original_file: original,
      updated_file: updated,
    };
    const content =
      mode === 'delete'
        ? `Deleted cell ${cellId}.`
        : mode === 'insert'
          ? `Inserted cell ${cellId} with ${input.new_source}`
          : `Updated cell ${cellId} with ${input.new_source}`;
    return { content, data };
  },
});
