// The one door every tool call goes through. A call is validated once, by `prepareCall`, and
// becomes a PreparedCall: the validated input plus what the tool declares the call touches (its
// kind, paths or command, label, concurrency safety). The loop and permissions read the prepared
// call, never the tool's name. `runPreparedCall` runs it, shapes any failure as an is_error result
// and applies the last output cap, so no tool can crash the loop or flood the model.
import { untilAborted } from './untilAborted.js';
import type { z } from 'zod';
import {
  type Tool,
  type ToolAccess,
  type ToolContext,
  ToolError,
  type ToolKind,
  type ToolProgress,
  type ToolResult,
} from './tool.js';

/** Past this, a content string is cut: tools cap their own output, this is the safety net. */
export const MAX_RESULT_CHARS = 30_000;

/** A call that passed its tool's schema, with what it touches. Immutable: a changed input is a new call. */
export interface PreparedCall {
  readonly tool: Tool;
  /** The tool's name (an alias already resolved): what hooks, rules and the host see. */
  readonly name: string;
  /** The input as sent (by the model, a hook or the host): what hooks and the host see. */
  readonly rawInput: unknown;
  /** The validated input: what permissions judge and the tool runs with. */
  readonly input: unknown;
  readonly kind: ToolKind;
  readonly access: ToolAccess;
  /** A short human label of what the call does ("Run: npm test", "Edit /repo/src/a.ts"). */
  readonly label: string;
  readonly readOnly: boolean;
  readonly concurrencySafe: boolean;
}

export type CallPreparation = { ok: true; call: PreparedCall } | { ok: false; result: ToolResult };

/**
 * What permissions judge of a call: a PreparedCall has all of it. `tool` is absent for a call of
 * a tool the session does not have (a command's shell line when Bash is not offered).
 */
export type CallFacts = Pick<PreparedCall, 'name' | 'input' | 'kind' | 'access' | 'readOnly'> & { tool?: Tool };

/** A tool's own judgement of a call, or `fallback` when it throws on an input it cannot judge. */
function ask<T>(fn: (() => T) | undefined, fallback: T): T {
  if (!fn) return fallback;
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** What a call touches, as its tool declares it ({} for a tool that declares nothing or cannot judge the input). */
export function accessOf(tool: Tool | undefined, input: unknown): ToolAccess {
  const t = tool as Tool<z.ZodType<unknown>> | undefined;
  return ask(t?.access && (() => t.access!(input)), {});
}

/** Validates `rawInput` against the tool's schema, once; the result is the prepared call or the error the model reads. */
export function prepareCall(tool: Tool, rawInput: unknown): CallPreparation {
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) return { ok: false, result: validationErrorResult(tool, parsed.error, rawInput) };
  const input = parsed.data;
  const t = tool as Tool<z.ZodType<unknown>>;
  const call: PreparedCall = {
    ...callFacts(tool, tool.name, input),
    tool,
    rawInput,
    label: ask(t.label && (() => t.label!(input)), tool.name),
    // An input the tool cannot judge: runs alone.
    concurrencySafe: ask(() => t.isConcurrencySafe(input) === true, false),
  };
  return { ok: true, call };
}

/**
 * What a call touches and whether it only reads, asked of its tool once: prepareCall's facts, and
 * those of a call made outside the pipeline (a command's shell line, a host's file read) from an
 * input the caller vouches for. No tool: kind 'other', touching nothing declared, not read-only.
 */
export function callFacts(tool: Tool | undefined, name: string, input: unknown): CallFacts {
  const t = tool as Tool<z.ZodType<unknown>> | undefined;
  return {
    ...(tool ? { tool } : {}),
    name,
    input,
    kind: tool?.kind ?? 'other',
    access: accessOf(tool, input),
    // An input the tool cannot judge: assume it writes.
    readOnly: ask(t && (() => t.isReadOnly(input) === true), false),
  };
}

/**
 * The files a call declares it edits: `access().paths` of a tool of kind 'edit' ([] when it names
 * none); undefined for a call that is not a file edit, or of no tool (what the terminal draws as diffs).
 */
export function editedFiles(tool: Tool | undefined, input: unknown): string[] | undefined {
  if (tool?.kind !== 'edit') return undefined;
  return accessOf(tool, input).paths ?? [];
}

/** Runs a prepared call: progress passes through; the return value is always a ToolResult. */
export async function* runPreparedCall(
  call: PreparedCall,
  ctx: ToolContext,
): AsyncGenerator<ToolProgress, ToolResult, void> {
  try {
    const result = yield* untilAborted(
      (call.tool as Tool<z.ZodType<unknown>>).call(call.input, ctx),
      ctx.signal,
      call.tool.name,
    );
    return capResult(result, call.tool.outputCap ?? MAX_RESULT_CHARS);
  } catch (err) {
    if (err instanceof ToolError) {
      return { content: toolUseError(capText(err.message)), isError: true, data: err.data };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { content: toolUseError(`Error: ${capText(message)}`), isError: true };
  }
}

/** Prepare and run in one step (callers that have no hooks or permissions between the two: tests, inner tools). */
export async function* runTool(
  tool: Tool,
  rawInput: unknown,
  ctx: ToolContext,
): AsyncGenerator<ToolProgress, ToolResult, void> {
  const prepared = prepareCall(tool, rawInput);
  if (!prepared.ok) return prepared.result;
  return yield* runPreparedCall(prepared.call, ctx);
}

export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`;
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
