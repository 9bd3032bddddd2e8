// Edit: exact string replacement in a file the model has read, atomically, refusing ambiguity.
import { promises as fsp } from 'node:fs';
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError } from './tool.js';
import {
  assertReadAndUnchanged,
  makePatch,
  recordWritten,
  requireAbsolute,
  statOrUndefined,
  writeFileAtomic,
  type PatchHunk,
} from './write.js';

export const EDIT_DESCRIPTION = `Performs exact string replacements in files.

Usage:
- You must use the Read tool at least once in the conversation before editing a file. This tool will fail if you did not read the file, or if it changed on disk since you read it.
- When editing text from Read output, preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix (spaces + line number + tab). Never include any part of the line number prefix in old_string or new_string.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique, or set replace_all to true to change every instance.
- Use replace_all for replacing and renaming strings across the file.
- old_string and new_string must differ.
- To create a new file, use an empty old_string with a file_path that does not exist yet.`;

/** Lines of context shown around the edit in the confirmation. */
const SNIPPET_CONTEXT_LINES = 4;
/** The snippet never shows more lines than this (a huge new_string is not echoed back whole). */
const SNIPPET_MAX_LINES = 40;

export const editInputSchema = lazySchema(() =>
  z.object({
    file_path: z.string().describe('The absolute path to the file to modify'),
    old_string: z.string().describe('The text to replace'),
    new_string: z.string().describe('The text to replace it with (must be different from old_string)'),
    replace_all: z.boolean().default(false).describe('Replace all occurrences of old_string (default false)'),
  }),
);
export type EditInput = z.infer<typeof editInputSchema>;

export interface EditOutput {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string | null;
  structuredPatch: PatchHunk[];
  userModified: boolean;
  replaceAll: boolean;
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** A few numbered lines around [start, end) of `text`, formatted like Read's output. */
export function snippetAround(text: string, start: number, end: number): string {
  const lines = text.split('\n');
  const firstLine = text.slice(0, start).split('\n').length - 1;
  const lastLine = text.slice(0, Math.max(start, end)).split('\n').length - 1;
  const from = Math.max(0, firstLine - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length - 1, lastLine + SNIPPET_CONTEXT_LINES, from + SNIPPET_MAX_LINES - 1);
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(`${String(i + 1).padStart(6)}\t${lines[i]}`);
  return out.join('\n');
}

export const EditTool = defineTool({
  name: 'Edit',
  description: EDIT_DESCRIPTION,
  inputSchema: editInputSchema,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  kind: 'edit',
  describedBy: ['file_path'],
  access: (input) => ({ paths: [input.file_path] }),
  label: (input) => `Edit ${input.file_path}`,
  async *call(input, ctx) {
    const filePath = requireAbsolute(input.file_path);
    const { old_string: oldString, new_string: newString, replace_all: replaceAll } = input;
    if (oldString === newString) {
      throw new ToolError('No changes to make: old_string and new_string are exactly the same.');
    }
    const st = await statOrUndefined(filePath);
    if (st?.isDirectory()) throw new ToolError(`${filePath} is a directory, not a file.`);

    let original: string | null = null;
    let updated: string;
    let editStart = 0;
    if (!st) {
      if (oldString !== '') throw new ToolError(`File does not exist: ${filePath}`);
      updated = newString;
    } else {
      assertReadAndUnchanged(ctx, filePath, st);
      original = await fsp.readFile(filePath, 'utf8');
      if (oldString === '') {
        // An empty old_string means "create": only an empty file may be filled this way.
        if (original.trim() !== '') throw new ToolError('Cannot create new file - file already exists.');
        updated = newString;
      } else {
        const n = countOccurrences(original, oldString);
        if (n === 0) throw new ToolError(`String to replace not found in file.\nString: ${oldString}`);
        if (n > 1 && !replaceAll) {
          throw new ToolError(
            `Found ${n} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${oldString}`,
          );
        }
        editStart = original.indexOf(oldString);
        // split/join and slicing, never String.replace: new_string may hold `$&` and friends.
        updated = replaceAll
          ? original.split(oldString).join(newString)
          : original.slice(0, editStart) + newString + original.slice(editStart + oldString.length);
      }
    }

    // File checkpoints (when on) copy the file before its first change of this turn.
    await ctx.services?.fileHistory?.beforeWrite(filePath);
    await writeFileAtomic(filePath, updated);
    await recordWritten(ctx, filePath);
    const data: EditOutput = {
      filePath,
      oldString,
      newString,
      originalFile: original,
      structuredPatch: makePatch(filePath, original ?? '', updated),
      userModified: false,
      replaceAll,
    };
    if (!st) return { content: `File created successfully at: ${filePath}`, data };
    const snippet = snippetAround(updated, editStart, editStart + newString.length);
    const what = replaceAll ? `All occurrences of the string were replaced.` : '';
    return {
      content: `The file ${filePath} has been updated.${what ? ` ${what}` : ''} Here's the result of running \`cat -n\` on a snippet of the edited file:\n${snippet}`,
      data,
    };
  },
});
