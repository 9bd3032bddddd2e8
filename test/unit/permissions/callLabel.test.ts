// can_use_tool's display_name and description: the tool's `describedBy` says which input field
// describes a call; a tool that declares none (an MCP tool) falls back to a `description` field.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callLabel } from '../../../src/permissions/callLabel.js';
import { builtinTools, findTool } from '../../../tools/registry.js';
import type { Tool } from '../../../tools/tool.js';

const tools = builtinTools();
const label = (name: string, input: unknown) => callLabel(findTool(tools, name), name, input).description;

describe('callLabel', () => {
  it("takes each built-in's declared field, as the reference shows it", () => {
    expect(label('Bash', { command: 'rm -rf x', description: 'Remove x' })).toBe('Remove x');
    // Bash without its own description: the command.
    expect(label('Bash', { command: 'rm -rf x' })).toBe('rm -rf x');
    expect(label('Bash', { command: 'rm -rf x', description: '  ' })).toBe('rm -rf x');
    for (const name of ['Read', 'Write', 'Edit'])
      expect(label(name, { file_path: 'src/a.ts', description: 'not this' })).toBe('src/a.ts');
    expect(label('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x' })).toBe('n.ipynb');
    expect(label('Glob', { pattern: '**/*.ts', path: 'src' })).toBe('**/*.ts');
    expect(label('Grep', { pattern: 'TODO', path: 'src' })).toBe('TODO');
    expect(label('WebFetch', { url: 'https://example.com/', prompt: 'p' })).toBe('https://example.com/');
    expect(label('WebSearch', { query: 'zod v4' })).toBe('zod v4');
    // Agent (and its legacy name Task) is described by its own description field: the default.
    expect(label('Agent', { description: 'Review the diff', prompt: 'p' })).toBe('Review the diff');
    expect(label('Task', { description: 'Review the diff', prompt: 'p' })).toBe('Review the diff');
  });

  it("a tool that declares nothing (an MCP tool's) is described by a description field, else not at all", () => {
    expect(callLabel(undefined, 'mcp__srv__do', { description: 'Do it' })).toEqual({
      display_name: 'mcp__srv__do',
      description: 'Do it',
    });
    expect(callLabel(undefined, 'mcp__srv__do', { file_path: '/a' })).toEqual({ display_name: 'mcp__srv__do' });
  });

  it("a new tool's own declaration is all it takes, and a long value is cut at 200 characters", () => {
    const Stamp = {
      name: 'Stamp',
      description: 'stamps a file',
      inputSchema: z.object({ target: z.string() }),
      isReadOnly: () => false,
      isConcurrencySafe: () => false,
      describedBy: ['target'],
      async *call() {
        return { content: 'ok' };
      },
    } satisfies Tool;
    expect(callLabel(Stamp, 'Stamp', { target: 't.txt', description: 'd' }).description).toBe('t.txt');
    const long = 'x'.repeat(250);
    expect(callLabel(Stamp, 'Stamp', { target: long }).description).toBe(`${'x'.repeat(200)}…`);
  });
});
