// The built-in tools, and finding and describing tools for the model. The door every call goes
// through (validation, running, the output cap) is toolCall.ts.
import { z } from 'zod';
import type { Tool, ToolResult } from './tool.js';
import { toolUseError } from './toolCall.js';
import { BashTool } from './bash.js';
import { ReadTool } from './read.js';
import { WriteTool } from './write.js';
import { EditTool } from './edit.js';
import { GlobTool } from './glob.js';
import { GrepTool } from './grep.js';
import { makeAgentTool, type SubagentSummary } from './task.js';
import { TaskOutputTool } from './taskOutput.js';
import { TaskStopTool } from './taskStop.js';
import { TodoWriteTool } from './todoWrite.js';
import { NotebookEditTool } from './notebookEdit.js';
import { createWebFetchTool, type PageFetch, WebFetchTool } from './webFetch.js';
import { WebSearchTool } from './webSearch.js';
import { askUserQuestionConfig, createAskUserQuestionTool } from './askUserQuestion.js';
import { EnterPlanModeTool, ExitPlanModeTool } from './planMode.js';
import { SendMessageTool } from './sendMessage.js';
import { ListAgentsTool } from './listAgents.js';
import { TeamCreateTool } from './teamCreate.js';
import { TeamDeleteTool } from './teamDelete.js';
import { ToolSearchTool } from './toolSearch.js';
import { EnterWorktreeTool, ExitWorktreeTool } from './worktree.js';
import { CronCreateTool, CronDeleteTool, CronListTool, cronDisabled } from './cron.js';
import { ScheduleWakeupTool } from './scheduleWakeup.js';
import { MonitorTool } from './monitor.js';
import { ReportFindingsTool } from './reportFindings.js';
import { createWorkflowTool, WORKFLOW_OFF_NOTE, WORKFLOW_TOOL_NAME } from './workflow.js';

/**
 * The built-in tools, in the order the model sees them. `agentTeams`
 * (CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS) adds the agent-teams spelling's TeamCreate and TeamDelete;
 * named teammates, SendMessage and ListAgents are always there (the session's implicit team).
 * `env` carries the SDK's toolConfig (AskUserQuestion's preview format); a bad value throws.
 */
export function builtinTools(
  opts: {
    agentTeams?: boolean;
    env?: NodeJS.ProcessEnv;
    /** The user opted in to workflows (src/workflows/optIn.ts): Workflow is offered, run this many agents at once. */
    workflowConcurrency?: number;
    /** The fetch WebFetch reaches pages with (the session's: src/net/undici.ts); the global one when absent. */
    fetch?: PageFetch;
    /** The agents the Agent tool's description lists (the session's subagents; none if absent). */
    agents?: () => SubagentSummary[];
  } = {},
): Tool[] {
  return [
    BashTool,
    ReadTool,
    WriteTool,
    EditTool,
    GlobTool,
    GrepTool,
    NotebookEditTool,
    makeAgentTool(opts.agents),
    TaskOutputTool,
    TaskStopTool,
    TodoWriteTool,
    opts.fetch ? createWebFetchTool({ fetch: opts.fetch }) : WebFetchTool,
    WebSearchTool,
    createAskUserQuestionTool(askUserQuestionConfig(opts.env ?? process.env)),
    EnterPlanModeTool,
    ExitPlanModeTool,
    SendMessageTool,
    ListAgentsTool,
    EnterWorktreeTool,
    ExitWorktreeTool,
    // CLAUDE_CODE_DISABLE_CRON turns the session's schedule off, as it does the reference's.
    ...(cronDisabled(opts.env ?? process.env)
      ? []
      : [CronCreateTool, CronDeleteTool, CronListTool, ScheduleWakeupTool]),
    MonitorTool,
    ReportFindingsTool,
    ...(opts.workflowConcurrency ? [createWorkflowTool(opts.workflowConcurrency)] : []),
    // Offered only while tools are deferred (src/loop/deferredTools.ts).
    ToolSearchTool,
    ...(opts.agentTeams ? [TeamCreateTool, TeamDeleteTool] : []),
  ] as Tool[];
}

export function findTool(tools: readonly Tool[], name: string): Tool | undefined {
  return tools.find((t) => toolAnswersTo(t, name));
}

/** Does the tool go by this name (its own, or its legacy one)? */
export function toolAnswersTo(tool: Tool, name: string): boolean {
  return tool.name === name || tool.legacyName === name;
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

/**
 * Each zod schema's JSON schema, derived once. The start-up snapshot keeps the built-in tools'
 * (src/startupWarmUp.ts) without their zod schemas (src/util/lazySchema.ts), so a session's first
 * request makes none: a tool's schema is made at its first call. Shared, never changed.
 */
const derived = new WeakMap<object, Record<string, unknown>>();

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
  let schema = derived.get(tool.inputSchema);
  if (!schema) {
    // io: 'input' → fields with defaults stay optional, as the model may omit them.
    // A copy of its enumerable fields: zod's result also holds the schema itself (`~standard`).
    const { $schema: _drop, ...plain } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' });
    schema = plain as Record<string, unknown>;
    dropSafeIntegerBounds(schema);
    derived.set(tool.inputSchema, schema);
  }
  if (schema.type !== 'object') {
    throw new Error(`tool ${tool.name}: input schema must be an object schema`);
  }
  return { name: tool.name, description: tool.description, input_schema: schema as ToolApiSchema['input_schema'] };
}

/** The result for a tool_use naming a tool that does not exist (or is not offered). */
export function noSuchToolResult(name: string): ToolResult {
  // Clipped: a model (or a hostile API) can send a name of any length.
  const shown = name.length > 100 ? `${name.slice(0, 100)}… (a name of ${name.length} characters)` : name;
  // Workflow is offered only to a user who opted in: a call without it says how to opt in.
  const why = name === WORKFLOW_TOOL_NAME ? `. ${WORKFLOW_OFF_NOTE}` : '';
  return { content: toolUseError(`Error: No such tool available: ${shown}${why}`), isError: true };
}

export {
  describeIssue,
  MAX_RESULT_CHARS,
  prepareCall,
  runPreparedCall,
  runTool,
  toolUseError,
  validationErrorResult,
} from './toolCall.js';
