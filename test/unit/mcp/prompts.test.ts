import { describe, expect, it } from 'vitest';
import { mcpPromptCommands, promptArgumentHint, promptArguments, promptText } from '../../../src/mcp/prompts.js';

const review = {
  name: 'review',
  description: 'Review the change',
  arguments: [
    { name: 'focus', required: true },
    { name: 'notes', required: false },
  ],
};

describe("MCP servers' prompts as slash commands", () => {
  it('takes the typed words in the listed order, the last argument the rest; a missing required one is named', () => {
    expect(promptArgumentHint(review)).toBe('<focus> [notes]');
    expect(promptArguments(review, 'security look at auth')).toEqual({ focus: 'security', notes: 'look at auth' });
    expect(promptArguments(review, 'security')).toEqual({ focus: 'security' });
    expect(() => promptArguments(review, '  ')).toThrow(/missing the argument focus \(<focus> \[notes\]\)/);
  });

  it("sends the prompt's messages as text, named mcp__server__prompt", async () => {
    expect(
      promptText({
        messages: [
          { role: 'user', content: { type: 'text', text: 'one' } },
          { role: 'user', content: { type: 'resource', resource: { uri: 'file:///a', text: 'two' } } },
          { role: 'user', content: { type: 'image', data: '', mimeType: 'image/png' } },
        ],
      }),
    ).toBe('one\n\ntwo\n\n[image]');
    const got: unknown[] = [];
    const [cmd] = mcpPromptCommands(() => [
      {
        server: 'my server',
        prompt: review,
        get: async (args) => {
          got.push(args);
          return { messages: [{ role: 'user', content: { type: 'text', text: 'Review it.' } }] };
        },
      },
    ])();
    expect(cmd).toMatchObject({ name: 'mcp__my_server__review', argumentHint: '<focus> [notes]' });
    expect(cmd.description).toBe('Review the change (MCP: my server)');
    expect(await cmd.run('speed')).toEqual({ kind: 'prompt', prompt: 'Review it.', allowedTools: [] });
    expect(got).toEqual([{ focus: 'speed' }]);
  });
});
