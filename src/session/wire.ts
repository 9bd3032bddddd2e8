// Session events → protocol lines, in one place: what stdout carries and what the transcript keeps.
// Every line gets the session id and a fresh uuid here. The return type is the outbound schemas'
// own (src/protocol/outbound.ts), so a field the wire does not have fails to compile.
import { randomUUID } from '../util/ids.js';
import type { ResultMessage, SessionLine, TaskUsageLine, WorkflowProgressRowLine } from '../protocol/outbound.js';
import { isErrorResult, type Notice, type SessionEvent, type SessionInit, type TurnResult } from './events.js';
import { terminalReasonOf, type LoopEvent } from '../loop/events.js';
import type { TaskEvent, TaskUsage, WorkflowProgressRow } from '../../tools/taskEvents.js';
import type { TeamEvent } from '../teams/teamHost.js';

export function envelope(sessionId: string): { session_id: string; uuid: string } {
  return { session_id: sessionId, uuid: randomUUID() };
}

/** One protocol line a session event becomes: a member of the outbound schemas' union. */
export type WireLine = SessionLine;

/** The protocol line for one session event, or null for events a host does not see in this mode. */
export function toWire(ev: SessionEvent, sessionId: string, includePartial: boolean): WireLine | null {
  switch (ev.type) {
    case 'init':
      return initLine(ev.init, sessionId);
    case 'result':
      return resultLine(ev.result, sessionId);
    case 'task':
      return taskLine(ev.event, sessionId);
    case 'team':
      return teamLine(ev.event, sessionId);
    case 'notice':
      return noticeLine(ev.notice, sessionId);
    case 'prompt_suggestion':
      return { type: 'prompt_suggestion', suggestion: ev.suggestion, ...envelope(sessionId) };
  }
  return loopLine(ev, sessionId, includePartial);
}

function loopLine(
  ev: Exclude<LoopEvent, { type: 'task' }>,
  sessionId: string,
  includePartial: boolean,
): WireLine | null {
  const parent = ev.parentToolUseId;
  // A subagent's system lines say whose they are, like its other messages.
  const scoped = parent ? { parent_tool_use_id: parent } : {};
  switch (ev.type) {
    case 'stream_event':
      return includePartial
        ? { type: 'stream_event', event: ev.event, parent_tool_use_id: parent, ...envelope(sessionId) }
        : null;
    case 'assistant_block':
      return { type: 'assistant', message: ev.message, parent_tool_use_id: parent, ...envelope(sessionId) };
    case 'assistant':
      // Its blocks went out one by one as they completed (assistant_block).
      if (ev.blocksShown) return null;
      return {
        type: 'assistant',
        message: ev.message,
        parent_tool_use_id: parent,
        ...(ev.error ? { error: ev.error } : {}),
        ...envelope(sessionId),
      };
    case 'tool_result':
      return {
        type: 'user',
        message: { role: 'user', content: [ev.block] },
        parent_tool_use_id: parent,
        ...(ev.data !== undefined ? { tool_use_result: ev.data } : {}),
        ...envelope(sessionId),
      };
    case 'tool_progress':
      return {
        type: 'tool_progress',
        tool_use_id: ev.toolUseId,
        tool_name: ev.toolName,
        parent_tool_use_id: parent,
        elapsed_time_seconds: ev.elapsedSeconds,
        ...envelope(sessionId),
      };
    case 'api_retry':
      return {
        type: 'system',
        subtype: 'api_retry',
        attempt: ev.retry.attempt,
        max_retries: ev.retry.maxRetries,
        retry_delay_ms: ev.retry.retryDelayMs,
        error_status: ev.retry.errorStatus,
        error: ev.retry.error,
        ...scoped,
        ...envelope(sessionId),
      };
    case 'model_fallback':
      return {
        type: 'system',
        subtype: 'model_fallback',
        from: ev.from,
        to: ev.to,
        error: ev.error,
        ...scoped,
        ...envelope(sessionId),
      };
    case 'permission_denied':
      return {
        type: 'system',
        subtype: 'permission_denied',
        tool_name: ev.toolName,
        tool_use_id: ev.toolUseId,
        ...(ev.agentId ? { agent_id: ev.agentId } : {}),
        ...(ev.reasonType ? { decision_reason_type: ev.reasonType } : {}),
        message: ev.message,
        ...envelope(sessionId),
      };
    case 'compact_status':
      return {
        type: 'system',
        subtype: 'status',
        status: ev.status,
        ...(ev.result !== undefined ? { compact_result: ev.result } : {}),
        ...(ev.error !== undefined ? { compact_error: ev.error } : {}),
        ...envelope(sessionId),
      };
    case 'deferred_tools':
      return null; // context for the model; the transcript keeps it (transcriptLines.ts)
    case 'compact_boundary':
      return {
        type: 'system',
        subtype: 'compact_boundary',
        compact_metadata: { trigger: ev.trigger, pre_tokens: ev.preTokens },
        ...scoped,
        ...envelope(sessionId),
      };
  }
}

function initLine(i: SessionInit, sessionId: string): WireLine {
  return {
    type: 'system',
    subtype: 'init',
    cwd: i.cwd,
    tools: i.tools,
    mcp_servers: i.mcpServers,
    model: i.model,
    permissionMode: i.permissionMode,
    slash_commands: i.slashCommands,
    skills: i.skills,
    plugins: i.plugins,
    apiKeySource: i.apiKeySource,
    output_style: i.outputStyle,
    agents: i.agents,
    claude_code_version: i.version,
    capabilities: i.capabilities,
    ...(i.sandbox ? { sandbox: i.sandbox } : {}),
    ...envelope(sessionId),
  };
}

/** A turn's result line (also a refused resume's, which has no session to tell it: src/app/refusedResume.ts). */
export function resultLine(r: TurnResult, sessionId: string): ResultMessage {
  const { outcome } = r;
  const isError = isErrorResult(r);
  const reason = terminalReasonOf(outcome);
  return {
    type: 'result',
    subtype: outcome.subtype,
    is_error: isError,
    result: outcome.resultText,
    ...(isError ? { errors: outcome.errors } : {}),
    num_turns: outcome.numTurns,
    duration_ms: r.durationMs,
    duration_api_ms: outcome.durationApiMs,
    total_cost_usd: r.costUsd,
    usage: r.usage,
    modelUsage: r.modelUsage,
    permission_denials: r.permissionDenials,
    stop_reason: outcome.stopReason,
    ...(outcome.structuredOutput !== undefined ? { structured_output: outcome.structuredOutput } : {}),
    ...(reason ? { terminal_reason: reason } : {}),
    ...r.timing,
    ...envelope(sessionId),
  };
}

function taskLine(t: TaskEvent, sessionId: string): WireLine {
  switch (t.kind) {
    case 'started':
      return {
        type: 'system',
        subtype: 'task_started',
        task_id: t.taskId,
        tool_use_id: t.toolUseId,
        description: t.description,
        task_type: t.taskType,
        ...(t.subagentType !== undefined ? { subagent_type: t.subagentType } : {}),
        is_backgrounded: t.backgrounded,
        ...(t.spawnDepth !== undefined ? { spawn_depth: t.spawnDepth } : {}),
        ...(t.prompt !== undefined ? { prompt: t.prompt } : {}),
        ...(t.workflowName !== undefined ? { workflow_name: t.workflowName } : {}),
        ...envelope(sessionId),
      };
    case 'ended':
      return {
        type: 'system',
        subtype: 'task_updated',
        task_id: t.taskId,
        // The SDK's TaskState says `killed` for a stopped task (its notification still says `stopped`).
        patch: {
          status: t.status === 'stopped' ? 'killed' : t.status,
          end_time: t.endTime,
          ...(t.error !== undefined ? { error: t.error } : {}),
        },
        ...envelope(sessionId),
      };
    case 'backgrounded':
      return {
        type: 'system',
        subtype: 'task_updated',
        task_id: t.taskId,
        patch: { is_backgrounded: true },
        ...envelope(sessionId),
      };
    case 'notification':
      return {
        type: 'system',
        subtype: 'task_notification',
        task_id: t.taskId,
        tool_use_id: t.toolUseId,
        status: t.status,
        output_file: t.outputFile,
        summary: t.summary,
        ...(t.usage ? { usage: taskUsage(t.usage) } : {}),
        ...envelope(sessionId),
      };
    case 'progress':
      return {
        type: 'system',
        subtype: 'task_progress',
        task_id: t.taskId,
        tool_use_id: t.toolUseId,
        description: t.description,
        ...(t.subagentType !== undefined ? { subagent_type: t.subagentType } : {}),
        usage: taskUsage(t.usage),
        ...(t.lastToolName !== undefined ? { last_tool_name: t.lastToolName } : {}),
        ...(t.summary !== undefined ? { summary: t.summary } : {}),
        ...(t.workflowProgress !== undefined ? { workflow_progress: t.workflowProgress.map(workflowRow) } : {}),
        ...envelope(sessionId),
      };
    case 'live':
      return {
        type: 'system',
        subtype: 'background_tasks_changed',
        tasks: t.tasks.map((x) => ({
          task_id: x.taskId,
          task_type: x.taskType,
          ...(x.subagentType !== undefined ? { subagent_type: x.subagentType } : {}),
          description: x.description,
        })),
        ...envelope(sessionId),
      };
  }
}

/** A task's usage as the SDK names it (task_notification, task_progress). */
function taskUsage(u: TaskUsage): TaskUsageLine {
  return { total_tokens: u.totalTokens, tool_uses: u.toolUses, duration_ms: u.durationMs };
}

/**
 * A workflow progress row as task_progress carries it, built field by field, so a name the wire
 * schema does not have fails to compile (our extension: the wire keeps the domain's camelCase
 * names; an unset field is left out of the JSON).
 */
function workflowRow(r: WorkflowProgressRow): WorkflowProgressRowLine {
  if (r.type === 'workflow_phase') return { type: r.type, index: r.index, title: r.title };
  const { index, label, phaseIndex, phaseTitle, agentId, agentType, model, state, queuedAt, startedAt } = r;
  const { promptPreview, tokens, toolCalls, durationMs, resultPreview, error } = r;
  // One literal, not spreads: TypeScript checks a literal's names against the wire type.
  const line: WorkflowProgressRowLine = {
    type: r.type,
    index,
    label,
    phaseIndex,
    phaseTitle,
    agentId,
    agentType,
    model,
    state,
    queuedAt,
    startedAt,
    promptPreview,
    tokens,
    toolCalls,
    durationMs,
    resultPreview,
    error,
  };
  return line;
}

function teamLine(t: TeamEvent, sessionId: string): WireLine {
  switch (t.kind) {
    case 'problem':
      return { type: 'system', subtype: 'team_problem', message: t.message, ...envelope(sessionId) };
  }
}

function noticeLine(n: Notice, sessionId: string): WireLine {
  switch (n.subtype) {
    case 'prompt_blocked':
      return { type: 'system', subtype: 'prompt_blocked', reason: n.reason, ...envelope(sessionId) };
    case 'hook_system_message':
      return { type: 'system', subtype: 'hook_system_message', message: n.message, ...envelope(sessionId) };
    case 'error':
      return {
        type: 'system',
        subtype: 'error',
        error: n.error,
        ...(n.line !== undefined ? { line: n.line } : {}),
        ...envelope(sessionId),
      };
    case 'elicitation_complete':
      return {
        type: 'system',
        subtype: 'elicitation_complete',
        mcp_server_name: n.serverName,
        elicitation_id: n.elicitationId,
        ...envelope(sessionId),
      };
    case 'status':
      return {
        type: 'system',
        subtype: 'status',
        status: n.status,
        ...(n.permissionMode !== undefined ? { permissionMode: n.permissionMode } : {}),
        ...envelope(sessionId),
      };
    case 'files_persisted':
      return {
        type: 'system',
        subtype: 'files_persisted',
        files: n.backups.files,
        failed: n.backups.failed,
        processed_at: n.processedAt,
        ...envelope(sessionId),
      };
    case 'hook':
      return hookLine(n.event, sessionId);
  }
}

function hookLine(h: Extract<Notice, { subtype: 'hook' }>['event'], sessionId: string): WireLine {
  const who = { hook_id: h.hook.hookId, hook_name: h.hook.hookName, hook_event: h.hook.hookEvent };
  switch (h.kind) {
    case 'started':
      return { type: 'system', subtype: 'hook_started', ...who, ...envelope(sessionId) };
    case 'progress':
      return { type: 'system', subtype: 'hook_progress', ...who, ...h.output, ...envelope(sessionId) };
    case 'response':
      return {
        type: 'system',
        subtype: 'hook_response',
        ...who,
        ...h.output,
        ...(h.exitCode !== undefined ? { exit_code: h.exitCode } : {}),
        outcome: h.outcome,
        ...envelope(sessionId),
      };
  }
}
