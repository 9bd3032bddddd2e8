// Every kind of session event becomes a protocol line that the strict outbound schema accepts, and
// the schema refuses a malformed line (so the stdout-purity checks of the e2e tests can fail).
import { describe, expect, it } from 'vitest';
import { outboundSchema } from '../../../src/protocol/outbound.js';
import type { SessionEvent } from '../../../src/session/events.js';
import { toWire } from '../../../src/session/wire.js';
import type { LoopOutcome } from '../../../src/loop/events.js';

const SID = 'session-1';
const usage = { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const outcome = (o: Partial<LoopOutcome> = {}): LoopOutcome => ({
  subtype: 'success',
  resultText: 'done',
  errors: [],
  numTurns: 1,
  stopReason: 'end_turn',
  durationApiMs: 5,
  ...o,
});
const turnResult = (o?: Partial<LoopOutcome>) => ({
  outcome: outcome(o),
  durationMs: 9,
  costUsd: 0.01,
  usage,
  modelUsage: {},
  permissionDenials: [],
});
const hook = { hookId: 'h1', hookName: 'SessionStart', hookEvent: 'SessionStart' };

const EVENTS: Array<[string, SessionEvent]> = [
  [
    'init',
    {
      type: 'init',
      init: {
        cwd: '/w',
        tools: ['Bash'],
        mcpServers: [],
        model: 'm',
        permissionMode: 'default',
        slashCommands: [],
        skills: [],
        plugins: [{ name: 'kit', path: '/p/kit' }],
        apiKeySource: 'none',
        outputStyle: 'default',
        agents: [],
        version: '1',
        capabilities: ['reload_plugins_refuse_if_busy_v1'],
      },
    },
  ],
  ['result', { type: 'result', result: turnResult() }],
  [
    'error result',
    {
      type: 'result',
      result: turnResult({
        subtype: 'error_max_turns',
        resultText: 'too many',
        errors: ['too many'],
        structuredOutput: { a: 1 },
      }),
    },
  ],
  ['stream event', { type: 'stream_event', parentToolUseId: null, event: { type: 'message_stop' } }],
  [
    'assistant',
    {
      type: 'assistant',
      parentToolUseId: 'toolu_1',
      message: {
        id: 'msg',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [{ type: 'text', text: 'hi' }],
        stop_reason: 'end_turn',
        usage: {},
      },
    },
  ],
  [
    'tool result',
    {
      type: 'tool_result',
      parentToolUseId: null,
      block: { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' },
      data: { stdout: 'ok' },
    },
  ],
  [
    'tool progress',
    { type: 'tool_progress', parentToolUseId: null, toolUseId: 'toolu_1', toolName: 'Bash', elapsedSeconds: 1 },
  ],
  [
    'api retry',
    {
      type: 'api_retry',
      parentToolUseId: 'toolu_1',
      retry: { attempt: 1, maxRetries: 3, retryDelayMs: 500, errorStatus: 529, error: 'overloaded' },
    },
  ],
  ['compacting', { type: 'compact_status', parentToolUseId: null, status: 'compacting' }],
  [
    'compaction failed',
    { type: 'compact_status', parentToolUseId: null, status: null, result: 'failed', error: 'interrupted' },
  ],
  ['compact boundary', { type: 'compact_boundary', parentToolUseId: null, trigger: 'auto', preTokens: 100 }],
  ['model fallback', { type: 'model_fallback', parentToolUseId: null, from: 'a', to: 'b', error: 'overloaded' }],
  [
    'task started',
    {
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'started',
        taskId: 'b1',
        toolUseId: 't',
        description: 'd',
        taskType: 'local_bash',
        backgrounded: true,
      },
    },
  ],
  [
    'foreground task started',
    {
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'started',
        taskId: 'a1',
        toolUseId: 't',
        description: 'd',
        taskType: 'local_agent',
        subagentType: 'Explore',
        backgrounded: false,
        spawnDepth: 1,
        prompt: 'p',
      },
    },
  ],
  [
    'task ended',
    { type: 'task', parentToolUseId: null, event: { kind: 'ended', taskId: 'b1', status: 'stopped', endTime: 1 } },
  ],
  [
    'task moved to the background',
    { type: 'task', parentToolUseId: null, event: { kind: 'backgrounded', taskId: 'a1' } },
  ],
  [
    'task notification',
    {
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'notification',
        taskId: 'b1',
        toolUseId: 't',
        status: 'completed',
        outputFile: '/f',
        summary: 's',
        usage: { totalTokens: 1, toolUses: 0, durationMs: 3 },
      },
    },
  ],
  [
    'task progress',
    {
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'progress',
        taskId: 'a1',
        toolUseId: 't',
        description: 'd',
        usage: { totalTokens: 1, toolUses: 0, durationMs: 3 },
      },
    },
  ],
  [
    'task progress with a summary',
    {
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'progress',
        taskId: 'a1',
        toolUseId: 't',
        description: 'd',
        subagentType: 'Explore',
        usage: { totalTokens: 1, toolUses: 0, durationMs: 3 },
        lastToolName: 'Read',
        summary: 'Reading the code',
      },
    },
  ],
  [
    'background tasks changed',
    {
      type: 'task',
      parentToolUseId: null,
      event: { kind: 'live', tasks: [{ taskId: 'b1', taskType: 'local_bash', description: 'd' }] },
    },
  ],
  ['team problem', { type: 'team', event: { kind: 'problem', message: 'm' } }],
  ['prompt blocked', { type: 'notice', notice: { subtype: 'prompt_blocked', reason: 'no' } }],
  ['hook system message', { type: 'notice', notice: { subtype: 'hook_system_message', message: 'hi' } }],
  ['hook started', { type: 'notice', notice: { subtype: 'hook', event: { kind: 'started', hook } } }],
  [
    'hook progress',
    {
      type: 'notice',
      notice: { subtype: 'hook', event: { kind: 'progress', hook, output: { stdout: 'a', stderr: '', output: 'a' } } },
    },
  ],
  [
    'hook response',
    {
      type: 'notice',
      notice: {
        subtype: 'hook',
        event: {
          kind: 'response',
          hook,
          output: { stdout: 'a', stderr: '', output: 'a' },
          exitCode: 0,
          outcome: 'success',
        },
      },
    },
  ],
  ['status', { type: 'notice', notice: { subtype: 'status', status: null, permissionMode: 'plan' } }],
  ['prompt suggestion', { type: 'prompt_suggestion', suggestion: 'run the tests' }],
  [
    'elicitation complete',
    { type: 'notice', notice: { subtype: 'elicitation_complete', serverName: 'asker', elicitationId: 'el-1' } },
  ],
  ['stdin error', { type: 'notice', notice: { subtype: 'error', error: 'stdin line 3: bad', line: 3 } }],
  [
    'files persisted',
    {
      type: 'notice',
      notice: {
        subtype: 'files_persisted',
        backups: { files: [{ filename: 'a', file_id: 'x' }], failed: [] },
        processedAt: 'now',
      },
    },
  ],
];

describe('toWire', () => {
  it.each(EVENTS)('%s: one strict protocol line with the session envelope', (_name, ev) => {
    const line = toWire(ev, SID, true);
    expect(line).not.toBeNull();
    const parsed = outboundSchema.safeParse(line);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(line).toMatchObject({ session_id: SID, uuid: expect.any(String) });
  });

  it('a result carries its outcome: errors only on an error, structured output when there is one', () => {
    expect(toWire({ type: 'result', result: turnResult() }, SID, false)).not.toHaveProperty('errors');
    const err = toWire(
      {
        type: 'result',
        result: turnResult({ subtype: 'error_max_turns', resultText: 'x', errors: ['x'], structuredOutput: 5 }),
      },
      SID,
      false,
    );
    expect(err).toMatchObject({ is_error: true, errors: ['x'], structured_output: 5, subtype: 'error_max_turns' });
  });

  it('domain events become their wire fields, named as the wire names them', () => {
    const line = (ev: SessionEvent) => {
      const { uuid: _u, session_id: _s, ...rest } = toWire(ev, SID, false) as Record<string, unknown>;
      return rest;
    };
    expect(line(EVENTS.find(([n]) => n === 'api retry')![1])).toEqual({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 3,
      retry_delay_ms: 500,
      error_status: 529,
      error: 'overloaded',
      parent_tool_use_id: 'toolu_1',
    });
    expect(line(EVENTS.find(([n]) => n === 'compaction failed')![1])).toEqual({
      type: 'system',
      subtype: 'status',
      status: null,
      compact_result: 'failed',
      compact_error: 'interrupted',
    });
    expect(line(EVENTS.find(([n]) => n === 'compact boundary')![1])).toEqual({
      type: 'system',
      subtype: 'compact_boundary',
      compact_metadata: { trigger: 'auto', pre_tokens: 100 },
    });
    expect(line(EVENTS.find(([n]) => n === 'foreground task started')![1])).toEqual({
      type: 'system',
      subtype: 'task_started',
      task_id: 'a1',
      tool_use_id: 't',
      description: 'd',
      task_type: 'local_agent',
      subagent_type: 'Explore',
      is_backgrounded: false,
      spawn_depth: 1,
      prompt: 'p',
    });
    // A stopped task: the SDK's TaskState word is `killed`, its notification's `stopped`.
    expect(line(EVENTS.find(([n]) => n === 'task ended')![1])).toEqual({
      type: 'system',
      subtype: 'task_updated',
      task_id: 'b1',
      patch: { status: 'killed', end_time: 1 },
    });
    expect(line(EVENTS.find(([n]) => n === 'task notification')![1])).toEqual({
      type: 'system',
      subtype: 'task_notification',
      task_id: 'b1',
      tool_use_id: 't',
      status: 'completed',
      output_file: '/f',
      summary: 's',
      usage: { total_tokens: 1, tool_uses: 0, duration_ms: 3 },
    });
    expect(line(EVENTS.find(([n]) => n === 'task moved to the background')![1])).toMatchObject({
      subtype: 'task_updated',
      patch: { is_backgrounded: true },
    });
    expect(line(EVENTS.find(([n]) => n === 'task progress with a summary')![1])).toEqual({
      type: 'system',
      subtype: 'task_progress',
      task_id: 'a1',
      tool_use_id: 't',
      description: 'd',
      subagent_type: 'Explore',
      usage: { total_tokens: 1, tool_uses: 0, duration_ms: 3 },
      last_tool_name: 'Read',
      summary: 'Reading the code',
    });
    expect(line(EVENTS.find(([n]) => n === 'background tasks changed')![1])).toEqual({
      type: 'system',
      subtype: 'background_tasks_changed',
      tasks: [{ task_id: 'b1', task_type: 'local_bash', description: 'd' }],
    });
    expect(line(EVENTS.find(([n]) => n === 'team problem')![1])).toEqual({
      type: 'system',
      subtype: 'team_problem',
      message: 'm',
    });
    expect(line(EVENTS.find(([n]) => n === 'hook response')![1])).toEqual({
      type: 'system',
      subtype: 'hook_response',
      hook_id: 'h1',
      hook_name: 'SessionStart',
      hook_event: 'SessionStart',
      stdout: 'a',
      stderr: '',
      output: 'a',
      exit_code: 0,
      outcome: 'success',
    });
  });

  it('stream events only when partial messages are on', () => {
    expect(toWire({ type: 'stream_event', parentToolUseId: null, event: { type: 'ping' } }, SID, false)).toBeNull();
  });

  it('the outbound schema refuses a malformed system line, an unknown subtype and a stray field', () => {
    const env = { session_id: SID, uuid: 'u' };
    expect(outboundSchema.safeParse({ type: 'system', subtype: 'task_started', task_id: 'b1', ...env }).success).toBe(
      false,
    );
    expect(outboundSchema.safeParse({ type: 'system', subtype: 'made_up', ...env }).success).toBe(false);
    // A task_updated patch is an end or a move, never an empty or mixed bag.
    expect(
      outboundSchema.safeParse({ type: 'system', subtype: 'task_updated', task_id: 'a1', patch: {}, ...env }).success,
    ).toBe(false);
    expect(
      outboundSchema.safeParse({
        type: 'system',
        subtype: 'task_updated',
        task_id: 'a1',
        patch: { is_backgrounded: false },
        ...env,
      }).success,
    ).toBe(false);
    expect(
      outboundSchema.safeParse({ type: 'system', subtype: 'prompt_blocked', reason: 'r', extra: 1, ...env }).success,
    ).toBe(false);
    expect(outboundSchema.safeParse({ type: 'system', subtype: 'prompt_blocked', reason: 'r', ...env }).success).toBe(
      true,
    );
  });
});
