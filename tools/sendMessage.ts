// SendMessage: write to a teammate's (or the lead's) mailbox. Both spellings are accepted: today's
// `{to, message, summary?}` (to "*" broadcasts; `message` may be a shutdown object) and the agent
// teams' `{type, recipient, content, summary, request_id, approve}`. A message that could not be
// written is a failed call, never a false success.
import { z } from 'zod';
import { lazySchema } from '../src/util/lazySchema.js';
import { defineTool, ToolError, type ToolContext, type ToolResult } from './tool.js';
import { callerName, TEAM_LEAD, teamService, type OutgoingMessage } from './teamService.js';

const structuredMessage = lazySchema(() =>
  z.object({
    type: z.enum(['shutdown_request', 'shutdown_response', 'plan_approval_response']),
    request_id: z.string().optional(),
    approve: z.boolean().optional(),
    reason: z.string().optional(),
    feedback: z.string().optional(),
  }),
);

export const sendMessageInputSchema = lazySchema(() =>
  z.object({
    to: z
      .string()
      .optional()
      .describe(
        'Recipient: a teammate\'s name, "team-lead" for the lead, "*" for every teammate, or another local session\'s name from ListAgents (with " [ref]" only when needed)',
      ),
    message: z
      .union([z.string(), structuredMessage])
      .optional()
      .describe(
        'The message text, or {type: "shutdown_request" | "shutdown_response", request_id?, approve?, reason?}',
      ),
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
  }),
);
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
  deferred: true,
  description: `Send a message to a teammate's mailbox, to the lead ("team-lead"), or to another session of the user on this machine (a name ListAgents lists). A teammate reads it between its turns as a <teammate-message>, and an idle teammate wakes up for it; a session reads it as a <cross-session-message>, and answers (if it does) with one of its own: to reply to one, send to its from attribute. Plain text is not seen by other agents: use this tool to talk to them. A team member wins over a session of the same name.

- {to: "worker", message: "…", summary: "…"}: a message; to "*" broadcasts to every teammate.
- {to: "worker", message: {type: "shutdown_request", reason}}: ask a teammate to finish and shut down.
- {message: {type: "shutdown_response", request_id, approve: true}}: as a teammate, agree to shut down (false with a reason: keep working).
The agent-teams spelling {type: message|broadcast|shutdown_request|shutdown_response|plan_approval_response, recipient, content, summary, request_id, approve} is accepted too.`,
  inputSchema: sendMessageInputSchema,
  isReadOnly: () => true, // no change to the user's files: only the team's own state
  isConcurrencySafe: () => true,
  async *call(input, ctx) {
    const message = normalizeSendMessage(input);
    if (message.kind === 'message') {
      const sent = await sendToSession(message.to, message.text, ctx);
      if (sent) return sent;
    }
    return await teamService(ctx).send(callerName(ctx), message);
  },
});

/**
 * A message to another local session (ListAgents' rows), when `to` names one and no team member:
 * the result, or undefined to leave it to the team.
 */
async function sendToSession(to: string, text: string, ctx: ToolContext): Promise<ToolResult | undefined> {
  const peers = ctx.services?.peers;
  if (!peers) return undefined;
  // A team member (or the lead) of that name wins over a session.
  if (to === TEAM_LEAD || ctx.services?.team?.list().agents.some((a) => a.name === to)) return undefined;
  let peer: ReturnType<typeof peers.resolve>;
  try {
    peer = peers.resolve(to);
  } catch (err) {
    throw new ToolError((err as Error).message);
  }
  if (!peer) return undefined;
  try {
    await peers.send(peer, text);
  } catch (err) {
    throw new ToolError(`Not delivered to ${peer.name} [${peer.ref}]: ${(err as Error).message}`);
  }
  const address = `${peer.name} [${peer.ref}]`;
  return {
    content: `Delivered to the session ${address} (${peer.cwd}). It reads it when it next pauses between turns; delivery does not mean it acted on it. A reply comes as a <cross-session-message> from it.`,
    data: {
      success: true,
      message: `Message sent to session ${address}`,
      routing: { target: address, sessionId: peer.sessionId },
    },
  };
}
