// The one door every tool call goes through: validation, error shaping and a last output cap, so
// no tool can crash the loop or flood the model however it fails.
import { z } from 'zod';
import { ToolError, type Tool, type ToolContext, type ToolProgress, type ToolResult } from './tool.js';
import { BashTool } from './bash.js';
import { READ_MAX_OUTPUT_CHARS, ReadTool } from './read.js';
import { WriteTool } from './write.js';
import { EditTool } from './edit.js';
import { GlobTool } from './glob.js';
import { GrepTool } from './grep.js';
import { AgentTool, TaskTool } from './task.js';
import { TaskOutputTool } from './taskOutput.js';
import { TaskStopTool } from './taskStop.js';
import { TodoWriteTool } from './todoWrite.js';
import { NotebookEditTool } from './notebookEdit.js';
import { WebFetchTool } from './webFetch.js';
import { WebSearchTool } from './webSearch.js';
import { askUserQuestionConfig, createAskUserQuestionTool } from './askUserQuestion.js';
import { EnterPlanModeTool, ExitPlanModeTool } from './planMode.js';
import { SendMessageTool } from './sendMessage.js';
import { ListAgentsTool } from './listAgents.js';
import { TeamCreateTool } from './teamCreate.js';
import { TeamDeleteTool } from './teamDelete.js';
import { ToolSearchTool } from './toolSearch.js';
import { EnterWorktreeTool, ExitWorktreeTool } from './worktree.js';
import { untilAborted } from './untilAborted.js';

/** Past this, a content string is cut: tools cap their own output, this is the safety net. */
export const MAX_RESULT_CHARS = 30_000;
/** Read pages whole lines up to its own, larger cap (a file is what the model asked to see). */
const RESULT_CAPS: Readonly<Record<string, number>> = { Read: READ_MAX_OUTPUT_CHARS + 1_000 };

export function resultCapFor(toolName: string): number {
  return RESULT_CAPS[toolName] ?? MAX_RESULT_CHARS;
}

/**
 * The built-in tools, in the order the model sees them. `agentTeams`
 * (CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS) adds the agent-teams spelling's TeamCreate and TeamDelete;
 * named teammates, SendMessage and ListAgents are always there (the session's implicit team).
 * `env` carries the SDK's toolConfig (AskUserQuestion's preview format); a bad value throws.
 */
export function builtinTools(opts: { agentTeams?: boolean; env?: NodeJS.ProcessEnv } = {}): Tool[] {
  return [
    BashTool,
    ReadTool,
    WriteTool,
    EditTool,
    GlobTool,
    GrepTool,
    NotebookEditTool,
    TaskTool,
    AgentTool,
    TaskOutputTool,
    TaskStopTool,
    TodoWriteTool,
    WebFetchTool,
    WebSearchTool,
    createAskUserQuestionTool(askUserQuestionConfig(opts.env ?? process.env)),
    EnterPlanModeTool,
    ExitPlanModeTool,
    SendMessageTool,
    ListAgentsTool,
    EnterWorktreeTool,
    ExitWorktreeTool,
    // Offered only while tools are deferred (src/loop/deferredTools.ts).
    ToolSearchTool,
    ...(opts.agentTeams ? [TeamCreateTool, TeamDeleteTool] : []),
  ] as Tool[];
}

export function findTool(tools: readonly Tool[], name: string): Tool | undefined {
  return tools.find((t) => t.name === name);
}

export interface ToolApiSchema {
  name: string;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

/** `.int()` adds ±MAX_SAFE_INTEGER bounds to the JSON schema: noise to the model, so drop them. */
function dropSafeIntegerBounds(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  const obj = node as Record<string, unknown>;
  if (obj.minimum === Number.MIN_SAFE_INTEGER) delete obj.minimum;
  if (obj.maximum === Number.MAX_SAFE_INTEGER) delete obj.maximum;
  for (const v of Object.values(obj)) dropSafeIntegerBounds(v);
}

/** The Messages API `tools[]` entry for a tool, its JSON schema derived from the zod schema. */
export function toolApiSchema(tool: Tool): ToolApiSchema {
  if (tool.apiInputSchema) {
    if (tool.apiInputSchema.type !== 'object')
      throw new Error(`tool ${tool.name}: input schema must be an object schema`);
    return {
      name: tool.name,
      description: tool.description,
      input_schema: tool.apiInputSchema as ToolApiSchema['input_schema'],
    };
  }
  // io: 'input' → fields with defaults stay optional, as the model may omit them.
  const schema = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  dropSafeIntegerBounds(schema);
  if (schema.type !== 'object') {
    throw new Error(`tool ${tool.name}: input schema must be an object schema`);
  }
  return { name: tool.name, description: tool.description, input_schema: schema as ToolApiSchema['input_schema'] };
}

export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
}

/** The result for a tool_use naming a tool that does not exist (or is not offered). */
export function noSuchToolResult(name: string): ToolResult {
  // Clipped: a model (or a hostile API) can send a name of any length.
  const shown = name.length > 100 ? `${name.slice(0, 100)}… (a name of ${name.length} characters)` : name;
  return { content: toolUseError(`Error: No such tool available: ${shown}`), isError: true };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** One zod issue as a sentence naming the parameter, in the reference's wording where it has one. */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const name = issue.path.map(String).join('.');
  const got = valueAt(input, issue.path);
  if (issue.code === 'invalid_type') {
    if (got === undefined && name) return `The required parameter \`${name}\` is missing`;
    if (name) {
      return `The parameter \`${name}\` type is expected as \`${issue.expected}\` but provided as \`${typeName(got)}\``;
    }
    return `The input is expected as \`${issue.expected}\` but provided as \`${typeName(got)}\``;
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `An unexpected parameter \`${k}\` was provided`).join('\n');
  }
  return name ? `The parameter \`${name}\` is invalid: ${issue.message}` : issue.message;
}

export function validationErrorResult(tool: Tool, error: z.ZodError, input: unknown): ToolResult {
  const lines = error.issues.map((i) => describeIssue(i, input));
  const head = `${tool.name} failed due to the following ${lines.length === 1 ? 'issue' : 'issues'}:`;
  return { content: toolUseError(`InputValidationError: ${head}\n${lines.join('\n')}`), isError: true };
}

function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `${text.slice(0, max)}\n\n... [${cut} characters truncated]`;
}

function capResult(result: ToolResult, max: number): ToolResult {
  if (typeof result.content === 'string') return { ...result, content: capText(result.content, max) };
  const content = result.content.map((b) => (b.type === 'text' ? { ...b, text: capText(b.text, max) } : b));
  return { ...result, content };
}

// A tool call's input is checked by the batch (may it run concurrently?), the pipeline (before
// hooks, permissions and the host see it) and the runner; each input is validated only once.
const validated = new WeakMap<object, Map<Tool, z.ZodSafeParseResult<unknown>>>();

/** The tool's schema applied to `input`, remembered per input object (inputs are never mutated). */
export function validateInput(tool: Tool, input: unknown): z.ZodSafeParseResult<unknown> {
  if (typeof input !== 'object' || input === null) return tool.inputSchema.safeParse(input);
  let byTool = validated.get(input);
  if (!byTool) validated.set(input, (byTool = new Map()));
  let result = byTool.get(tool);
  if (!result) byTool.set(tool, (result = tool.inputSchema.safeParse(input)));
  return result;
}

/**
 * Validate, run, and shape any failure as an is_error result. Progress passes through; the
 * generator's return value is always a ToolResult.
 */
export async function* runTool(
  tool: Tool,
  rawInput: unknown,
  ctx: ToolContext,
): AsyncGenerator<ToolProgress, ToolResult, void> {
  const parsed = validateInput(tool, rawInput);
  if (!parsed.success) return validationErrorResult(tool, parsed.error, rawInput);
  try {
    const result = yield* untilAborted(tool.call(parsed.data, ctx), ctx.signal, tool.name);
    return capResult(result, resultCapFor(tool.name));
  } catch (err) {
    if (err instanceof ToolError) {
      return { content: toolUseError(capText(err.message)), isError: true, data: err.data };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { content: toolUseError(`Error: ${capText(message)}`), isError: true };
  }
}
