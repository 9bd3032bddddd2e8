// The loop's structured-output rule finds its tool by role: a tool of that role under another
// name is tracked by that name; a tool merely named StructuredOutput is not.
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../tools/tool.js';
import { createStructuredOutputTool } from '../../../tools/structuredOutput.js';
import { MAX_STRUCTURED_OUTPUT_RETRIES, StructuredOutputTracker } from '../../../src/loop/structuredOutput.js';

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

describe('structured output tracker', () => {
  it('applies to the tool of role structured-output, under the name it is offered by', () => {
    const builtin = createStructuredOutputTool(schema);
    expect(builtin.role).toBe('structured-output');
    const renamed = { ...builtin, name: 'FinalAnswer' } as Tool;
    const tracker = StructuredOutputTracker.forTools([renamed])!;
    expect(tracker).toBeDefined();
    // A call of another tool (even one named StructuredOutput) is not the structured output.
    const other = { id: 'a', name: 'StructuredOutput', input: { answer: 'no' } };
    expect(tracker.afterBatch([other], [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }], [{}])).toBe(
      undefined,
    );
    const reminded = tracker.onEndTurn();
    expect(reminded).toEqual({
      kind: 'remind',
      text:
        'You ended your turn without calling the FinalAnswer tool. ' +
        'The caller needs your final answer as structured output: call FinalAnswer now with it as the input.',
    });
    const bad = { id: 'b', name: 'FinalAnswer', input: {} };
    for (let i = 1; i < MAX_STRUCTURED_OUTPUT_RETRIES; i++)
      expect(
        tracker.afterBatch([bad], [{ type: 'tool_result', tool_use_id: 'b', content: 'missing', is_error: true }], []),
      ).toBe(undefined);
    expect(
      tracker.afterBatch([bad], [{ type: 'tool_result', tool_use_id: 'b', content: 'missing', is_error: true }], []),
    ).toEqual({
      kind: 'failed',
      text: `The model did not produce valid structured output after ${MAX_STRUCTURED_OUTPUT_RETRIES} invalid FinalAnswer calls. Last error: missing`,
    });
    const good = { id: 'c', name: 'FinalAnswer', input: { answer: 'yes' } };
    expect(
      tracker.afterBatch([good], [{ type: 'tool_result', tool_use_id: 'c', content: 'ok' }], [{ answer: 'yes' }]),
    ).toEqual({ kind: 'done', value: { answer: 'yes' } });
  });

  it('a tool without the role gives no tracker, whatever its name', () => {
    const named = { ...createStructuredOutputTool(schema), role: undefined } as Tool;
    expect(StructuredOutputTracker.forTools([named])).toBeUndefined();
  });
});
