// One tool_use block, from the model's request to the tool_result the model reads:
// PreToolUse hooks → permission decision → the tool → PostToolUse hooks → tool_result.
import type { Tool, ToolContext, ToolProgress } from '../../tools/tool.js';
import { findTool, runTool, noSuchToolResult } from '../../tools/registry.js';

export interface ToolUseBlock {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<{ type: 'text'; text: string } | { type: 'image'; source: unknown }>;
  is_error?: boolean;
}

export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

export interface PipelineOutcome {
  toolResult: ToolResultBlock;
  /** Structured output for the host (`tool_use_result`). */
  data?: unknown;
  /** The host asked to stop the whole run (a deny with interrupt, a hook's continue:false). */
  stopRun?: { reason: string };
  /** Extra context for the model (hooks' additionalContext), appended after the tool results. */
  additionalContext?: string[];
}

export interface PipelineDeps {
  tools: Tool[];
  onDenial?: (denial: PermissionDenial) => void;
}

export async function* runToolUse(
  block: ToolUseBlock,
  ctx: ToolContext,
  deps: PipelineDeps,
): AsyncGenerator<ToolProgress, PipelineOutcome, void> {
  const tool = findTool(deps.tools, block.name);
  if (!tool) {
    const r = noSuchToolResult(block.name);
    return { toolResult: toResultBlock(block.id, r.content, true) };
  }
  const result = yield* runTool(tool, block.input, ctx);
  return { toolResult: toResultBlock(block.id, result.content, result.isError), data: result.data };
}

export function toResultBlock(
  toolUseId: string,
  content: ToolResultBlock['content'],
  isError?: boolean,
): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) };
}
