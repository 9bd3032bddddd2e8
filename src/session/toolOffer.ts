// What the main loop offers the model: the session's tools (a new array when they change: MCP
// servers, --agent) with StructuredOutput last, through tool search (DeferredTools), which may
// withhold some until ToolSearch loads them. Rebuilt only when the list or StructuredOutput changed.
import type { Tool } from '../../tools/tool.js';
import { DEFAULT_TOOL_SEARCH_PERCENT, DeferredTools, type ToolSearchSetting } from '../loop/deferredTools.js';
import type { ApiTool } from '../loop/model.js';

export class ToolOffer {
  /** The offer itself: the loop's `deferredTools`. */
  readonly deferred: DeferredTools;
  /** What the offer was built from, and the list it made. */
  private builtFrom: { tools: Tool[]; structured: Tool | undefined; all: Tool[] } | null = null;

  constructor(
    private readonly source: { tools: () => Tool[]; structuredOutputTool?: Tool; toolSearch?: ToolSearchSetting },
    contextWindow: () => number,
  ) {
    this.deferred = new DeferredTools({
      setting: source.toolSearch ?? { mode: 'auto', percent: DEFAULT_TOOL_SEARCH_PERCENT },
      contextWindow,
    });
  }

  /** The main loop's tools (StructuredOutput last), with the offer brought up to date. */
  tools(): Tool[] {
    const offered = this.source.tools();
    const so = this.source.structuredOutputTool;
    if (this.builtFrom?.tools !== offered || this.builtFrom.structured !== so) {
      const all = so ? [...offered, so] : offered;
      this.deferred.setTools(all);
      this.builtFrom = { tools: offered, structured: so, all };
    }
    return this.builtFrom.all;
  }

  /** The tools the next request sends (call `tools()` first). */
  apiTools(): ApiTool[] {
    return this.deferred.apiTools();
  }

  /** The tools the next request sends, and the deferred ones it does not (get_context_usage). */
  schemas(): { tools: ApiTool[]; deferredTools: ApiTool[] } {
    this.tools();
    const sent = new Set(this.deferred.apiTools().map((t) => t.name));
    return {
      tools: this.deferred.apiTools(),
      deferredTools: this.deferred.deferred().filter((t) => !sent.has(t.name)),
    };
  }

  /** Every tool the model can reach, deferred ones included (system/init's `tools`). */
  toolNames(): string[] {
    this.tools();
    return this.deferred.toolNames();
  }
}
