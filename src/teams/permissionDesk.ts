// The lead's side of its process teammates' permission questions: a permission_request (or a
// plan_approval_request) in the lead's inbox from one of its own process teammates is answered the
// way the lead answers its own questions (leadAnswer.ts: its rules and mode, then its host's
// can_use_tool naming the teammate, or the terminal's dialog), and the answer goes to the
// teammate's inbox in the reference's frame. Questions are taken from the inbox as they arrive
// (a poll while process teammates live), also in the middle of the lead's turn, and never reach
// the lead's model; a plan with nobody to ask does, and the model answers it with SendMessage.
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import type { InboxMessage, Mailbox } from './mailbox.js';
import {
  frameOf,
  inputDigest,
  PERMISSION_REQUEST,
  PLAN_APPROVAL_REQUEST,
  parsePermissionRequest,
  parsePlanApprovalRequest,
  permissionResponseFrame,
  planApprovalResponseFrame,
} from './permissionFrames.js';

/**
 * How the lead answers a question; undefined when it has nobody to ask (no host answering
 * can_use_tool, no terminal) and its rules did not settle it.
 */
export type TeammateQuestionAnswerer = (
  req: AskHostRequest & { agent_id: string },
  signal: AbortSignal,
) => Promise<AskHostAnswer | undefined>;

export interface PermissionDeskDeps {
  mailbox: Mailbox;
  /** The lead's name (its inbox) and its team's. */
  lead: string;
  team: string;
  /** A live process teammate of this lead (only they may ask). */
  isProcessTeammate: (name: string) => boolean;
  answerer: () => TeammateQuestionAnswerer | undefined;
  onProblem: (text: string) => void;
}

const POLL_MS = 250;

export class PermissionDesk {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<string>();
  private readonly abort = new AbortController();

  constructor(private readonly d: PermissionDeskDeps) {}

  /** Look at the lead's inbox for questions from now on. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Stop looking, and give up the questions still being asked (their teammates time out). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.abort.abort();
  }

  /** The lead's mail less the questions, which are answered here. */
  take(mail: InboxMessage[]): InboxMessage[] {
    return mail.filter((m) => !this.mine(m) || !this.handle(m));
  }

  private async poll(): Promise<void> {
    const { mailbox, lead } = this.d;
    try {
      if (!mailbox.hasUnreadSafe(lead)) return;
      const asked = await mailbox.takeWhere(lead, (m) => this.mine(m) && this.canAnswer(m));
      for (const m of asked) this.handle(m);
    } catch (err) {
      this.d.onProblem(`cannot read the lead's inbox for teammates' permission questions: ${(err as Error).message}`);
    }
  }

  private mine(m: InboxMessage): boolean {
    const type = frameOf(m.text)?.type;
    return (type === PERMISSION_REQUEST || type === PLAN_APPROVAL_REQUEST) && this.d.isProcessTeammate(m.from);
  }

  /** A plan with nobody to ask stays in the inbox for the lead's model. */
  private canAnswer(m: InboxMessage): boolean {
    return frameOf(m.text)?.type === PERMISSION_REQUEST || this.d.answerer() !== undefined;
  }

  /** Starts answering `m`; false when it is left to the lead's model. */
  private handle(m: InboxMessage): boolean {
    if (!this.canAnswer(m)) return false;
    void this.answer(m).catch((err) =>
      this.d.onProblem(`could not answer ${m.from}'s question: ${(err as Error).message}`),
    );
    return true;
  }

  private async answer(m: InboxMessage): Promise<void> {
    const { lead, team, mailbox } = this.d;
    const frame = frameOf(m.text)!;
    const agentId = `${m.from}@${team}`;
    const ask = this.d.answerer();
    const reply = (text: string) => mailbox.deliver(m.from, { from: lead, text });
    if (frame.type === PLAN_APPROVAL_REQUEST) {
      const p = parsePlanApprovalRequest(frame.body);
      if (!p.ok) return this.d.onProblem(`${m.from} sent a malformed plan_approval_request (${p.why}); not answered`);
      const key = `plan:${m.from}:${p.requestId}`;
      if (this.inFlight.has(key) || !ask) return;
      this.inFlight.add(key);
      try {
        const a = await this.ask(ask, {
          tool_name: 'ExitPlanMode',
          display_name: 'ExitPlanMode',
          input: { plan: p.plan },
          tool_use_id: p.requestId,
          agent_id: agentId,
          description: `${m.from} asks to leave plan mode with this plan`,
        });
        const mode = a?.behavior === 'allow' ? chosenMode(a.updatedPermissions) : undefined;
        await reply(
          a?.behavior === 'allow'
            ? planApprovalResponseFrame(lead, p.requestId, true, undefined, mode)
            : planApprovalResponseFrame(lead, p.requestId, false, a?.message ?? 'The lead had nobody to ask.'),
        );
      } finally {
        this.inFlight.delete(key);
      }
      return;
    }
    const q = parsePermissionRequest(frame.body);
    if (!q.ok) return this.d.onProblem(`${m.from} sent a malformed permission_request (${q.why}); not answered`);
    const { requestId, toolName, toolUseId, input } = q.q;
    const bound = { tool_use_id: toolUseId, tool_name: toolName, input_digest: inputDigest(toolName, input) };
    if (q.q.agent !== undefined && q.q.agent !== m.from) {
      // The reference drops such a question; ours answers it with a denial, so the asker is not left waiting.
      await reply(
        permissionResponseFrame(lead, requestId, toolUseId, bound, {
          allow: false,
          message: `the question names "${q.q.agent}" as its asker but came from "${m.from}"`,
        }),
      );
      return;
    }
    const key = `perm:${m.from}:${requestId}`;
    if (this.inFlight.has(key)) return;
    this.inFlight.add(key);
    try {
      const a = ask
        ? await this.ask(ask, {
            tool_name: toolName,
            display_name: toolName,
            input,
            tool_use_id: toolUseId,
            agent_id: agentId,
            ...(q.q.description ? { description: q.q.description } : {}),
            ...(q.q.suggestions.length ? { permission_suggestions: q.q.suggestions as never } : {}),
          })
        : undefined;
      const verdict =
        a?.behavior === 'allow'
          ? {
              allow: true as const,
              ...(a.updatedInput ? { updatedInput: a.updatedInput } : {}),
              ...(a.updatedPermissions?.length ? { permissionUpdates: a.updatedPermissions } : {}),
            }
          : {
              allow: false as const,
              message:
                a?.message ??
                `the lead "${lead}" has nobody to ask (no host answering can_use_tool, no terminal) and its rules do not allow ${toolName}`,
            };
      await reply(permissionResponseFrame(lead, requestId, toolUseId, bound, verdict));
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async ask(
    ask: TeammateQuestionAnswerer,
    req: AskHostRequest & { agent_id: string },
  ): Promise<AskHostAnswer | undefined> {
    try {
      return await ask(req, this.abort.signal);
    } catch (err) {
      return { behavior: 'deny', message: `the lead could not get an answer: ${(err as Error).message}` };
    }
  }
}

/** The mode a host's answer to a plan chose (a setMode update), if any. */
function chosenMode(updates: unknown[] | undefined): string | undefined {
  for (const u of updates ?? []) {
    const v = u as { type?: unknown; mode?: unknown };
    if (v?.type === 'setMode' && typeof v.mode === 'string' && v.mode !== 'plan') return v.mode;
  }
  return undefined;
}
