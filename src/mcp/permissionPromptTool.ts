// `--permission-prompt-tool mcp__server__tool`: an MCP tool decides what would be asked. It is
// called with {tool_name, input, tool_use_id} and answers with one text block holding JSON:
// {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"}. Anything else —
// no such tool, the server's error, text that is not that JSON — is a denial whose message says
// what went wrong, so a broken permission tool can never let a call through.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';

const answerSchema = lazySchema(() =>
  z.discriminatedUnion('behavior', [
    z.object({
      behavior: z.literal('allow'),
      updatedInput: z
        .record(z.string(), z.unknown(), { error: 'updatedInput must be an object (the input to run)' })
        .optional(),
      updatedPermissions: z.array(z.unknown(), { error: 'updatedPermissions must be an array' }).optional(),
    }),
    z.object({
      behavior: z.literal('deny'),
      message: z.string({ error: 'message must be a string (what the model is told)' }),
      interrupt: z.boolean({ error: 'interrupt must be true or false' }).optional(),
    }),
  ]),
);

/** What calling the MCP tool gave: its raw CallToolResult, or why it could not be called. */
export type PromptToolCall = (args: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** `--permission-prompt-tool` names an MCP tool (mcp__server__tool)? */
export function isMcpPromptTool(name: string): boolean {
  return /^mcp__.+__.+/.test(name);
}

/** The ask function the tool pipeline calls in place of a host's can_use_tool. */
export function mcpPermissionPrompt(toolName: string, call: PromptToolCall) {
  return async (req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> => {
    let result: Record<string, unknown>;
    try {
      result = await call({ tool_name: req.tool_name, input: req.input, tool_use_id: req.tool_use_id }, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return deny(toolName, `could not be called: ${(err as Error).message}`);
    }
    return parsePromptAnswer(toolName, result, req.input);
  };
}

/** The permission tool's CallToolResult → a decision; every malformed shape is a denial naming the fault. */
export function parsePromptAnswer(toolName: string, result: Record<string, unknown>, input: unknown): AskHostAnswer {
  const content = Array.isArray(result.content) ? (result.content as Array<{ type?: string; text?: unknown }>) : [];
  const text = content.find((c) => c.type === 'text' && typeof c.text === 'string')?.text as string | undefined;
  if (result.isError === true)
    return deny(toolName, `answered with an error: ${(text ?? '').slice(0, 300) || '(no text)'}`);
  if (text === undefined)
    return deny(toolName, 'answered without a text block (expected JSON {"behavior":"allow"|"deny", …})');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return deny(toolName, `answered with text that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const why =
      (issue.path.length === 1 && issue.path[0] === 'behavior') || issue.code === 'invalid_union'
        ? 'behavior must be "allow" or "deny"'
        : issue.message;
    return deny(toolName, `answered ${text.slice(0, 200)}: ${why}`);
  }
  const a = parsed.data;
  if (a.behavior === 'deny')
    return { behavior: 'deny', message: a.message, ...(a.interrupt ? { interrupt: true } : {}) };
  return {
    behavior: 'allow',
    updatedInput: a.updatedInput ?? (input as Record<string, unknown>),
    ...(a.updatedPermissions ? { updatedPermissions: a.updatedPermissions } : {}),
  };
}

function deny(toolName: string, why: string): AskHostAnswer {
  return { behavior: 'deny', message: `Permission denied: the permission prompt tool ${toolName} ${why}` };
}
