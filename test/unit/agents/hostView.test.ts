// A subagent's messages as a host gets them (forwardSubagentText).
import { describe, expect, it } from 'vitest';
import { subagentHostView } from '../../../src/agents/hostView.js';
import type { LoopEvent } from '../../../tools/agentEvents.js';

const message = (content: Array<{ type: string; [k: string]: unknown }>) =>
  ({ id: 'm', type: 'message', role: 'assistant', model: 'x', content, stop_reason: null, usage: {} }) as never;
const block = (b: { type: string; [k: string]: unknown }): LoopEvent => ({
  parentToolUseId: 't',
  type: 'assistant_block',
  message: message([b]),
});

describe('subagentHostView', () => {
  it('off: text and thinking lines are dropped, tool calls and everything else kept', () => {
    expect(subagentHostView(block({ type: 'text', text: 'hi' }), false)).toBeUndefined();
    expect(subagentHostView(block({ type: 'thinking', thinking: 'hm' }), false)).toBeUndefined();
    const call = block({ type: 'tool_use', id: 'u', name: 'Bash', input: {} });
    expect(subagentHostView(call, false)).toBe(call);
    const result: LoopEvent = {
      parentToolUseId: 't',
      type: 'tool_result',
      block: { type: 'tool_result', tool_use_id: 'u', content: 'x' },
    };
    expect(subagentHostView(result, false)).toBe(result);
  });

  it('off: a whole reply not shown block by block keeps only its calls; an API error line is kept whole', () => {
    const whole: LoopEvent = {
      parentToolUseId: 't',
      type: 'assistant',
      message: message([
        { type: 'text', text: 'a' },
        { type: 'tool_use', id: 'u', name: 'Read', input: {} },
      ]),
    };
    const shown = subagentHostView(whole, false) as Extract<LoopEvent, { type: 'assistant' }>;
    expect(shown.message.content.map((b) => b.type)).toEqual(['tool_use']);
    const error: LoopEvent = {
      ...whole,
      message: message([{ type: 'text', text: 'API Error' }]),
      error: 'server_error',
    };
    expect(subagentHostView(error, false)).toBe(error);
  });

  it('on: everything', () => {
    const t = block({ type: 'text', text: 'hi' });
    expect(subagentHostView(t, true)).toBe(t);
  });
});
