// Every line a host may send us on stdin, as zod schemas. The types are inferred, never restated.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { permissionModeSchema } from '../permissions/modes.js';

const contentBlock = z.looseObject({ type: z.string() });

export const userMessageSchema = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(contentBlock)]),
  }),
  session_id: z.string().optional(),
  parent_tool_use_id: z.string().nullable().optional(),
  uuid: z.string().optional(),
});
export type UserMessageIn = z.infer<typeof userMessageSchema>;

export const controlRequestSchema = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string().min(1),
  request: z.looseObject({ subtype: z.string().min(1) }),
});
export type ControlRequestIn = z.infer<typeof controlRequestSchema>;

export const controlResponseSchema = z.looseObject({
  type: z.literal('control_response'),
  response: z.union([
    z.looseObject({
      subtype: z.literal('success'),
      request_id: z.string(),
      response: z.unknown().optional(),
    }),
    z.looseObject({
      subtype: z.literal('error'),
      request_id: z.string(),
      error: z.string().optional(),
    }),
  ]),
});
export type ControlResponseIn = z.infer<typeof controlResponseSchema>;

export const controlCancelSchema = z.looseObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
});

export const keepAliveSchema = z.looseObject({ type: z.literal('keep_alive') });

const inboundMembers = [
  userMessageSchema,
  controlRequestSchema,
  controlResponseSchema,
  controlCancelSchema,
  keepAliveSchema,
] as const;
export const inboundSchema = z.discriminatedUnion('type', [...inboundMembers]);
export type Inbound = z.infer<typeof inboundSchema>;
export const INBOUND_TYPES: readonly string[] = inboundMembers.map((m) => m.shape.type.value);

/** What is wrong with a parsed stdin line, in words a person can act on; or the valid message. */
export function describeInboundProblem(
  json: unknown,
): { problem: string; message?: undefined } | { problem?: undefined; message: Inbound } {
  const expected = `expected one of: ${INBOUND_TYPES.join(', ')}`;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    const got = json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`;
    return { problem: `not a message: expected a JSON object with a "type" field, got ${got}` };
  }
  const type = (json as { type?: unknown }).type;
  if (type === undefined) return { problem: `not a message: it has no "type" field (${expected})` };
  if (typeof type !== 'string')
    return {
      problem: `not a message: its "type" is ${JSON.stringify(type)?.slice(0, 80)}, not a string (${expected})`,
    };
  if (!INBOUND_TYPES.includes(type)) {
    const shown = type.length > 80 ? `${type.slice(0, 80)}…` : type;
    return { problem: `unknown message type ${JSON.stringify(shown)} (${expected})` };
  }
  const parsed = inboundSchema.safeParse(json);
  if (!parsed.success) return { problem: `not a valid ${type} message (${describeIssues(parsed.error)})` };
  return { message: parsed.data };
}

// Payloads of the control requests a host sends us.
const hookMatcherSchema = z.looseObject({
  matcher: z.string().optional(),
  hookCallbackIds: z.array(z.string()),
  timeout: z.number().optional(),
});
/** The SDK's SdkPluginConfig: one local plugin folder. */
export const sdkPluginConfigSchema = z.looseObject({
  type: z.literal('local', { error: 'plugin type must be "local" (the only kind this runtime loads)' }),
  path: z.string({ error: 'plugin path must be a string' }).min(1, 'plugin path must not be empty'),
  skipMcpDiscovery: z.boolean().optional(),
});

export const reloadPluginsRequestSchema = z.looseObject({
  subtype: z.literal('reload_plugins'),
  hold_on_cache_impact: z.boolean().optional(),
  add_plugins: z
    .array(
      sdkPluginConfigSchema.refine((p) => isAbsolute(p.path), { error: 'add_plugins: each path must be absolute' }),
    )
    .optional(),
  refuse_if_busy: z.boolean().optional(),
});

export const initializeRequestSchema = z.looseObject({
  subtype: z.literal('initialize'),
  hooks: z.record(z.string(), z.array(hookMatcherSchema)).nullable().optional(),
  sdkMcpServers: z.array(z.string()).optional(),
  /** mcpServersDelivery 'initialize': the servers we run or connect to, off the command line. */
  mcpServers: z.record(z.string(), z.unknown(), { error: 'mcpServers must be an object of name → config' }).optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.union([z.string(), z.array(z.string())]).optional(),
  appendSystemPrompt: z.string().optional(),
  /** Added to every subagent's system prompt. */
  appendSubagentSystemPrompt: z.string({ error: 'appendSubagentSystemPrompt must be a string' }).optional(),
  /** true (record the prompt once, replay it verbatim) is not built: refused; false is what we do. */
  systemPromptSnapshot: z.boolean({ error: 'systemPromptSnapshot must be true or false' }).optional(),
  /** Not built: refused when non-empty. */
  codeRunningMcpTools: z.array(z.unknown(), { error: 'codeRunningMcpTools must be a list' }).optional(),
  /** Not built: refused when non-empty. */
  webSearchIsolationExemptMcpServers: z
    .array(z.unknown(), { error: 'webSearchIsolationExemptMcpServers must be a list' })
    .optional(),
  agents: z.record(z.string(), z.looseObject({})).optional(),
  /** Replaces the workflow part of the plan-mode reminder. */
  planModeInstructions: z.string().optional(),
  /** The SDK's `skills` option: which skills are on. */
  skills: z.union([z.array(z.string()), z.literal('all')]).optional(),
  /** pluginDelivery 'initialize': the stdin form of --plugin-dir, loaded on the first initialize only. */
  plugins: z.array(z.lazy(() => sdkPluginConfigSchema)).optional(),
  title: z.string().optional(),
  /** Periodic model-written one-line summaries of what a background agent is doing (task_progress.summary). */
  agentProgressSummaries: z.boolean({ error: 'agentProgressSummaries must be true or false' }).optional(),
  /** A `prompt_suggestion` after each result (from the second turn on). */
  promptSuggestions: z.boolean({ error: 'promptSuggestions must be true or false' }).optional(),
  /** The host renders a stop control per task: an interrupt then spares background agents. */
  perTaskStopAffordance: z.boolean({ error: 'perTaskStopAffordance must be true or false' }).optional(),
  /** The preset prompt's per-user sections moved to the first user message: not built (refused when true). */
  excludeDynamicSections: z.boolean({ error: 'excludeDynamicSections must be true or false' }).optional(),
  /** A tool name the model may call → the tool that runs instead (single hop). */
  toolAliases: z.record(z.string(), z.string().min(1, 'toolAliases: a target must name a tool')).optional(),
  /**
   * The host's in-process servers' own handshake results: their MCP initialize and first tools/list
   * are answered from here (src/mcp/hostManifests.ts; each entry's shape is judged there).
   */
  sdkMcpServerManifests: z.unknown().optional(),
  /** Host-declared settings of its in-process servers (timeout, per-tool policy): not built, refused when set. */
  sdkMcpServerConfigs: z
    .record(z.string(), z.unknown(), { error: 'sdkMcpServerConfigs must be an object of server name → settings' })
    .optional(),
  /** A subagent's text and thinking go to the host too (by default only its tool calls and results). */
  forwardSubagentText: z.boolean({ error: 'forwardSubagentText must be true or false' }).optional(),
  /** The request_user_dialog kinds the host can render; no flow here sends a dialog (docs/protocol.md). */
  supportedDialogKinds: z.array(z.string(), { error: 'supportedDialogKinds must be a list of strings' }).optional(),
  // Declarations whose absence (or false) is what this runtime does; true is refused (not built).
  rapidFollowupPreempt: z.boolean({ error: 'rapidFollowupPreempt must be true or false' }).optional(),
  forwardNestedSubagentToolCalls: z
    .boolean({ error: 'forwardNestedSubagentToolCalls must be true or false' })
    .optional(),
  offersBypassSwitchBack: z.boolean({ error: 'offersBypassSwitchBack must be true or false' }).optional(),
  keepsBypassHeld: z.boolean({ error: 'keepsBypassHeld must be true or false' }).optional(),
  /** The host's word that the person trusted a folder: nothing here is gated on trust, so nothing is recorded. */
  workspaceTrust: z
    .object(
      {
        accepted: z.boolean({ error: 'workspaceTrust.accepted must be true or false' }),
        directory: z.string({ error: 'workspaceTrust.directory must be a string' }),
      },
      { error: 'workspaceTrust must be {accepted, directory}' },
    )
    .optional(),
  // Sent by the SDK only when its settingsDelivery / managedSettingsDelivery / disallowedToolsDelivery
  // is 'initialize' (the default is 'argv', as flags): not built, refused when present.
  settings: z.unknown().optional(),
  managedSettings: z.unknown().optional(),
  disallowedTools: z.unknown().optional(),
});
export type InitializeRequest = z.infer<typeof initializeRequestSchema>;

// The modes are the permissions' own; the wire names them the same.
export { permissionModeSchema, type PermissionMode } from '../permissions/modes.js';

export const setModelRequestSchema = z.looseObject({
  subtype: z.literal('set_model'),
  model: z.string({ error: 'set_model: model must be a string' }).optional(),
});
export const setPermissionModeRequestSchema = z.looseObject({
  subtype: z.literal('set_permission_mode'),
  mode: permissionModeSchema,
});
export const setMaxThinkingTokensRequestSchema = z.looseObject({
  subtype: z.literal('set_max_thinking_tokens'),
  max_thinking_tokens: z.number().int().nonnegative().nullable(),
});

/**
 * A short, human-readable account of a zod failure: `path: message; …`. A message that already
 * names its field (one a schema wrote: `read_file: path is empty`) goes without the path.
 */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) =>
      i.path.length && !namesField(i.message, i.path[i.path.length - 1])
        ? `${i.path.join('.')}: ${i.message}`
        : i.message,
    )
    .join('; ');
}

/** The key as a whole word of the message (`a` is not named by `Invalid`). */
function namesField(message: string, key: PropertyKey): boolean {
  if (typeof key !== 'string') return false;
  return new RegExp(`(^|[^\\w])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`).test(message);
}

// Session and file-state control requests (src/control/sessionHandlers.ts).
export const rewindFilesRequestSchema = z.looseObject({
  subtype: z.literal('rewind_files'),
  user_message_id: z.string({ error: 'rewind_files: user_message_id must be the uuid of a user message' }).min(1),
  dry_run: z.boolean().nullish(),
});
export const getContextUsageRequestSchema = z.looseObject({
  subtype: z.literal('get_context_usage'),
  detail: z.enum(['summary', 'full']).optional(),
});
export const readFileRequestSchema = z.looseObject({
  subtype: z.literal('read_file'),
  path: z.string({ error: 'read_file: path must be a string' }).min(1, 'read_file: path is empty'),
  max_bytes: z.number().int().positive().nullish(),
  encoding: z.enum(['utf-8', 'base64']).nullish(),
});
export const seedReadStateRequestSchema = z.looseObject({
  subtype: z.literal('seed_read_state'),
  path: z.string({ error: 'seed_read_state: path must be a string' }).min(1, 'seed_read_state: path is empty'),
  mtime: z.number({ error: 'seed_read_state: mtime must be a number (ms)' }).nonnegative(),
});
