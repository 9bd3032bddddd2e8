// Every line a host may send us on stdin, as zod schemas. The types are inferred, never restated.
import { z } from 'zod';

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

export const inboundSchema = z.discriminatedUnion('type', [
  userMessageSchema,
  controlRequestSchema,
  controlResponseSchema,
  controlCancelSchema,
  keepAliveSchema,
]);
export type Inbound = z.infer<typeof inboundSchema>;

// Payloads of the control requests a host sends us.
const hookMatcherSchema = z.looseObject({
  matcher: z.string().optional(),
  hookCallbackIds: z.array(z.string()),
  timeout: z.number().optional(),
});
export const initializeRequestSchema = z.looseObject({
  subtype: z.literal('initialize'),
  hooks: z.record(z.string(), z.array(hookMatcherSchema)).nullable().optional(),
  sdkMcpServers: z.array(z.string()).optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.union([z.string(), z.array(z.string())]).optional(),
  appendSystemPrompt: z.string().optional(),
  agents: z.record(z.string(), z.looseObject({})).optional(),
  title: z.string().optional(),
});
export type InitializeRequest = z.infer<typeof initializeRequestSchema>;

export const permissionModeSchema = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;

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

/** A short, human-readable account of a zod failure: `path: message; …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}
