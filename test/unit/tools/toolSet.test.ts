// The session's offered tools: one list from built-in, added and MCP tools, read as a fresh array
// after each change (never spliced under a reader), the same array otherwise.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../tools/tool.js';
import { ToolSet } from '../../../tools/toolSet.js';

const tool = (name: string): Tool =>
  ({
    name,
    description: name,
    inputSchema: z.object({}),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async *call() {
      return { content: name };
    },
  }) as unknown as Tool;

const names = (t: Tool[]) => t.map((x) => x.name);

describe('ToolSet', () => {
  it('lists built-in, added and MCP tools in that order; the same array until something changes', () => {
    const set = new ToolSet([tool('Bash'), tool('Read')]);
    const first = set.list();
    expect(set.list()).toBe(first);
    set.add(tool('Skill'));
    const second = set.list();
    expect(second).not.toBe(first);
    expect(names(first)).toEqual(['Bash', 'Read']); // a reader's list is never changed under it
    expect(set.setMcp([tool('mcp__s__a')])).toBe(true);
    expect(names(set.list())).toEqual(['Bash', 'Read', 'Skill', 'mcp__s__a']);
    expect(names(second)).toEqual(['Bash', 'Read', 'Skill']);
  });

  it('setMcp says whether the offered names changed', () => {
    const set = new ToolSet([tool('Bash')]);
    expect(set.setMcp([tool('mcp__s__a')])).toBe(true);
    expect(set.setMcp([tool('mcp__s__a')])).toBe(false);
    expect(set.setMcp([])).toBe(true);
  });

  it('narrow filters every source, tools added later too; localNames ignores the filter and MCP', () => {
    const set = new ToolSet([tool('Bash'), tool('Read')]);
    set.narrow((t) => t.name !== 'Bash' && t.name !== 'mcp__s__b');
    set.setMcp([tool('mcp__s__a'), tool('mcp__s__b')]);
    set.add(tool('Skill'));
    expect(names(set.list())).toEqual(['Read', 'Skill', 'mcp__s__a']);
    expect(set.has('Bash')).toBe(false);
    expect([...set.localNames()].sort()).toEqual(['Bash', 'Read', 'Skill']);
  });
});
