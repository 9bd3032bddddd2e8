// The inbox frames a process teammate and its lead use for a permission question and for plan
// approval: JSON carried in an inbox message's `text`. Shapes are the reference's (2.1.330, read
// from its code: docs/subagents-and-teams.md, "Permission questions"), and the older camelCase
// spelling that claude-code-controller reads and writes is carried beside them and accepted, so
// either kind of lead or teammate understands ours.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { permissionModeSchema } from '../permissions/modes.js';

export const PERMISSION_REQUEST = 'permission_request';
export const PERMISSION_RESPONSE = 'permission_response';
export const PLAN_APPROVAL_REQUEST = 'plan_approval_request';
export const PLAN_APPROVAL_RESPONSE = 'plan_approval_response';

/** A frame's JSON object and its `type`, or undefined for plain text. */
export function frameOf(text: string): { type: string; body: Record<string, unknown> } | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const body = JSON.parse(text);
    if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.type !== 'string') return undefined;
    return { type: body.type, body };
  } catch {
    return undefined;
  }
}

/** The request id a frame names, in either spelling. */
export function frameRequestId(body: Record<string, unknown>): string | undefined {
  const id = body.request_id ?? body.requestId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Which call an answer approves: the reference binds it by id, name and a digest of the input. */
export interface ApprovedRequest {
  tool_use_id: string;
  tool_name: string;
  input_digest: string;
}

function sortKeys(v: unknown, depth = 0): unknown {
  if (depth > 32) return v;
  if (Array.isArray(v)) return v.map((x) => sortKeys(x, depth + 1));
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x, depth + 1)]),
    );
  return v;
}

/** sha256 of the tool's name, a NUL, and the input as JSON with its keys sorted (the reference's recipe). */
export function inputDigest(toolName: string, input: unknown): string {
  const plain = JSON.parse(JSON.stringify(input ?? null));
  return createHash('sha256')
    .update(toolName)
    .update('\x00')
    .update(JSON.stringify(sortKeys(plain)))
    .digest('hex');
}

// ---- permission_request (teammate → lead) ----

export interface PermissionQuestion {
  requestId: string;
  /** The teammate's name (the inbox message's `from`). */
  from: string;
  /** Its `name@team`. */
  agentId: string;
  color?: string;
  toolName: string;
  toolUseId: string;
  description: string;
  input: unknown;
  suggestions: unknown[];
}

export function permissionRequestFrame(q: PermissionQuestion): string {
  return JSON.stringify({
    type: PERMISSION_REQUEST,
    request_id: q.requestId,
    agent_id: q.from,
    tool_name: q.toolName,
    tool_use_id: q.toolUseId,
    description: q.description,
    input: q.input,
    permission_suggestions: q.suggestions,
    // The older spelling (claude-code-controller's PermissionRequestMessage).
    requestId: q.requestId,
    from: q.from,
    workerId: q.agentId,
    workerName: q.from,
    ...(q.color ? { workerColor: q.color } : {}),
    toolName: q.toolName,
    toolUseId: q.toolUseId,
    timestamp: new Date().toISOString(),
  });
}

const requestSchema = lazySchema(() =>
  z.looseObject({
    request_id: z.string().min(1).optional(),
    requestId: z.string().min(1).optional(),
    agent_id: z.string().optional(),
    workerName: z.string().optional(),
    tool_name: z.string().min(1).optional(),
    toolName: z.string().min(1).optional(),
    tool_use_id: z.string().optional(),
    toolUseId: z.string().optional(),
    description: z.string().optional(),
    input: z.unknown().optional(),
    permission_suggestions: z.array(z.unknown()).optional(),
  }),
);

/** A permission_request read in either spelling, or the reason it cannot be used. */
export function parsePermissionRequest(
  body: Record<string, unknown>,
):
  | { ok: true; q: Omit<PermissionQuestion, 'from' | 'agentId' | 'color'> & { agent?: string } }
  | { ok: false; why: string } {
  const r = requestSchema.safeParse(body);
  if (!r.success) return { ok: false, why: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const d = r.data;
  const requestId = d.request_id ?? d.requestId;
  const toolName = d.tool_name ?? d.toolName;
  if (!requestId) return { ok: false, why: 'no request_id' };
  if (!toolName) return { ok: false, why: 'no tool_name' };
  const input = d.input && typeof d.input === 'object' && !Array.isArray(d.input) ? d.input : {};
  return {
    ok: true,
    q: {
      requestId,
      toolName,
      toolUseId: d.tool_use_id ?? d.toolUseId ?? '',
      description: d.description ?? '',
      input,
      suggestions: d.permission_suggestions ?? [],
      ...((d.agent_id ?? d.workerName) ? { agent: d.agent_id ?? d.workerName } : {}),
    },
  };
}

// ---- permission_response (lead → teammate) ----

export type PermissionVerdict =
  | {
      allow: true;
      updatedInput?: Record<string, unknown>;
      permissionUpdates?: unknown[];
      approvedRequest?: ApprovedRequest;
    }
  | { allow: false; message?: string; approvedRequest?: ApprovedRequest };

export function permissionResponseFrame(
  lead: string,
  requestId: string,
  toolUseId: string,
  approved: ApprovedRequest,
  v: PermissionVerdict,
): string {
  const base = {
    type: PERMISSION_RESPONSE,
    request_id: requestId,
    tool_use_id: toolUseId,
    approved_request: approved,
  };
  const older = { requestId, from: lead, approved: v.allow, timestamp: new Date().toISOString() };
  if (v.allow)
    return JSON.stringify({
      ...base,
      subtype: 'success',
      response: {
        ...(v.updatedInput ? { updated_input: v.updatedInput } : {}),
        ...(v.permissionUpdates?.length ? { permission_updates: v.permissionUpdates } : {}),
      },
      ...older,
    });
  const error = v.message || 'Permission denied';
  return JSON.stringify({ ...base, subtype: 'error', error, ...older, feedback: error });
}

const approvedRequestSchema = lazySchema(() =>
  z.object({ tool_use_id: z.string(), tool_name: z.string(), input_digest: z.string() }),
);

// The reference's schema (2.1.330): a discriminated union on `subtype`.
const currentResponseSchema = lazySchema(() =>
  z.discriminatedUnion('subtype', [
    z.looseObject({
      subtype: z.literal('success'),
      request_id: z.string().min(1),
      tool_use_id: z.string().optional(),
      approved_request: approvedRequestSchema.optional(),
      response: z
        .object({
          updated_input: z.record(z.string(), z.unknown()).optional(),
          permission_updates: z.array(z.unknown()).optional(),
        })
        .optional(),
    }),
    z.looseObject({
      subtype: z.literal('error'),
      request_id: z.string().min(1),
      tool_use_id: z.string().optional(),
      approved_request: approvedRequestSchema.optional(),
      error: z.string(),
    }),
  ]),
);

// claude-code-controller's PermissionResponseMessage: {requestId, approved}.
const olderResponseSchema = lazySchema(() =>
  z.looseObject({
    requestId: z.string().min(1),
    approved: z.boolean(),
    feedback: z.string().optional(),
  }),
);

/** A permission_response in either spelling, or what is wrong with it. */
export function parsePermissionResponse(
  body: Record<string, unknown>,
): { ok: true; verdict: PermissionVerdict } | { ok: false; why: string } {
  if (body.subtype !== undefined) {
    const r = currentResponseSchema.safeParse(body);
    if (!r.success)
      return { ok: false, why: r.error.issues.map((i) => `${i.path.join('.') || 'subtype'}: ${i.message}`).join('; ') };
    const d = r.data;
    const approvedRequest = d.approved_request;
    if (d.subtype === 'error')
      return { ok: true, verdict: { allow: false, message: d.error, ...(approvedRequest ? { approvedRequest } : {}) } };
    return {
      ok: true,
      verdict: {
        allow: true,
        ...(d.response?.updated_input ? { updatedInput: d.response.updated_input } : {}),
        ...(d.response?.permission_updates ? { permissionUpdates: d.response.permission_updates } : {}),
        ...(approvedRequest ? { approvedRequest } : {}),
      },
    };
  }
  const r = olderResponseSchema.safeParse(body);
  if (!r.success)
    return {
      ok: false,
      why: `neither subtype ("success" | "error") nor approved (a boolean): ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  return r.data.approved
    ? { ok: true, verdict: { allow: true } }
    : { ok: true, verdict: { allow: false, ...(r.data.feedback ? { message: r.data.feedback } : {}) } };
}

// ---- plan approval ----

export function planApprovalRequestFrame(from: string, requestId: string, plan: string, planFilePath = ''): string {
  return JSON.stringify({
    type: PLAN_APPROVAL_REQUEST,
    from,
    timestamp: new Date().toISOString(),
    planFilePath,
    planContent: plan,
    requestId,
  });
}

const planRequestSchema = lazySchema(() =>
  z.looseObject({
    requestId: z.string().min(1),
    planContent: z.string().optional(),
  }),
);

export function parsePlanApprovalRequest(
  body: Record<string, unknown>,
): { ok: true; requestId: string; plan: string } | { ok: false; why: string } {
  const r = planRequestSchema.safeParse(body);
  if (!r.success) return { ok: false, why: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, requestId: r.data.requestId, plan: r.data.planContent ?? '' };
}

export function planApprovalResponseFrame(
  from: string,
  requestId: string,
  approved: boolean,
  feedback?: string,
  permissionMode?: string,
): string {
  return JSON.stringify({
    type: PLAN_APPROVAL_RESPONSE,
    requestId,
    from,
    approved,
    ...(feedback ? { feedback } : {}),
    timestamp: new Date().toISOString(),
    ...(permissionMode ? { permissionMode } : {}),
  });
}

const planResponseSchema = lazySchema(() =>
  z.looseObject({
    requestId: z.string().min(1),
    approved: z.boolean(),
    feedback: z.string().optional(),
    permissionMode: permissionModeSchema.optional(),
  }),
);

export function parsePlanApprovalResponse(
  body: Record<string, unknown>,
):
  | { ok: true; approved: boolean; feedback?: string; permissionMode?: z.infer<typeof permissionModeSchema> }
  | { ok: false; why: string } {
  const r = planResponseSchema.safeParse(body);
  if (!r.success) return { ok: false, why: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return {
    ok: true,
    approved: r.data.approved,
    ...(r.data.feedback ? { feedback: r.data.feedback } : {}),
    ...(r.data.permissionMode ? { permissionMode: r.data.permissionMode } : {}),
  };
}
