// What the team e2e files' scripted fake API reads in a request: who asks (the lead or which
// teammate), which tool call the request answers, and a teammate's approval of a shutdown request.
import { lastToolResults, type RecordedRequest, type ScriptedReply, systemText, toolUse } from '../fake-api/server.js';

/** Which teammate a request is from (its system prompt names it), or null for the lead. */
export function teammateOf(req: RecordedRequest): string | null {
  return /You are "([^"]+)", a member of the agent team/.exec(systemText(req))?.[1] ?? null;
}

/** The tool call the request answers (the previous assistant message's tool_use), if any. */
export function answeredCall(req: RecordedRequest): { name: string; input: any } | undefined {
  const messages: any[] = req.body.messages;
  const prev = messages[messages.length - 2];
  if (prev?.role !== 'assistant' || !lastToolResults(req).length) return undefined;
  return prev.content.find((b: any) => b.type === 'tool_use');
}

/** A teammate's approval when `said` (its latest turn) holds a shutdown request; else undefined. */
export function approveShutdown(said: string): ScriptedReply | undefined {
  const request = /"type":"shutdown_request","requestId":"([^"]+)"/.exec(said);
  if (!request) return undefined;
  return toolUse('SendMessage', { message: { type: 'shutdown_response', request_id: request[1], approve: true } });
}
