// Hook events, their inputs' common part, and the shapes hooks answer with (sdk.d.ts names).
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PermissionRequest',
  'Notification',
  'TeammateIdle',
  'Elicitation',
  'ElicitationResult',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export function isHookEvent(name: string): name is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/** Events whose matcher is a regex against the tool name. */
export const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
]);

/** Events where a hook's plain (non-JSON) stdout becomes context for the model. */
export const PLAIN_STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart']);

export interface BaseHookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode: string;
  agent_id?: string;
  agent_type?: string;
}

const permissionUpdates = lazySchema(() => z.array(z.record(z.string(), z.unknown())));

/** SyncHookJSONOutput, checked loosely: unknown keys pass, wrong types of known keys do not. */
export const hookOutputSchema = lazySchema(() =>
  z.looseObject({
    async: z.boolean().optional(),
    asyncTimeout: z.number().optional(),
    continue: z.boolean().optional(),
    suppressOutput: z.boolean().optional(),
    stopReason: z.string().optional(),
    decision: z.enum(['approve', 'block']).optional(),
    systemMessage: z.string().optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .looseObject({
        hookEventName: z.string().optional(),
        permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        additionalContext: z.string().optional(),
        /** Elicitation / ElicitationResult: the answer for the MCP server. */
        action: z.enum(['accept', 'decline', 'cancel']).optional(),
        content: z.record(z.string(), z.unknown()).optional(),
        decision: z
          .union([
            z.looseObject({
              behavior: z.literal('allow'),
              updatedInput: z.record(z.string(), z.unknown()).optional(),
              updatedPermissions: permissionUpdates.optional(),
            }),
            z.looseObject({
              behavior: z.literal('deny'),
              message: z.string().optional(),
              interrupt: z.boolean().optional(),
            }),
          ])
          .optional(),
      })
      .optional(),
  }),
);
export type HookOutput = z.infer<typeof hookOutputSchema>;

/** Callback hooks as the `initialize` control request registers them. */
export const callbackHooksSchema = lazySchema(() =>
  z.record(
    z.string(),
    z.array(
      z.looseObject({
        matcher: z.string().nullish(),
        hookCallbackIds: z.array(z.string()),
        timeout: z.number().positive().optional(),
      }),
    ),
  ),
);
export type CallbackHooksConfig = z.infer<typeof callbackHooksSchema>;

/** What one hook came back with, before merging. */
export type HookResult =
  | { kind: 'output'; output: HookOutput }
  | { kind: 'text'; text: string }
  | { kind: 'block'; reason: string }
  | { kind: 'none' };

export type PermissionRequestAnswer =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; updatedPermissions?: Array<Record<string, unknown>> }
  | { behavior: 'deny'; message?: string; interrupt?: boolean };

/** Every hook of one event, merged. */
export interface HookOutcome {
  /** exit 2 or decision:"block": the guarded action does not happen; the reason goes to the model. */
  blockReason?: string;
  /** deny > ask > allow across hooks (PreToolUse). */
  permissionDecision?: 'allow' | 'deny' | 'ask';
  permissionDecisionReason?: string;
  /** PreToolUse: the input to run instead. */
  updatedInput?: Record<string, unknown>;
  /** continue:false — the whole run stops. */
  stop?: { reason: string };
  systemMessages: string[];
  additionalContext: string[];
  suppressOutput: boolean;
  /** Elicitation / ElicitationResult: a hook's answer for the MCP server (decline or cancel beats accept). */
  elicitation?: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
  /** PermissionRequest: a hook answered the ask. deny beats allow. */
  permissionRequest?: PermissionRequestAnswer;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
