// The text agents of a team read: `<teammate-message>` blocks, the structured notices (idle,
// shutdown request/answer) carried inside them as JSON, and the lead's wrap-up instruction when
// the host has closed its input.
import type { InboxMessage } from './mailbox.js';

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export function teammateMessage(from: string, text: string, summary?: string): string {
  return `<teammate-message teammate_id="${attr(from)}"${summary ? ` summary="${attr(summary)}"` : ''}>\n${text}\n</teammate-message>`;
}

/** Unread inbox messages as one user turn. */
export function inboxTurn(messages: InboxMessage[]): string {
  return messages.map((m) => teammateMessage(m.from, m.text, m.summary)).join('\n\n');
}

/** What a teammate's final text may carry into its idle notice. */
const IDLE_TEXT_CAP = 4000;

export function idleNotice(from: string, outcome: { ok: boolean; text: string }): string {
  const text = outcome.text.length > IDLE_TEXT_CAP ? `${outcome.text.slice(0, IDLE_TEXT_CAP)}… [cut]` : outcome.text;
  return JSON.stringify({
    type: 'idle_notification',
    from,
    timestamp: new Date().toISOString(),
    idleReason: outcome.ok ? 'available' : 'failed',
    ...(text ? { result: text } : {}),
  });
}

export function shutdownRequest(from: string, requestId: string, reason?: string): string {
  return JSON.stringify({
    type: 'shutdown_request',
    requestId,
    from,
    ...(reason ? { reason } : {}),
    instructions:
      'Finish or set aside your current step, then answer with SendMessage {message: {type: "shutdown_response", request_id, approve: true}} (or approve: false with a reason to keep working).',
  });
}

export function shutdownAnswer(from: string, requestId: string, approve: boolean, reason?: string): string {
  return JSON.stringify({
    type: approve ? 'shutdown_approved' : 'shutdown_rejected',
    requestId,
    from,
    ...(reason ? { reason } : {}),
  });
}

/**
 * The lead's last turn once the host has closed its input and every teammate is idle (the
 * reference's wording, with the tools named as this runtime offers them).
 */
export const SHUTDOWN_PROMPT = `You are running in non-interactive mode and cannot return a response
to the user until your team is shut down.

You MUST shut down your team before preparing your final response:
1. Use SendMessage with a shutdown_request to ask each team member to shut down gracefully
2. Wait for shutdown approvals
3. Use TeamDelete to clean up the team
4. Only then provide your final response to the user`;
