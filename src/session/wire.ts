// Loop events → protocol lines. Every line gets the session id and a fresh uuid here, in one place.
import { randomUUID } from 'node:crypto';
import type { LoopEvent } from '../loop/events.js';

export function envelope(sessionId: string): { session_id: string; uuid: string } {
  return { session_id: sessionId, uuid: randomUUID() };
}

/** The protocol line for one loop event, or null for events a host does not see in this mode. */
export function toWire(ev: LoopEvent, sessionId: string, includePartial: boolean): object | null {
  const parent = ev.parentToolUseId;
  switch (ev.type) {
    case 'stream_event':
      return includePartial ? { type: 'stream_event', event: ev.event, parent_tool_use_id: parent, ...envelope(sessionId) } : null;
    case 'assistant':
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
      return { type: 'system', subtype: ev.subtype, ...ev.fields, ...(parent ? { parent_tool_use_id: parent } : {}), ...envelope(sessionId) };
  }
}
