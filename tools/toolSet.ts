// The session's offered tools, from their sources: the built-in set (after --tools and
// --disallowedTools), tools added later (the Skill tool), the connected MCP servers' tools, and a
// filter (--agent narrows the list). Readers take `list()`: a fresh array after every change and the
// same array otherwise, so a reader may cache what it derives from it by identity, and no reader
// ever sees a list spliced under it.
import type { Tool } from './tool.js';

export class ToolSet {
  private added: Tool[] = [];
  private mcp: Tool[] = [];
  private keep: ((tool: Tool) => boolean) | undefined;
  private current: Tool[] | null = null;

  constructor(private readonly builtin: readonly Tool[]) {}

  /** The offered tools now: built-in and added first, then MCP; the filter applied. */
  list(): Tool[] {
    if (this.current) return this.current;
    const all = [...this.builtin, ...this.added, ...this.mcp];
    this.current = this.keep ? all.filter(this.keep) : all;
    return this.current;
  }

  has(name: string): boolean {
    return this.list().some((t) => t.name === name);
  }

  /** The names of the tools that are not MCP tools (an MCP tool may not shadow one of them). */
  localNames(): Set<string> {
    return new Set([...this.builtin, ...this.added].map((t) => t.name));
  }

  /** Offer one more tool (not offered when the filter refuses it). */
  add(tool: Tool): void {
    this.added = [...this.added, tool];
    this.current = null;
  }

  /** A tool's definition changed (the Skill tool's list of skills): readers derive theirs again. */
  refresh(): void {
    this.current = null;
  }

  /** The MCP servers' tools now; true when the offered names changed. */
  setMcp(tools: Tool[]): boolean {
    const before = this.mcp.map((t) => t.name).join(',');
    this.mcp = tools;
    this.current = null;
    return tools.map((t) => t.name).join(',') !== before;
  }

  /** Offer only the tools `keep` accepts, from now on (also those added later). */
  narrow(keep: (tool: Tool) => boolean): void {
    this.keep = keep;
    this.current = null;
  }
}
