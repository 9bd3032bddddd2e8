// Deferred tools: which tool definitions a loop sends to the model. When the MCP tools'
// definitions would take too much of the context window (ENABLE_TOOL_SEARCH), they are withheld;
// the model sees their names in a system reminder and loads the ones it needs with ToolSearch.
// Built-in tools marked `deferred` (rarely used: Cron*, Monitor) are withheld the same way whenever
// ToolSearch is offered and ENABLE_TOOL_SEARCH is not false, whatever their size.
//
// Prompt caching: the tools are the start of the cached prefix. The offered list is the stable
// part first (built-in tools, then MCP tools that are not deferred, then ToolSearch), and tools
// loaded by ToolSearch after it, in the order they were loaded. A load still changes the prefix,
// so the call after a ToolSearch that loaded something new writes the cache again (once per load).
import type { Tool } from '../../tools/tool.js';
import { toolApiSchema, type ToolApiSchema } from '../../tools/registry.js';
import type { DeferredToolCatalog } from '../../tools/toolSearch.js';

/** `ENABLE_TOOL_SEARCH`: `auto` (default, 10 %), `auto:N` (N % of the context window), `true`, `false`. */
export type ToolSearchSetting = { mode: 'auto'; percent: number } | { mode: 'always' } | { mode: 'never' };

export const DEFAULT_TOOL_SEARCH_PERCENT = 10;

/** Parses ENABLE_TOOL_SEARCH; a value it cannot read throws, naming the forms it takes. */
export function parseToolSearchSetting(value: string | undefined): ToolSearchSetting {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '' || v === 'auto') return { mode: 'auto', percent: DEFAULT_TOOL_SEARCH_PERCENT };
  if (v === 'true' || v === '1') return { mode: 'always' };
  if (v === 'false' || v === '0') return { mode: 'never' };
  const m = /^auto:(\d+(?:\.\d+)?)$/.exec(v);
  if (m && Number(m[1]) >= 0 && Number(m[1]) <= 100) return { mode: 'auto', percent: Number(m[1]) };
  throw new Error(
    `ENABLE_TOOL_SEARCH=${JSON.stringify(value)} is not valid: use auto, auto:N (0-100, % of the context window), true or false`,
  );
}

/** Rough token count of a definition (4 characters a token, as elsewhere in the runtime). */
function tokensOf(def: ToolApiSchema): number {
  return Math.ceil(JSON.stringify(def).length / 4);
}

/** MCP tools are deferred past the threshold; a server or tool marked alwaysLoad is never deferred. */
function deferrableMcp(tool: Tool): boolean {
  return tool.name.startsWith('mcp__') && tool.alwaysLoad !== true;
}

/** A built-in tool that asks to be deferred (the tool's `deferred` flag). */
function deferredBuiltIn(tool: Tool): boolean {
  return tool.deferred === true && !tool.name.startsWith('mcp__') && tool.alwaysLoad !== true;
}

export interface DeferredToolsOptions {
  setting: ToolSearchSetting;
  /** The context window of the model in use (tokens). */
  contextWindow: () => number;
}

/** One loop's offer: what is deferred, what has been loaded, and the reminder that lists them. */
export class DeferredTools implements DeferredToolCatalog {
  private tools: Tool[] = [];
  /** The offered tool that loads deferred ones (role `tool-search`): ToolSearch. */
  private search: Tool | undefined;
  private defs = new Map<string, ToolApiSchema>();
  private deferredNames: string[] = [];
  private readonly loaded: string[] = [];
  private cached: ToolApiSchema[] | null = null;
  private announced = '';

  constructor(private readonly opts: DeferredToolsOptions) {}

  /** A fresh offer over `tools` with the same setting (a subagent's: nothing loaded yet). */
  forTools(tools: Tool[]): DeferredTools {
    const child = new DeferredTools(this.opts);
    child.setTools(tools);
    return child;
  }

  /** The loop's tools changed (MCP servers connected, a narrowed agent): decide again what to defer. */
  setTools(tools: Tool[]): void {
    this.tools = tools;
    // Definitions are made when first needed (deriving a JSON schema from zod is the costly part of
    // a session's start): the init line needs only the names.
    this.defs = new Map();
    this.cached = null;
    this.search = tools.find((t) => t.role === 'tool-search');
    const s = this.opts.setting;
    const can = this.search !== undefined && s.mode !== 'never';
    const builtIns = can ? tools.filter(deferredBuiltIn) : [];
    const candidates = tools.filter(deferrableMcp);
    let defer = can && candidates.length > 0;
    if (defer && s.mode === 'auto') {
      const tokens = candidates.reduce((sum, t) => sum + tokensOf(this.def(t.name)), 0);
      defer = tokens > (this.opts.contextWindow() * s.percent) / 100;
    }
    this.deferredNames = [...builtIns, ...(defer ? candidates : [])].map((t) => t.name);
  }

  /** The API definition of one of this offer's tools, made once. */
  private def(name: string): ToolApiSchema {
    let d = this.defs.get(name);
    if (!d) {
      d = toolApiSchema(this.tools.find((t) => t.name === name)!);
      this.defs.set(name, d);
    }
    return d;
  }

  /** Whether anything is deferred (ToolSearch is offered only then). */
  get active(): boolean {
    return this.deferredNames.length > 0;
  }

  /**
   * The tools this loop reports as its own (init.tools): all of them, ToolSearch only when it is
   * useful, each by the name hosts know it by (its legacy name when it has one: `Task`).
   */
  toolNames(): string[] {
    return this.tools.filter((t) => this.active || t !== this.search).map((t) => t.legacyName ?? t.name);
  }

  /** The `tools[]` of the next request (see the ordering note at the top). */
  apiTools(): ToolApiSchema[] {
    if (this.cached) return this.cached;
    const deferred = new Set(this.deferredNames);
    const stable = this.tools.filter((t) => !deferred.has(t.name) && (this.active || t !== this.search));
    // ToolSearch last of the stable part: loads go after it.
    const search = stable.filter((t) => t === this.search);
    const rest = stable.filter((t) => t !== this.search);
    const loaded = this.loaded.filter((n) => deferred.has(n));
    this.cached = [...rest, ...search].map((t) => this.def(t.name)).concat(loaded.map((n) => this.def(n)));
    return this.cached;
  }

  deferred(): ToolApiSchema[] {
    return this.deferredNames.map((n) => this.def(n));
  }

  load(names: string[]): void {
    const deferred = new Set(this.deferredNames);
    for (const n of names)
      if (deferred.has(n) && !this.loaded.includes(n)) {
        this.loaded.push(n);
        this.cached = null;
      }
  }

  /**
   * Take in a history this offer has not seen (a resumed conversation, or the reply just added):
   * load the deferred tools it called (the API wants them defined), and remember the list its
   * latest reminder gave, so the same list is not announced again.
   */
  loadUsedIn(history: ReadonlyArray<{ role: string; content: unknown }>): void {
    const used: string[] = [];
    for (const m of history) {
      if (m.role === 'user') {
        const told = announcedIn(m.content);
        if (told !== undefined) this.announced = told;
        continue;
      }
      if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
      for (const b of m.content as Array<{ type?: string; name?: unknown }>)
        if (b.type === 'tool_use' && typeof b.name === 'string') used.push(b.name);
    }
    if (this.active) this.load(used);
  }

  /** The compacted history lost the reminder: list the deferred tools again with the next call. */
  forgetAnnouncement(): void {
    this.announced = '';
  }

  /**
   * The system reminder listing the deferred tools by name (and the names), when the list differs
   * from the one the model was last told (the first call, a server's tools changed); else undefined.
   */
  takeAnnouncement(): DeferredAnnouncement | undefined {
    const pending = this.deferredNames;
    const key = pending.join('\n');
    if (key === this.announced) return undefined;
    const first = this.announced === '';
    this.announced = key;
    if (pending.length === 0) return first ? undefined : { names: [], text: NONE_DEFERRED };
    // Something is deferred only when the search tool is offered (setTools).
    return { names: [...pending], text: reminder(pending, this.search!.name) };
  }
}

/** What the model is told about the deferred tools: the names, and the reminder that lists them. */
export interface DeferredAnnouncement {
  names: string[];
  text: string;
}

/** The reminder listing `pending`, telling the model to load them with `searchName` (the offered ToolSearch). */
function reminder(pending: string[], searchName: string): string {
  return `${REMINDER_HEAD}These ${pending.length} tools are deferred: their definitions are not loaded, so you cannot call them until they are. To use one, first call ${searchName} (with "select:<name>" or with keywords); it loads the tools it returns.
${pending.join('\n')}
</system-reminder>`;
}

const REMINDER_HEAD = '<system-reminder>\n';
const NONE_DEFERRED = `${REMINDER_HEAD}No tools are deferred any more.\n</system-reminder>`;

/**
 * The list of deferred tools (joined by newlines, as `announced` keeps it) that a user message's
 * latest deferred-tools reminder gave; '' after "no tools are deferred"; undefined if it has none.
 */
function announcedIn(content: unknown): string | undefined {
  let told: string | undefined;
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
  for (const b of texts) {
    const t = typeof b === 'string' ? b : (b as { type?: string; text?: unknown })?.text;
    if (typeof t !== 'string' || !t.includes(REMINDER_HEAD)) continue;
    for (const part of t.split(REMINDER_HEAD).slice(1)) {
      if (`${REMINDER_HEAD}${part}`.startsWith(NONE_DEFERRED)) told = '';
      const m = /^These \d+ tools are deferred: [^\n]*\n([\s\S]*?)\n<\/system-reminder>/.exec(part);
      if (m) told = m[1];
    }
  }
  return told;
}
