// SendMessage: write to a teammate's (or the lead's) mailbox. Both spellings are accepted: today's
// `{to, message, summary?}` (to "*" broadcasts; `message` may be a shutdown object) and the agent
// teams' `{type, recipient, content, summary, request_id, approve}`. A message that could not be
// written is a failed call, never a false success.
import { z } from 'zod';
import { defineTool, ToolError } from './tool.js';
import { callerName, teamService, type OutgoingMessage } from './teamService.js';

const structuredMessage = z.object({
  type: z.enum(['shutdown_request', 'shutdown_response', 'plan_approval_response']),
  request_id: z.string().optional(),
  approve: z.boolean().optional(),
  reason: z.string().optional(),
  feedback: z.string().optional(),
});

export const sendMessageInputSchema = z.object({
  to: z.string().optional().describe('Recipient: a teammate\'s name, "team-lead" for the lead, or "*" for everyone'),
  message: z
    .union([z.string(), structuredMessage])
    .optional()
    .describe('The message text, or {type: "shutdown_request" | "shutdown_response", request_id?, approve?, reason?}'),
  type: z
    .enum(['message', 'broadcast', 'shutdown_request', 'shutdown_response', 'plan_approval_response'])
    .optional()
    .describe('Agent-teams spelling: what kind of message this is (default message)'),
  recipient: z.string().optional().describe("Agent-teams spelling: the recipient's name"),
  content: z
    .string()
    .optional()
    .describe('Agent-teams spelling: the text (or the reason of a shutdown request / refusal)'),
  summary: z.string().optional().describe('A 5-10 word preview of the message'),
  request_id: z.string().optional().describe('The request a shutdown_response or plan_approval_response answers'),
  approve: z
    .boolean()
    .optional()
    .describe('shutdown_response / plan_approval_response: approve (true) or refuse (false)'),
});
export type SendMessageInput = z.infer<typeof sendMessageInputSchema>;

function need<T>(value: T | undefined, field: string, kind: string): T {
  if (value === undefined || value === '') throw new ToolError(`SendMessage ${kind} needs \`${field}\``);
  return value;
}

/** Both spellings → one message. Throws a ToolError naming what is missing. */
export function normalizeSendMessage(input: SendMessageInput): OutgoingMessage {
  const to = input.to ?? input.recipient;
  const m = input.message;
  if (m !== undefined && typeof m === 'object') {
    if (m.type === 'shutdown_request')
      return { kind: 'shutdown_request', to: need(to, 'to', m.type), reason: m.reason };
    if (m.type === 'shutdown_response')
      return {
        kind: 'shutdown_response',
        requestId: need(m.request_id ?? input.request_id, 'request_id', m.type),
        approve: m.approve ?? input.approve ?? false,
        reason: m.reason,
      };
    return {
      kind: 'plan_approval_response',
      to: need(to, 'to', m.type),
      requestId: need(m.request_id ?? input.request_id, 'request_id', m.type),
      approve: m.approve ?? false,
      feedback: m.feedback,
    };
  }
  const text = typeof m === 'string' ? m : input.content;
  const type = input.type ?? (to === '*' ? 'broadcast' : 'message');
  switch (type) {
    case 'message':
      if (to === '*') return { kind: 'broadcast', text: need(text, 'content', 'broadcast'), summary: input.summary };
      return {
        kind: 'message',
        to: need(to, 'to', 'message'),
        text: need(text, 'message', 'message'),
        summary: input.summary,
      };
    case 'broadcast':
      return { kind: 'broadcast', text: need(text, 'content', 'broadcast'), summary: input.summary };
    case 'shutdown_request':
      return { kind: 'shutdown_request', to: need(to, 'recipient', type), reason: text };
    case 'shutdown_response':
      return {
        kind: 'shutdown_response',
        requestId: need(input.request_id, 'request_id', type),
        approve: need(input.approve, 'approve', type),
        reason: text,
      };
    case 'plan_approval_response':
      return {
        kind: 'plan_approval_response',
        to: need(to, 'recipient', type),
        requestId: need(input.request_id, 'request_id', type),
        approve: need(input.approve, 'approve', type),
        feedback: text,
      };
  }
}

export const SendMessageTool = defineTool({
  name: 'SendMessage',
  description: `Send a message to a teammate's mailbox, or to the lead ("team-lead"). The recipient reads it between its turns as a <teammate-message>; an idle teammate wakes up for it. Plain text is not seen by other agents: use this tool to talk to them.

- {to: "worker", message: "…", summary: "…"}: a message; to "*" broadcasts to every teammate.
- {to: "worker", message: {type: "shutdown_request", reason}}: ask a teammate to finish and shut down.
- {message: {type: "shutdown_response", request_id, approve: true}}: as a teammate, agree to shut down (false with a reason: keep working).
The agent-teams spelling {type: message|broadcast|shutdown_request|shutdown_response|plan_approval_response, recipient, content, summary, request_id, approve} is accepted too.`,
  inputSchema: sendMessageInputSchema,
  isReadOnly: () => true, // no change to the user's files: only the team's own state
  isConcurrencySafe: () => true,
  async *call(input, ctx) {
    return await teamService(ctx).send(callerName(ctx), normalizeSendMessage(input));
  },
});
