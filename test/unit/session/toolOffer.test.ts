// What the main loop offers the model: the session's tools with StructuredOutput last, rebuilt
// only when the list or StructuredOutput changed.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolOffer } from '../../../src/session/toolOffer.js';
import { defineTool, type Tool } from '../../../tools/tool.js';

const tool = (name: string): Tool =>
  defineTool({
    name,
    description: `the ${name} tool`,
    inputSchema: z.object({}),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call() {
      return { content: name };
    },
  }) as Tool;

describe('ToolOffer', () => {
  it('StructuredOutput goes last; the same list is the same offer; a new list or StructuredOutput rebuilds it', () => {
    let list = [tool('Read'), tool('Bash')];
    const offer = new ToolOffer({ tools: () => list, toolSearch: { mode: 'never' } }, () => 200_000);
    const first = offer.tools();
    expect(first.map((t) => t.name)).toEqual(['Read', 'Bash']);
    expect(offer.tools()).toBe(first);
    expect(offer.toolNames()).toEqual(['Read', 'Bash']);
    list = [...list, tool('Grep')];
    expect(offer.tools().map((t) => t.name)).toEqual(['Read', 'Bash', 'Grep']);
    expect(offer.schemas().tools.map((t) => t.name)).toEqual(['Read', 'Bash', 'Grep']);
    expect(offer.schemas().deferredTools).toEqual([]);

    const so = tool('StructuredOutput');
    const withSo = new ToolOffer(
      { tools: () => list, structuredOutputTool: so, toolSearch: { mode: 'never' } },
      () => 200_000,
    );
    expect(withSo.tools().map((t) => t.name)).toEqual(['Read', 'Bash', 'Grep', 'StructuredOutput']);
    expect(withSo.apiTools().map((t) => t.name)).toEqual(['Read', 'Bash', 'Grep', 'StructuredOutput']);
  });
});
