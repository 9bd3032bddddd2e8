// A process teammate's permission questions go to its lead: the question is a permission_request
// (ExitPlanMode's: a plan_approval_request) in the lead's inbox, the lead named by config.json at
// the time of asking, and the answer is the matching response in the teammate's own inbox. The
// wait is bounded (AGENT_PERMISSION_TIMEOUT_MS, as a host's can_use_tool), and ends early on an
// interrupt or when the lead's shutdown request arrives; every way it ends without an allow is a
// deny whose message says why. This is the teammate process's askHost (src/modes/teammate.ts).
import type { AskHostAnswer, AskHostRequest } from '../loop/toolPipeline.js';
import { randomHex } from '../util/ids.js';
import type { InboxMessage, Mailbox } from './mailbox.js';
import {
  frameOf,
  frameRequestId,
  inputDigest,
  PERMISSION_RESPONSE,
  PLAN_APPROVAL_RESPONSE,
  parsePermissionResponse,
  parsePlanApprovalResponse,
  permissionRequestFrame,
  planApprovalRequestFrame,
} from './permissionFrames.js';
import type { TeammateIdentity } from './teammateFlags.js';
import { permissionTimeoutMs } from '../permissions/timeout.js';

export interface LeadRelayDeps {
  mailbox: Mailbox;
  me: TeammateIdentity;
  /** The lead's name as config.json says it now (throws when the team file cannot be read). */
  lead: () => string;
  /** How long a question waits for its answer (default: AGENT_PERMISSION_TIMEOUT_MS, else 10 minutes). */
  timeoutMs?: number;
  /** How often the teammate's inbox is looked at while it waits. */
  pollMs?: number;
  onProblem: (text: string) => void;
}

export interface LeadRelay {
  /** The teammate's askHost. */
  ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer>;
  /** An answer frame that reached the inbox after its question was settled: dropped (and told), never a turn. */
  absorbs(m: InboxMessage): boolean;
}

const DEFAULT_POLL_MS = 200;
export const PLAN_TOOL = 'ExitPlanMode';

export function createLeadRelay(d: LeadRelayDeps): LeadRelay {
  const pollMs = d.pollMs ?? DEFAULT_POLL_MS;
  const { me, mailbox } = d;

  async function ask(req: AskHostRequest, signal: AbortSignal): Promise<AskHostAnswer> {
    const tool = req.tool_name;
    let lead: string;
    try {
      lead = d.lead();
    } catch (err) {
      return deny(`${tool} needs permission, and the team lead could not be asked: ${(err as Error).message}`);
    }
    const plan = tool === PLAN_TOOL;
    const requestId = `${plan ? 'plan' : 'perm'}-${Date.now()}-${randomHex(4)}`;
    const input = (req.input ?? {}) as Record<string, unknown>;
    const text = plan
      ? planApprovalRequestFrame(me.name, requestId, typeof input.plan === 'string' ? input.plan : '')
      : permissionRequestFrame({
          requestId,
          from: me.name,
          agentId: me.agentId,
          ...(me.color ? { color: me.color } : {}),
          toolName: tool,
          toolUseId: req.tool_use_id,
          description: req.description ?? req.decision_reason ?? '',
          input,
          suggestions: req.permission_suggestions ?? [],
        });
    try {
      await mailbox.deliver(lead, {
        from: me.name,
        text,
        summary: plan ? 'plan approval request' : `permission request: ${tool}`,
        ...(me.color ? { color: me.color } : {}),
      });
    } catch (err) {
      return deny(
        `${tool} needs permission, and the question could not be put in the team lead "${lead}"'s inbox: ${(err as Error).message}`,
      );
    }
    const wanted = plan ? PLAN_APPROVAL_RESPONSE : PERMISSION_RESPONSE;
    const timeoutMs = d.timeoutMs ?? permissionTimeoutMs();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal.aborted)
        return { behavior: 'deny', interrupt: true, message: `Interrupted while waiting for "${lead}" to answer.` };
      let answer: InboxMessage | undefined;
      try {
        [answer] = await mailbox.takeWhere(me.name, (m) => {
          const f = m.from === lead ? frameOf(m.text) : undefined;
          return f?.type === wanted && frameRequestId(f.body) === requestId;
        });
      } catch (err) {
        d.onProblem(`cannot read its inbox while waiting for the lead's answer: ${(err as Error).message}`);
      }
      if (answer) return plan ? planAnswer(lead, answer) : permissionAnswer(lead, req, answer);
      if (shutdownWaiting(lead))
        return deny(
          `The team lead "${lead}" asked this teammate to shut down while it waited for permission to use ${tool}; the call was not made. Answer the shutdown request.`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        return deny(
          `The team lead "${lead}" did not answer the permission request for ${tool} within ${Math.round(timeoutMs / 1000)} s, so the call was not made. Ask the lead with SendMessage if it is still needed.`,
        );
      await sleep(Math.min(pollMs, left), signal);
    }
  }

  /** An unread shutdown request from the lead ends the wait (it stays unread for the next turn). */
  function shutdownWaiting(lead: string): boolean {
    try {
      return mailbox
        .all(me.name)
        .some((m) => !m.read && m.from === lead && frameOf(m.text)?.type === 'shutdown_request');
    } catch {
      return false;
    }
  }

  function permissionAnswer(lead: string, req: AskHostRequest, m: InboxMessage): AskHostAnswer {
    const tool = req.tool_name;
    const parsed = parsePermissionResponse(frameOf(m.text)!.body);
    if (!parsed.ok)
      return deny(
        `The team lead "${lead}"'s answer to the permission request for ${tool} is malformed (${parsed.why}), so the call was not made.`,
      );
    const v = parsed.verdict;
    const bound = v.approvedRequest;
    if (
      bound &&
      (bound.tool_use_id !== req.tool_use_id ||
        bound.tool_name !== tool ||
        bound.input_digest !== inputDigest(tool, req.input))
    )
      return deny(
        `The team lead "${lead}"'s ${v.allow ? 'approval' : 'denial'} described another call (${bound.tool_name} ${bound.tool_use_id}), not this ${tool} call, so it was not used and the call was not made.`,
      );
    if (!v.allow)
      return deny(`The team lead "${lead}" denied permission to use ${tool}${v.message ? `: ${v.message}` : '.'}`);
    const updated = v.updatedInput && Object.keys(v.updatedInput).length > 0 ? v.updatedInput : undefined;
    return {
      behavior: 'allow',
      ...(updated ? { updatedInput: updated } : {}),
      ...(v.permissionUpdates?.length ? { updatedPermissions: v.permissionUpdates } : {}),
    };
  }

  function planAnswer(lead: string, m: InboxMessage): AskHostAnswer {
    const parsed = parsePlanApprovalResponse(frameOf(m.text)!.body);
    if (!parsed.ok)
      return deny(
        `The team lead "${lead}"'s answer to the plan approval request is malformed (${parsed.why}); the plan is not approved.`,
      );
    if (!parsed.approved)
      return deny(
        `The team lead "${lead}" did not approve the plan${parsed.feedback ? `: ${parsed.feedback}` : '.'} Stay in plan mode, revise the plan and call ${PLAN_TOOL} again.`,
      );
    // The lead may choose the mode the teammate works in next (the reference's permissionMode).
    return {
      behavior: 'allow',
      ...(parsed.permissionMode && parsed.permissionMode !== 'plan'
        ? { updatedPermissions: [{ type: 'setMode', mode: parsed.permissionMode, destination: 'session' }] }
        : {}),
    };
  }

  function absorbs(m: InboxMessage): boolean {
    const type = frameOf(m.text)?.type;
    if (type !== PERMISSION_RESPONSE && type !== PLAN_APPROVAL_RESPONSE) return false;
    d.onProblem(`dropped a ${type} from "${m.from}" that answers no question it is waiting on`);
    return true;
  }

  return { ask, absorbs };
}

function deny(message: string): AskHostAnswer {
  return { behavior: 'deny', message };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
