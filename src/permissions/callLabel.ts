// What a host shows on a permission prompt (can_use_tool's display_name and description): the
// tool's name, and a short account of the call, taken as the reference takes it (measured: a Bash
// call's own `description`, a file tool's path as given).
function field(input: unknown, key: string): string | undefined {
  const v = input && typeof input === 'object' ? (input as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The first of these input fields a call has names it best. */
const DESCRIBED_BY: Record<string, string[]> = {
  Bash: ['description', 'command'],
  Read: ['file_path'],
  Write: ['file_path'],
  Edit: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path'],
  Glob: ['pattern'],
  Grep: ['pattern'],
  WebFetch: ['url'],
  WebSearch: ['query'],
  Task: ['description'],
  Agent: ['description'],
};

const MAX_CHARS = 200;

export function callLabel(toolName: string, input: unknown): { display_name: string; description?: string } {
  const keys = DESCRIBED_BY[toolName] ?? ['description'];
  const found = keys.map((k) => field(input, k)).find((v) => v !== undefined);
  const description = found && found.length > MAX_CHARS ? `${found.slice(0, MAX_CHARS)}…` : found;
  return { display_name: toolName, ...(description ? { description } : {}) };
}
