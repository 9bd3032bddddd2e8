// What a tool call touches, read from its input: file paths for file tools, a command for Bash.
import { EDIT_FAMILY, READ_FAMILY } from './rules.js';

function str(input: unknown, key: string): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const v = (input as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

export function isFileTool(toolName: string): boolean {
  return READ_FAMILY.has(toolName) || EDIT_FAMILY.has(toolName);
}

/** The paths a file tool acts on; search tools without `path` act on cwd. */
export function filePathsOf(toolName: string, input: unknown): string[] {
  if (toolName === 'NotebookEdit' || toolName === 'NotebookRead') return [str(input, 'notebook_path') ?? '.'];
  if (toolName === 'Glob' || toolName === 'Grep' || toolName === 'LS') return [str(input, 'path') ?? '.'];
  return [str(input, 'file_path') ?? str(input, 'path') ?? '.'];
}

export function bashCommandOf(input: unknown): string {
  return str(input, 'command') ?? '';
}

export function stringField(input: unknown, key: string): string | undefined {
  return str(input, key);
}

/** A short human description of the call, for denial messages the model reads. */
export function describeCall(toolName: string, input: unknown): string {
  if (toolName === 'Bash') return `Bash (command: ${JSON.stringify(truncate(bashCommandOf(input)))})`;
  if (isFileTool(toolName)) return `${toolName} on ${filePathsOf(toolName, input).join(', ')}`;
  return toolName;
}

function truncate(s: string, max = 200): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
