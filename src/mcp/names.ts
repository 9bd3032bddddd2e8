// The names MCP servers' tools and prompts go by here: `mcp__<server>__<name>`.

/** Names the API accepts: letters, digits, `_` and `-`. */
export function normalizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalizeName(server)}__${normalizeName(tool)}`;
}
