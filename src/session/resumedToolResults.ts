// A resumed conversation's tool results as the tools gave them (`toolUseResult` of a transcript's
// user lines: an Edit's structuredPatch, a Write's content), by tool_use id. The model's history
// keeps only the text; the terminal UI redraws a resumed edit (a tool of kind 'edit': Edit, Write) as the diff it showed.
export function resumedToolResults(entries: Iterable<{ entry: Record<string, unknown> }>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const { entry } of entries) {
    if (entry.type !== 'user' || entry.toolUseResult === undefined) continue;
    const content = (entry.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) continue;
    const results = content.filter(
      (b): b is { tool_use_id: string } =>
        !!b && typeof b === 'object' && b.type === 'tool_result' && typeof b.tool_use_id === 'string',
    );
    // The line's data belongs to its one tool result; a line of several cannot say whose it is.
    if (results.length === 1) out.set(results[0].tool_use_id, entry.toolUseResult);
  }
  return out;
}
