// An MCP server's `elicitation/create` (form or url mode) answered for the session: Elicitation
// hooks first (they may accept or decline it themselves), else the host through an `elicitation`
// control request (the SDK's onElicitation; without one the SDK declines), then ElicitationResult
// hooks, which may override the answer before it goes back to the server. With nobody to ask (no
// host, or the host gone) the answer is a decline, told on stderr — never a hang.
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export type ElicitAction = 'accept' | 'decline' | 'cancel';
export interface ElicitAnswer {
  action: ElicitAction;
  content?: Record<string, unknown>;
}

/** What the Elicitation / ElicitationResult hooks see (sdk.d.ts ElicitationHookInput). */
export interface ElicitationHookFields {
  mcp_server_name: string;
  message: string;
  mode: 'form' | 'url';
  url?: string;
  elicitation_id?: string;
  requested_schema?: Record<string, unknown>;
}

export interface ElicitationDeps {
  /** Sends the `elicitation` control request; undefined when this session has no host. */
  askHost?: (payload: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;
  /** Elicitation hooks: an answer when one of them decided. */
  hook?: (fields: ElicitationHookFields, signal: AbortSignal) => Promise<ElicitAnswer | undefined>;
  /** ElicitationResult hooks: an override of the answer, if any. */
  resultHook?: (fields: ElicitationHookFields & ElicitAnswer, signal: AbortSignal) => Promise<ElicitAnswer | undefined>;
  /** The answer when nobody can be asked: decline, or cancel with --permission-prompts none. */
  unanswered?: 'decline' | 'cancel';
  log: (line: string) => void;
}

const answerSchema = lazySchema(() =>
  z.object({
    action: z.enum(['accept', 'decline', 'cancel'], { error: 'action must be accept, decline or cancel' }),
    content: z.record(z.string(), z.unknown(), { error: 'content must be an object' }).optional(),
  }),
);

/** The request handler for one server's elicitation/create. */
export function elicitationHandler(serverName: string, deps: ElicitationDeps) {
  return async (request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> => {
    const p = request.params as Record<string, unknown>;
    const mode = p.mode === 'url' ? 'url' : 'form';
    const fields: ElicitationHookFields = {
      mcp_server_name: serverName,
      message: String(p.message ?? ''),
      mode,
      ...(typeof p.url === 'string' ? { url: p.url } : {}),
      ...(typeof p.elicitationId === 'string' ? { elicitation_id: p.elicitationId } : {}),
      ...(p.requestedSchema && typeof p.requestedSchema === 'object'
        ? { requested_schema: p.requestedSchema as Record<string, unknown> }
        : {}),
    };
    let answer = deps.hook ? await deps.hook(fields, signal) : undefined;
    if (!answer) answer = await askHost(serverName, fields, p, deps, signal);
    const override = deps.resultHook ? await deps.resultHook({ ...fields, ...answer }, signal) : undefined;
    if (override)
      answer = {
        action: override.action,
        ...(override.content
          ? { content: override.content }
          : override.action === answer.action && answer.content
            ? { content: answer.content }
            : {}),
      };
    // Content goes back only with accept (the MCP schema's rule).
    return answer.action === 'accept' && answer.content
      ? { action: 'accept', content: answer.content as ElicitResult['content'] }
      : { action: answer.action };
  };
}

async function askHost(
  serverName: string,
  fields: ElicitationHookFields,
  p: Record<string, unknown>,
  deps: ElicitationDeps,
  signal: AbortSignal,
): Promise<ElicitAnswer> {
  if (!deps.askHost) {
    const action = deps.unanswered ?? 'decline';
    deps.log(
      `agent: MCP server "${serverName}" asked for input (${fields.mode}: ${JSON.stringify(fields.message.slice(0, 120))}); answered ${action}: no host or hook can answer in this session`,
    );
    return { action };
  }
  const display = displayOf(p._meta);
  const schema = fields.requested_schema as { properties?: unknown } | undefined;
  const payload = {
    ...fields,
    ...(schema?.properties && typeof schema.properties === 'object'
      ? { property_order: Object.keys(schema.properties) }
      : {}),
    ...display,
  };
  let raw: unknown;
  try {
    raw = await deps.askHost(payload, signal);
  } catch (err) {
    if (signal.aborted) return { action: 'cancel' };
    deps.log(`agent: MCP server "${serverName}" asked for input; declined: ${(err as Error).message}`);
    return { action: 'decline' };
  }
  const r = answerSchema.safeParse(raw);
  if (!r.success) {
    deps.log(
      `agent: MCP server "${serverName}" asked for input; the host's answer is not {action, content?} (${r.error.issues[0].message}): declined`,
    );
    return { action: 'decline' };
  }
  return r.data;
}

/** `_meta['anthropic/permissionDisplay']` → the request's title / display_name / description. */
function displayOf(meta: unknown): Record<string, string> {
  const d = (meta as Record<string, unknown> | undefined)?.['anthropic/permissionDisplay'] as
    | Record<string, unknown>
    | undefined;
  if (!d || typeof d !== 'object') return {};
  const out: Record<string, string> = {};
  if (typeof d.title === 'string') out.title = d.title;
  if (typeof d.displayName === 'string') out.display_name = d.displayName;
  if (typeof d.description === 'string') out.description = d.description;
  return out;
}
