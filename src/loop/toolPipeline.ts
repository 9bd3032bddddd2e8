// One tool_use block, from the model's request to the tool_result the model reads:
// PreToolUse hooks → permission decision (→ PermissionRequest hooks → the host's can_use_tool)
// → the tool → PostToolUse / PostToolUseFailure hooks → tool_result. With no hooks registered
// every hook step is a Map lookup; nothing here waits without a timeout or the run's signal.
// The call is validated once into a PreparedCall (again only when a hook or the host replaces its
// input); every step asks the prepared call what it touches, never the tool's name.
import { callLabel } from '../permissions/callLabel.js';
import type { Tool, ToolContext, ToolKind, ToolProgress, ToolResult } from '../../tools/tool.js';
import { type CallPreparation, type PreparedCall, prepareCall, runPreparedCall } from '../../tools/toolCall.js';
import { findTool, noSuchToolResult } from '../../tools/registry.js';
import type { HookOutcome, HookRunner } from '../hooks/index.js';
import {
  type AskReasonType,
  decidePermission,
  permissionUpdateSchema,
  type PermissionDecision,
  type PermissionState,
  type PermissionUpdate,
} from '../permissions/index.js';
import { describeCall } from '../permissions/toolInput.js';
import { readableFilter } from '../permissions/readFilter.js';
import { fileActivity } from '../util/fileActivity.js';

export interface ToolUseBlock {
  id: string;
  name: string;
  input: unknown;
}

export type { ToolResultBlock } from '../../tools/agentEvents.js';
import type { ToolResultBlock } from '../../tools/agentEvents.js';

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

/** The `can_use_tool` control request's fields (snake_case, as on the wire). */
export interface AskHostRequest {
  tool_name: string;
  input: unknown;
  tool_use_id: string;
  /** What a host labels the prompt with (callLabel.ts). */
  display_name?: string;
  description?: string;
  permission_suggestions?: PermissionUpdate[];
  blocked_path?: string;
  decision_reason?: string;
  decision_reason_type?: AskReasonType;
  /** Whose call it is when not the main agent's: a process teammate's `name@team` (the SDK's agentID). */
  agent_id?: string;
}

/** The host's PermissionResult. */
export type AskHostAnswer =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: unknown[] }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** Who made a permission decision, in the reference's telemetry words. */
export type DecisionSource = 'config' | 'hook' | 'user_permanent' | 'user_temporary' | 'user_abort' | 'user_reject';

/** What telemetry hears of a call: its permission decision, then its result (src/telemetry/). */
export type ToolTelemetryEvent =
  | {
      kind: 'decision';
      toolName: string;
      /** What the tool declares it does (telemetry counts the decisions and lines of `edit` tools). */
      toolKind: ToolKind;
      /** The paths the call declares it touches (`access().paths`): an `edit` tool's, the files it writes. */
      paths: readonly string[];
      toolUseId: string;
      decision: 'accept' | 'reject';
      source: DecisionSource;
      input: unknown;
    }
  | {
      kind: 'result';
      toolName: string;
      toolKind: ToolKind;
      paths: readonly string[];
      toolUseId: string;
      success: boolean;
      durationMs: number;
      input: unknown;
      data?: unknown;
      error?: string;
      resultSizeBytes: number;
    };

export interface PipelineDeps {
  tools: Tool[];
  /** Telemetry's observer (absent when telemetry is off). */
  onToolTelemetry?: (event: ToolTelemetryEvent) => void;
  onDenial?: (denial: PermissionDenial) => void;
  /** The session's permission state. Absent: no permission checks (trusted inner contexts, tests). */
  permissions?: PermissionState;
  /** Absent or without hooks for an event: that step is skipped. */
  hooks?: HookRunner;
  /** `--permission-prompt-tool stdio`: ask the host (can_use_tool; the caller owns its timeout). */
  askHost?: (req: AskHostRequest, signal: AbortSignal) => Promise<AskHostAnswer>;
  /** `--permission-prompts none`: nobody answers prompts; what would ask is denied at once (askHost is never called). */
  noApprovalSurface?: boolean;
  /** Hooks' systemMessage lines, for the host. */
  onSystemMessage?: (message: string) => void;
  /** Non-fatal problems (a malformed updatedPermissions from the host). */
  onWarning?: (message: string) => void;
  /** initialize.toolAliases: a name the model calls → the tool that runs (read at each call). */
  toolAliases?: () => Record<string, string> | undefined;
}

/**
 * The call as it runs: a tool_use whose name is an alias key becomes a call of the mapped tool
 * (single hop, so `{A: 'B', B: 'A'}` cannot loop). Hooks, permissions and the tool all see the real
 * name; the result keeps the model's tool_use id.
 */
export function resolveToolAlias(block: ToolUseBlock, aliases: Record<string, string> | undefined): ToolUseBlock {
  const target = aliases && Object.hasOwn(aliases, block.name) ? aliases[block.name] : undefined;
  return target ? { ...block, name: target } : block;
}

/**
 * A call by a tool's legacy name (`Task`) as a call of the tool by its own name (`Agent`): hooks,
 * permissions, denials and telemetry see the tool's name, as on the reference; the tool_use id and
 * the model's own message are unchanged.
 */
export function withOwnName(block: ToolUseBlock, tools: readonly Tool[]): ToolUseBlock {
  const tool = findTool(tools, block.name);
  return tool && tool.name !== block.name ? { ...block, name: tool.name } : block;
}

/** The tool a block calls and its prepared call, or undefined when no such tool is offered. */
export function prepareToolUse(block: ToolUseBlock, tools: readonly Tool[]): CallPreparation | undefined {
  const tool = findTool(tools, block.name);
  return tool ? prepareCall(tool, block.input) : undefined;
}

export async function* runToolUse(
  block: ToolUseBlock,
  ctx: ToolContext,
  deps: PipelineDeps,
  /** The block's preparation when the caller made it already (the batch, to judge concurrency). */
  prepared: CallPreparation | undefined = prepareToolUse(block, deps.tools),
): AsyncGenerator<ToolProgress, PipelineOutcome, void> {
  if (!prepared) {
    const r = noSuchToolResult(block.name);
    return { toolResult: toResultBlock(block.id, r.content, true) };
  }
  let input = block.input;
  // Invalid input never reaches hooks or the host: the model reads the validation error.
  if (!prepared.ok) return yield* execute(prepared, block, input, ctx, deps);
  let call = prepared.call;
  const tool = call.tool;

  const hooks = deps.hooks;
  const context: string[] = [];
  const decided = (decision: 'accept' | 'reject', source: DecisionSource) =>
    deps.onToolTelemetry?.({
      kind: 'decision',
      toolName: block.name,
      toolKind: call.kind,
      paths: call.access.paths ?? [],
      toolUseId: block.id,
      decision,
      source,
      input,
    });
  let denySource: DecisionSource = 'config';
  const deny = (message: string, stopRun?: { reason: string }): PipelineOutcome => {
    decided('reject', denySource);
    deps.onDenial?.({ tool_name: block.name, tool_use_id: block.id, tool_input: input });
    return {
      toolResult: toResultBlock(block.id, message, true),
      ...(stopRun ? { stopRun } : {}),
      ...(context.length ? { additionalContext: context } : {}),
    };
  };

  // 1. PreToolUse hooks.
  let hookDecision: { behavior: 'allow' | 'deny' | 'ask'; reason?: string } | undefined;
  if (hooks?.has('PreToolUse')) {
    const pre = await hooks.run(
      'PreToolUse',
      { tool_name: block.name, tool_input: input, tool_use_id: block.id },
      { matchValue: block.name, matchAlso: tool.legacyName, toolUseId: block.id, signal: ctx.signal },
    );
    report(pre, deps);
    context.push(...pre.additionalContext);
    if (pre.stop || pre.blockReason !== undefined) denySource = 'hook';
    if (pre.stop) return deny(`The run was stopped by a PreToolUse hook: ${pre.stop.reason}`, pre.stop);
    if (pre.blockReason !== undefined)
      return deny(`PreToolUse hook blocked this ${block.name} call: ${pre.blockReason}`);
    if (pre.updatedInput) {
      input = pre.updatedInput;
      const again = prepareCall(tool, input);
      if (!again.ok) return yield* execute(again, block, input, ctx, deps, context);
      call = again.call;
    }
    if (pre.permissionDecision)
      hookDecision = { behavior: pre.permissionDecision, reason: pre.permissionDecisionReason };
  }

  // 2. The permission decision.
  let allowSource: DecisionSource = hookDecision?.behavior === 'allow' ? 'hook' : 'config';
  if (deps.permissions) {
    const decision = decidePermission(deps.permissions, { call, hookDecision });
    if (decision.behavior === 'deny') {
      if (hookDecision?.behavior === 'deny') denySource = 'hook';
      else if (decision.reasonType) yield deniedLine(block, ctx, decision.message, decision.reasonType);
      return deny(decision.message);
    }
    if (decision.behavior === 'ask') {
      const answer = await resolveAsk(block, call, decision, ctx.signal, deps);
      if (answer.behavior === 'deny') {
        if (answer.unasked)
          yield deniedLine(block, ctx, answer.message, decision.reasonType === 'mode' ? 'mode' : undefined);
        denySource = answer.source ?? (answer.interrupt ? 'user_abort' : 'user_reject');
        return deny(answer.message, answer.interrupt ? { reason: `Interrupted: ${answer.message}` } : undefined);
      }
      allowSource = answer.source ?? (answer.updatedPermissions?.length ? 'user_permanent' : 'user_temporary');
      if (answer.updatedPermissions?.length) applyUpdates(answer.updatedPermissions, deps);
      if (answer.updatedInput) {
        input = answer.updatedInput;
        const again = prepareCall(tool, input);
        if (!again.ok) return yield* execute(again, block, input, ctx, deps, context);
        call = again.call;
      }
    }
  }

  decided('accept', allowSource);
  // 3. The tool, then 4. PostToolUse / PostToolUseFailure hooks.
  return yield* execute({ ok: true, call }, block, input, ctx, deps, context);
}

/** Runs a prepared call (an invalid one answers with its validation error), then the Post hooks. */
async function* execute(
  prepared: CallPreparation,
  block: ToolUseBlock,
  input: unknown,
  ctx: ToolContext,
  deps: PipelineDeps,
  context: string[] = [],
): AsyncGenerator<ToolProgress, PipelineOutcome, void> {
  const started = Date.now();
  let result: ToolResult;
  // A tool that does not report its own file activity (Bash counts its commands) and is not
  // read-only may change files while it runs (Write, Edit, MCP tools): the sandbox's prepared wrap is then stale.
  const call = prepared.ok ? prepared.call : undefined;
  const changesFiles = call !== undefined && !call.tool.reportsFileActivity && !call.readOnly;
  try {
    // Rules may change mid-session (a host's updatedPermissions): build the filter per call.
    const readable = deps.permissions ? readableFilter(deps.permissions) : undefined;
    if (changesFiles) fileActivity.changed();
    result = prepared.ok
      ? yield* runPreparedCall(prepared.call, readable ? { ...ctx, isPathReadable: readable } : ctx)
      : prepared.result;
  } catch (err) {
    result = { content: `Error: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  } finally {
    if (changesFiles) fileActivity.changed();
  }
  const outcome: PipelineOutcome = {
    toolResult: toResultBlock(block.id, result.content, result.isError),
    data: result.data,
  };
  if (deps.onToolTelemetry) {
    const text = contentText(result.content);
    deps.onToolTelemetry({
      kind: 'result',
      toolName: block.name,
      // An input that failed validation has no prepared call; its result is a failure, counted as such.
      toolKind: call?.kind ?? 'other',
      paths: call?.access.paths ?? [],
      toolUseId: block.id,
      success: !result.isError,
      durationMs: Date.now() - started,
      input,
      data: result.data,
      ...(result.isError ? { error: text.slice(0, 1000) } : {}),
      resultSizeBytes: Buffer.byteLength(text),
    });
  }
  const hooks = deps.hooks;
  const event = result.isError ? 'PostToolUseFailure' : 'PostToolUse';
  if (hooks?.has(event)) {
    const base = { tool_name: block.name, tool_input: input, tool_use_id: block.id, duration_ms: Date.now() - started };
    const fields = result.isError
      ? { ...base, error: contentText(result.content), is_interrupt: ctx.signal.aborted }
      : { ...base, tool_response: result.data ?? result.content };
    // A tool that ran to an abort still gets its hooks, but they must not outlive the run for long.
    const post = await hooks.run(event, fields, {
      matchValue: block.name,
      matchAlso: call?.tool.legacyName,
      toolUseId: block.id,
      signal: ctx.signal,
    });
    report(post, deps);
    context.push(...post.additionalContext);
    if (post.blockReason !== undefined) context.push(`${event} hook feedback: ${post.blockReason}`);
    if (post.stop) outcome.stopRun = post.stop;
  }
  if (context.length > 0) outcome.additionalContext = context;
  return outcome;
}

/** The ask: PermissionRequest hooks may answer it; else the host; else an immediate deny with a hint. */
async function resolveAsk(
  block: ToolUseBlock,
  call: PreparedCall,
  decision: Extract<PermissionDecision, { behavior: 'ask' }>,
  signal: AbortSignal,
  deps: PipelineDeps,
): Promise<AskHostAnswer & { source?: DecisionSource; unasked?: true }> {
  const input = call.rawInput;
  const hooks = deps.hooks;
  if (hooks?.has('PermissionRequest')) {
    const pr = await hooks.run(
      'PermissionRequest',
      {
        tool_name: block.name,
        tool_input: input,
        tool_use_id: block.id,
        permission_suggestions: decision.suggestions ?? [],
      },
      { matchValue: block.name, matchAlso: call.tool.legacyName, toolUseId: block.id, signal },
    );
    report(pr, deps);
    if (pr.stop) return { behavior: 'deny', message: pr.stop.reason, interrupt: true, source: 'hook' };
    const a = pr.permissionRequest;
    if (a?.behavior === 'deny')
      return {
        behavior: 'deny',
        message: a.message || `A PermissionRequest hook denied ${block.name}.`,
        interrupt: a.interrupt,
        source: 'hook',
      };
    if (a?.behavior === 'allow')
      return {
        behavior: 'allow',
        updatedInput: a.updatedInput,
        updatedPermissions: a.updatedPermissions,
        source: 'hook',
      };
  }
  // Plan mode's question about a file edit: with nobody to ask, the plan-mode refusal.
  if ((deps.noApprovalSurface || !deps.askHost) && decision.reasonType === 'mode')
    return { behavior: 'deny', source: 'config', unasked: true, message: decision.message };
  if (deps.noApprovalSurface) {
    return {
      behavior: 'deny',
      source: 'config',
      unasked: true,
      message:
        `${block.name} was denied: ${decision.userInteraction ? 'it needs a person to answer' : decision.reason}, and this session has no approval surface (--permission-prompts none): nobody can be asked. ` +
        'Do not retry it; go on with what is allowed, or say what you would need and stop.',
    };
  }
  if (!deps.askHost) {
    if (decision.userInteraction) {
      return {
        behavior: 'deny',
        source: 'config',
        unasked: true,
        message:
          `${block.name} needs a person to answer, and no one can be asked in this non-interactive run (the host answers only with --permission-prompt-tool stdio, as the SDK's canUseTool sets it up). ` +
          'Go on without asking: make a reasonable choice, and say which one you made and why.',
      };
    }
    return {
      behavior: 'deny',
      source: 'config',
      unasked: true,
      message:
        `Permission to use ${describeCall(call.name, call.kind, call.access)} was denied: ${decision.reason}, and no one can be asked in this non-interactive run. ` +
        `To allow it, pass ${decision.hint}, or run with --permission-prompt-tool stdio so the host is asked.`,
    };
  }
  // Notification hooks hear that a question waits for a person (they cannot answer it).
  notify(deps, `Claude needs your permission to use ${block.name}`, 'permission_prompt', signal);
  try {
    const answer = await deps.askHost(
      {
        tool_name: block.name,
        ...callLabel(call.tool, block.name, input),
        input,
        tool_use_id: block.id,
        ...(decision.suggestions?.length ? { permission_suggestions: decision.suggestions } : {}),
        ...(decision.blockedPath !== undefined ? { blocked_path: decision.blockedPath } : {}),
        decision_reason: decision.reason,
        ...(decision.reasonType ? { decision_reason_type: decision.reasonType } : {}),
      },
      signal,
    );
    if (answer?.behavior === 'allow' || answer?.behavior === 'deny') {
      if (answer.behavior === 'deny' && typeof answer.message !== 'string')
        return { ...answer, message: `The host denied ${block.name}.` };
      return answer;
    }
    return {
      behavior: 'deny',
      message: `The host answered the permission request for ${block.name} with neither allow nor deny.`,
    };
  } catch (err) {
    return {
      behavior: 'deny',
      message: `Permission request for ${block.name} failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** system/permission_denied for a call the rules refused or nobody could be asked about. */
function deniedLine(block: ToolUseBlock, ctx: ToolContext, message: string, reasonType?: string): ToolProgress {
  return {
    type: 'forward',
    event: {
      type: 'permission_denied',
      parentToolUseId: null,
      toolName: block.name,
      toolUseId: block.id,
      message,
      ...(reasonType ? { reasonType } : {}),
      ...(ctx.services?.agentId ? { agentId: ctx.services.agentId } : {}),
    },
  };
}

function applyUpdates(raw: unknown[], deps: PipelineDeps): void {
  if (!deps.permissions) return;
  for (const u of raw) {
    const parsed = permissionUpdateSchema.safeParse(u);
    if (!parsed.success) {
      deps.onWarning?.(`ignored a malformed permission update from the host: ${JSON.stringify(u)}`);
      continue;
    }
    try {
      deps.permissions.addRules([parsed.data]);
    } catch (err) {
      deps.onWarning?.(`ignored a permission update from the host: ${(err as Error).message}`);
    }
  }
}

function report(outcome: HookOutcome, deps: PipelineDeps): void {
  for (const m of outcome.systemMessages) deps.onSystemMessage?.(m);
}

function contentText(content: ToolResult['content']): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

export function toResultBlock(
  toolUseId: string,
  content: ToolResultBlock['content'],
  isError?: boolean,
): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) };
}

/** Fires Notification hooks (matcher: the notification type) without waiting for them. */
function notify(deps: PipelineDeps, message: string, type: string, signal: AbortSignal): void {
  if (!deps.hooks?.has('Notification')) return;
  deps.hooks.run('Notification', { message, notification_type: type }, { matchValue: type, signal }).then(
    (out) => report(out, deps),
    (err) => deps.onWarning?.(`Notification hook failed: ${err instanceof Error ? err.message : String(err)}`),
  );
}
