// Session events → protocol lines, in one place: what stdout carries and what the transcript keeps.
// Every line gets the session id and a fresh uuid here.
import { randomUUID } from '../util/ids.js';
import type { ResultMessage } from '../protocol/outbound.js';
import { isErrorResult, type Notice, type SessionEvent, type SessionInit, type TurnResult } from './events.js';
import { terminalReasonOf } from '../loop/events.js';

export function envelope(sessionId: string): { session_id: string; uuid: string } {
  return { session_id: sessionId, uuid: randomUUID() };
}

/** One protocol line: a JSON object with a `type`. */
export type WireLine = { type: string; [k: string]: unknown };

/** The protocol line for one session event, or null for events a host does not see in this mode. */
export function toWire(ev: SessionEvent, sessionId: string, includePartial: boolean): WireLine | null {
  switch (ev.type) {
    case 'init':
      return initLine(ev.init, sessionId);
    case 'result':
      return resultLine(ev.result, sessionId);
    case 'task':
    case 'team':
      return { ...ev.event, ...envelope(sessionId) };
    case 'notice':
      return { type: 'system', ...noticeFields(ev.notice), ...envelope(sessionId) };
    case 'prompt_suggestion':
      return { type: 'prompt_suggestion', suggestion: ev.suggestion, ...envelope(sessionId) };
  }
  const parent = ev.parentToolUseId;
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
    case 'system':
      // A subagent's system events (api_retry, …) say whose they are, like its other messages.
      return {
        type: 'system',
        subtype: ev.subtype,
        ...ev.fields,
        ...(parent ? { parent_tool_use_id: parent } : {}),
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

function resultLine(r: TurnResult, sessionId: string): ResultMessage {
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

function noticeFields(n: Notice): Record<string, unknown> {
  switch (n.subtype) {
    case 'hook_started':
    case 'hook_progress':
    case 'hook_response':
      return { subtype: n.subtype, ...n.fields };
    case 'elicitation_complete':
      return { subtype: n.subtype, mcp_server_name: n.serverName, elicitation_id: n.elicitationId };
    case 'files_persisted':
      return { subtype: n.subtype, files: n.backups.files, failed: n.backups.failed, processed_at: n.processedAt };
    default:
      return n;
  }
}
