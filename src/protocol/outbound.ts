// Every line we write on stdout, as zod schemas (the wire format's single source of truth).
// The writer does not re-validate at run time (a hot path); the tests parse what the binary prints.
import { z } from 'zod';
import { permissionModeSchema } from './inbound.js';
import { modelUsageEntrySchema, usageTotalsSchema as usageSchema } from '../loop/usage.js';
import { resultSubtypeSchema, terminalReasonSchema } from '../loop/events.js';

const envelope = {
  session_id: z.string(),
  uuid: z.string(),
};

// Usage, cost and result subtypes belong to the loop (it counts them); the wire carries them as is.
export { usageTotalsSchema as usageSchema, modelUsageEntrySchema } from '../loop/usage.js';
export type { UsageTotals as Usage } from '../loop/usage.js';
export { resultSubtypeSchema, type ResultSubtype } from '../loop/events.js';

export const systemInitSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  cwd: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.object({ name: z.string(), status: z.string() })),
  model: z.string(),
  permissionMode: permissionModeSchema,
  slash_commands: z.array(z.string()),
  /** The skills the model can load with the Skill tool. */
  skills: z.array(z.string()).optional(),
  /** The loaded plugins (--plugin-dir, the SDK's plugins). */
  plugins: z.array(z.object({ name: z.string(), path: z.string() })).optional(),
  /** Protocol capabilities a host may feature-detect. */
  capabilities: z.array(z.string()).optional(),
  apiKeySource: z.string(),
  output_style: z.string(),
  agents: z.array(z.string()),
  claude_code_version: z.string(),
  /** Present when `sandbox.enabled` is set: `active` false means Bash runs unsandboxed (reason says why). */
  sandbox: z.object({ enabled: z.boolean(), active: z.boolean(), reason: z.string().optional() }).optional(),
  ...envelope,
});

export const systemErrorSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('error'),
  error: z.string(),
  line: z.number().optional(),
  ...envelope,
});

/** A subagent's system lines say whose they are. */
const scoped = { parent_tool_use_id: z.string().optional() };

export const apiRetrySchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.number().nullable(),
  error: z.string(),
  ...scoped,
  ...envelope,
});

export const compactBoundarySchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('compact_boundary'),
  compact_metadata: z.strictObject({ trigger: z.enum(['manual', 'auto']), pre_tokens: z.number() }),
  ...scoped,
  ...envelope,
});

export const modelFallbackSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('model_fallback'),
  from: z.string(),
  to: z.string(),
  error: z.string(),
  ...scoped,
  ...envelope,
});

/** A call the permission rules refused, or that nobody could be asked about (the SDK's SDKPermissionDeniedMessage). */
export const permissionDeniedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('permission_denied'),
  tool_name: z.string(),
  tool_use_id: z.string(),
  agent_id: z.string().optional(),
  decision_reason_type: z.string().optional(),
  message: z.string(),
  ...envelope,
});

const taskUsageSchema = z.strictObject({ total_tokens: z.number(), tool_uses: z.number(), duration_ms: z.number() });
export type TaskUsageLine = z.infer<typeof taskUsageSchema>;
const taskTypeSchema = z.enum(['local_bash', 'local_agent', 'in_process_teammate', 'local_workflow']);
const taskEndSchema = z.enum(['completed', 'failed', 'stopped']);

export const taskStartedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_started'),
  task_id: z.string(),
  tool_use_id: z.string(),
  description: z.string(),
  task_type: taskTypeSchema,
  subagent_type: z.string().optional(),
  /** false: a foreground subagent, its Task call blocking on it (a later move comes as task_updated). */
  is_backgrounded: z.boolean(),
  /** A subagent's nesting depth: 1 for one the main thread spawned (the only kind here). */
  spawn_depth: z.number().int().positive().optional(),
  /** What a subagent was asked (a workflow: its script). */
  prompt: z.string().optional(),
  /** A workflow's meta.name. */
  workflow_name: z.string().optional(),
  ...envelope,
});

export const taskUpdatedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_updated'),
  task_id: z.string(),
  /** A task's end, or a foreground task's move to the background. */
  patch: z.union([
    z.strictObject({
      status: z.enum(['completed', 'failed', 'killed']),
      end_time: z.number(),
      /** Why it failed (a workflow's script error). */
      error: z.string().optional(),
    }),
    z.strictObject({ is_backgrounded: z.literal(true) }),
  ]),
  ...envelope,
});

export const taskNotificationSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_notification'),
  task_id: z.string(),
  tool_use_id: z.string(),
  status: taskEndSchema,
  output_file: z.string(),
  summary: z.string(),
  usage: taskUsageSchema.optional(),
  ...envelope,
});

/** A workflow's phase in task_progress's workflow_progress (our extension: the names are camelCase). */
const workflowPhaseRowSchema = z.strictObject({
  type: z.literal('workflow_phase'),
  index: z.number(),
  title: z.string(),
});

/** A workflow's agent in task_progress's workflow_progress. */
const workflowAgentRowSchema = z.strictObject({
  type: z.literal('workflow_agent'),
  index: z.number(),
  label: z.string(),
  phaseIndex: z.number().optional(),
  phaseTitle: z.string().optional(),
  agentId: z.string().optional(),
  agentType: z.string().optional(),
  model: z.string().optional(),
  state: z.enum(['queued', 'start', 'done', 'error']),
  queuedAt: z.number(),
  startedAt: z.number().optional(),
  promptPreview: z.string(),
  tokens: z.number().optional(),
  toolCalls: z.number().optional(),
  durationMs: z.number().optional(),
  resultPreview: z.string().optional(),
  error: z.string().optional(),
});

const workflowProgressRowSchema = z.discriminatedUnion('type', [workflowPhaseRowSchema, workflowAgentRowSchema]);
export type WorkflowProgressRowLine = z.infer<typeof workflowProgressRowSchema>;

export const taskProgressSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('task_progress'),
  task_id: z.string(),
  tool_use_id: z.string(),
  description: z.string(),
  subagent_type: z.string().optional(),
  usage: taskUsageSchema,
  last_tool_name: z.string().optional(),
  /** agentProgressSummaries: a one-line account of what the agent is doing. */
  summary: z.string().optional(),
  /** A workflow's phases and agents so far: `workflow_phase` and `workflow_agent` entries. */
  workflow_progress: z.array(workflowProgressRowSchema).optional(),
  ...envelope,
});

/** The live background tasks after a start or an end (a level: the host replaces its set with it). */
export const backgroundTasksChangedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('background_tasks_changed'),
  tasks: z.array(
    z.strictObject({
      task_id: z.string(),
      task_type: z.string(),
      subagent_type: z.string().optional(),
      description: z.string(),
    }),
  ),
  ...envelope,
});

export const teamProblemSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('team_problem'),
  message: z.string(),
  ...envelope,
});

export const promptBlockedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('prompt_blocked'),
  reason: z.string(),
  ...envelope,
});

/** The session's state: a request going out (with partial messages), a compaction, or (status null) a new permission mode or a compaction's end. */
export const systemStatusSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('status'),
  status: z.enum(['requesting', 'compacting']).nullable(),
  permissionMode: permissionModeSchema.optional(),
  /** After a compaction (status null): how it went. */
  compact_result: z.enum(['success', 'failed']).optional(),
  compact_error: z.string().optional(),
  ...envelope,
});

export const hookSystemMessageSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_system_message'),
  message: z.string(),
  ...envelope,
});

const hookWho = { hook_id: z.string(), hook_name: z.string(), hook_event: z.string() };
const hookOutput = { output: z.string(), stdout: z.string(), stderr: z.string() };

export const elicitationCompleteSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('elicitation_complete'),
  mcp_server_name: z.string(),
  elicitation_id: z.string(),
  ...envelope,
});

export const hookStartedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_started'),
  ...hookWho,
  ...envelope,
});

export const hookProgressSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_progress'),
  ...hookWho,
  ...hookOutput,
  ...envelope,
});

export const hookResponseSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_response'),
  ...hookWho,
  ...hookOutput,
  exit_code: z.number().optional(),
  outcome: z.enum(['success', 'error', 'cancelled']),
  ...envelope,
});

export const filesPersistedSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('files_persisted'),
  files: z.array(z.strictObject({ filename: z.string(), file_id: z.string() })),
  failed: z.array(z.strictObject({ filename: z.string(), error: z.string() })),
  processed_at: z.string(),
  ...envelope,
});

export const assistantSchema = z.strictObject({
  type: z.literal('assistant'),
  message: z.looseObject({ role: z.literal('assistant'), content: z.array(z.looseObject({ type: z.string() })) }),
  parent_tool_use_id: z.string().nullable(),
  error: z.string().optional(),
  ...envelope,
});

export const userOutSchema = z.strictObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
  }),
  parent_tool_use_id: z.string().nullable(),
  tool_use_result: z.unknown().optional(),
  ...envelope,
});

export const streamEventSchema = z.strictObject({
  type: z.literal('stream_event'),
  event: z.looseObject({ type: z.string() }),
  parent_tool_use_id: z.string().nullable(),
  ...envelope,
});

export const toolProgressSchema = z.strictObject({
  type: z.literal('tool_progress'),
  tool_use_id: z.string(),
  tool_name: z.string(),
  parent_tool_use_id: z.string().nullable(),
  elapsed_time_seconds: z.number(),
  ...envelope,
});

export const permissionDenialSchema = z.object({
  tool_name: z.string(),
  tool_use_id: z.string(),
  tool_input: z.unknown(),
});

export const resultSchema = z.strictObject({
  type: z.literal('result'),
  subtype: resultSubtypeSchema,
  is_error: z.boolean(),
  result: z.string(),
  errors: z.array(z.string()).optional(),
  num_turns: z.number(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  total_cost_usd: z.number(),
  usage: usageSchema,
  modelUsage: z.record(z.string(), modelUsageEntrySchema),
  permission_denials: z.array(permissionDenialSchema),
  stop_reason: z.string().nullable(),
  structured_output: z.unknown().optional(),
  /** Why the run ended (the SDK's TerminalReason). */
  terminal_reason: terminalReasonSchema.optional(),
  /** Milliseconds from the turn's start: to its first API request, that reply's first event, its first token, the first content line. */
  time_to_request_ms: z.number().optional(),
  ttft_stream_ms: z.number().optional(),
  ttft_ms: z.number().optional(),
  first_content_frame_ms: z.number().optional(),
  ...envelope,
});
export type ResultMessage = z.infer<typeof resultSchema>;

/** Our one answer to each control_request of the host (src/control/channel.ts). */
export const controlResponseOutSchema = z.strictObject({
  type: z.literal('control_response'),
  response: z.union([
    z.strictObject({ subtype: z.literal('success'), request_id: z.string(), response: z.unknown().optional() }),
    z.strictObject({
      subtype: z.literal('error'),
      request_id: z.string(),
      error: z.string(),
      /** A refusal the host can match on (a CodedControlError: reload_plugins' `reload_plugins_busy`). */
      error_code: z.string().optional(),
    }),
  ]),
});

/** Our requests to the host: can_use_tool, hook_callback, mcp_message, elicitation. */
export const controlRequestOutSchema = z.strictObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.looseObject({ subtype: z.string() }),
});

/** A line of the control channel: its answers and its own requests (the channel's send takes these only). */
export type ControlLine = z.infer<typeof controlResponseOutSchema> | z.infer<typeof controlRequestOutSchema>;

/** promptSuggestions: the predicted next user prompt, after a result. */
export const promptSuggestionSchema = z.strictObject({
  type: z.literal('prompt_suggestion'),
  suggestion: z.string(),
  uuid: z.string(),
  session_id: z.string(),
});

/** --session-mirror: transcript entries written locally, for the host's sessionStore. */
export const transcriptMirrorSchema = z.strictObject({
  type: z.literal('transcript_mirror'),
  filePath: z.string(),
  entries: z.array(z.looseObject({})),
});

export const outboundSchema = z.union([
  systemInitSchema,
  systemErrorSchema,
  apiRetrySchema,
  assistantSchema,
  userOutSchema,
  streamEventSchema,
  toolProgressSchema,
  resultSchema,
  controlResponseOutSchema,
  controlRequestOutSchema,
  compactBoundarySchema,
  modelFallbackSchema,
  permissionDeniedSchema,
  taskStartedSchema,
  taskUpdatedSchema,
  taskNotificationSchema,
  taskProgressSchema,
  backgroundTasksChangedSchema,
  teamProblemSchema,
  promptBlockedSchema,
  systemStatusSchema,
  hookSystemMessageSchema,
  elicitationCompleteSchema,
  hookStartedSchema,
  hookProgressSchema,
  hookResponseSchema,
  filesPersistedSchema,
  transcriptMirrorSchema,
  promptSuggestionSchema,
]);
export type Outbound = z.infer<typeof outboundSchema>;

/**
 * Every line a session event becomes (wire.ts toWire's return type): the outbound lines but the
 * control channel's and the transcript mirror's. A field the schemas do not have fails to compile.
 */
export type SessionLine = Exclude<Outbound, { type: 'control_response' | 'control_request' | 'transcript_mirror' }>;
