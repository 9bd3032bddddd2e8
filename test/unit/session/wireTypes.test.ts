// The event lanes are closed at compile time. toWire's lines have the outbound schemas' own type
// (src/protocol/outbound.ts), so a misnamed wire field fails `npm run typecheck`; each expected
// error below (ts-expect-error) fails that check the day the error it expects goes away.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { outboundSchema, SessionLine } from '../../../src/protocol/outbound.js';
import type { SessionEvent } from '../../../src/session/events.js';
import { toWire, type WireLine } from '../../../src/session/wire.js';
import type { ToolProgress } from '../../../tools/tool.js';

const env = { session_id: 's', uuid: 'u' };

describe('typed event lanes', () => {
  it("toWire returns the outbound schema's inferred type", () => {
    expectTypeOf(toWire).returns.toEqualTypeOf<SessionLine | null>();
    expectTypeOf<WireLine>().toExtend<z.infer<typeof outboundSchema>>();
  });

  it('a wire line with a misnamed field does not compile', () => {
    const lines: WireLine[] = [
      // Right: every field as the schema names it.
      {
        type: 'system',
        subtype: 'task_progress',
        task_id: 'a1',
        tool_use_id: 't',
        description: 'd',
        usage: { total_tokens: 1, tool_uses: 0, duration_ms: 1 },
        last_tool_name: 'Read',
        ...env,
      },
      {
        type: 'system',
        subtype: 'task_progress',
        task_id: 'a1',
        tool_use_id: 't',
        description: 'd',
        usage: { total_tokens: 1, tool_uses: 0, duration_ms: 1 },
        // @ts-expect-error the optional field is `last_tool_name`
        lastToolName: 'Read',
        ...env,
      },
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: 1,
        max_retries: 2,
        retry_delay_ms: 3,
        error_status: null,
        error: 'overloaded',
        // @ts-expect-error a subagent's line says `parent_tool_use_id`
        parentToolUseId: 'toolu_1',
        ...env,
      },
      // @ts-expect-error no such system subtype
      { type: 'system', subtype: 'made_up', ...env },
    ];
    expect(lines).toHaveLength(4);
  });

  it('no loose system bag, no ready protocol line, no untyped tool progress', () => {
    const events: SessionEvent[] = [
      { type: 'model_fallback', parentToolUseId: null, from: 'a', to: 'b', error: 'e' },
      // @ts-expect-error the loop's system events are named variants, not a subtype and a bag of fields
      { type: 'system', parentToolUseId: null, subtype: 'model_fallback', fields: { from: 'a' } },
      // @ts-expect-error a task event is domain-shaped: toWire makes its protocol line
      { type: 'task', event: { type: 'system', subtype: 'task_started', task_id: 'a1' } },
      {
        type: 'task',
        parentToolUseId: null,
        event: {
          kind: 'progress',
          taskId: 'a1',
          toolUseId: 't',
          description: 'd',
          usage: { totalTokens: 1, toolUses: 0, durationMs: 1 },
        },
      },
      {
        type: 'task',
        parentToolUseId: null,
        event: {
          kind: 'progress',
          taskId: 'a1',
          toolUseId: 't',
          description: 'd',
          // @ts-expect-error a task's usage is in the domain's words: toWire names it `total_tokens`
          usage: { total_tokens: 1, tool_uses: 0, duration_ms: 1 },
        },
      },
      // @ts-expect-error a stopped task is `stopped`: `killed` is task_updated's word, made by toWire
      { type: 'task', parentToolUseId: null, event: { kind: 'ended', taskId: 'a1', status: 'killed', endTime: 1 } },
      {
        type: 'task',
        parentToolUseId: null,
        event: {
          kind: 'progress',
          taskId: 'w1',
          toolUseId: 't',
          description: 'd',
          usage: { totalTokens: 1, toolUses: 0, durationMs: 1 },
          // @ts-expect-error a workflow's rows have named fields: a phase has a `title`, not a `name`
          workflowProgress: [{ type: 'workflow_phase', index: 0, name: 'p' }],
        },
      },
    ];
    const progress: ToolProgress[] = [
      {
        type: 'forward',
        event: { type: 'tool_progress', parentToolUseId: 't', toolUseId: 'u', toolName: 'Read', elapsedSeconds: 1 },
      },
      // @ts-expect-error a forwarded event is a typed loop event, not data to cast back
      { type: 'progress', data: { loopEvent: {} } },
    ];
    expect(events.length + progress.length).toBe(9);
  });
});
