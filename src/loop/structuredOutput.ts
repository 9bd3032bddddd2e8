// Structured output, as the agent loop enforces it. It applies exactly when a tool of role
// `structured-output` is offered (StructuredOutput: the main agent of a session whose host gave a
// JSON schema, a workflow agent with a schema; never another subagent):
// - a valid StructuredOutput call ends the run with success; its input is the structured output;
// - every invalid call is answered with the validation error (by the tool pipeline) and counted:
//   the 5th ends the run with error_max_structured_output_retries;
// - the model ending its turn without a valid call is reminded once; ending again without one
//   also ends with error_max_structured_output_retries (the reminder was its retry).
import type { Tool } from '../../tools/tool.js';
import type { ToolResultBlock, ToolUseBlock } from './toolPipeline.js';

export const MAX_STRUCTURED_OUTPUT_RETRIES = 5;

/** What a model that ended its turn without a valid call of the `toolName` tool is told. */
function structuredOutputReminder(toolName: string): string {
  return (
    `You ended your turn without calling the ${toolName} tool. ` +
    `The caller needs your final answer as structured output: call ${toolName} now with it as the input.`
  );
}

export type StructuredOutputVerdict = { kind: 'done'; value: unknown } | { kind: 'failed'; text: string };

/** Per run (one prompt) state; `forTools` gives none when the tool is not offered. */
export class StructuredOutputTracker {
  private invalidCalls = 0;
  private lastError = '';
  private reminded = false;

  /** `toolName`: the offered structured-output tool's name, as the model calls it. */
  private constructor(private readonly toolName: string) {}

  static forTools(tools: readonly Tool[]): StructuredOutputTracker | undefined {
    const tool = tools.find((t) => t.role === 'structured-output');
    return tool ? new StructuredOutputTracker(tool.name) : undefined;
  }

  /**
   * After a batch of tool calls: a successful StructuredOutput call ends the run (its `data`, the
   * validated input, is the output); too many failed ones end it too; otherwise the loop goes on.
   */
  afterBatch(
    toolUses: readonly ToolUseBlock[],
    results: readonly ToolResultBlock[],
    data: readonly unknown[],
  ): StructuredOutputVerdict | undefined {
    for (const use of toolUses) {
      if (use.name !== this.toolName) continue;
      const i = results.findIndex((r) => r.tool_use_id === use.id);
      if (i < 0) continue;
      if (!results[i].is_error) return { kind: 'done', value: data[i] ?? use.input };
      this.invalidCalls++;
      this.lastError = contentText(results[i].content);
    }
    if (this.invalidCalls >= MAX_STRUCTURED_OUTPUT_RETRIES)
      return {
        kind: 'failed',
        text: `The model did not produce valid structured output after ${this.invalidCalls} invalid ${this.toolName} calls. Last error: ${this.lastError}`,
      };
    return undefined;
  }

  /** The model ended its turn without a valid call: remind it once, then give up. */
  onEndTurn(): { kind: 'remind'; text: string } | Extract<StructuredOutputVerdict, { kind: 'failed' }> {
    if (!this.reminded) {
      this.reminded = true;
      return { kind: 'remind', text: structuredOutputReminder(this.toolName) };
    }
    return {
      kind: 'failed',
      text: `The model ended its turn without calling ${this.toolName}, even after a reminder: no structured output was produced.`,
    };
  }
}

function contentText(content: ToolResultBlock['content']): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}
