// What a host shows on a permission prompt (can_use_tool's display_name and description): the
// tool's name, and a short account of the call, taken as the reference takes it (measured: a Bash
// call's own `description`, a file tool's path as given). Which input fields give that account is
// the tool's declaration (`describedBy`), not a table of names here.
import type { Tool } from '../../tools/tool.js';

function field(input: unknown, key: string): string | undefined {
  const v = input && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** A tool that declares nothing (an MCP tool's) is described by a `description` its call may carry. */
const DEFAULT_FIELDS: readonly string[] = ['description'];

const MAX_CHARS = 200;

/** `input` is the call as sent (its raw input): what the host is shown beside this label. */
export function callLabel(
  tool: Pick<Tool, 'describedBy'> | undefined,
  toolName: string,
  input: unknown,
): { display_name: string; description?: string } {
  const keys = tool?.describedBy ?? DEFAULT_FIELDS;
  const found = keys.map((k) => field(input, k)).find((v) => v !== undefined);
  const description = found && found.length > MAX_CHARS ? `${found.slice(0, MAX_CHARS)}…` : found;
  return { display_name: toolName, ...(description ? { description } : {}) };
}
