import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  builtinTools,
  findTool,
  MAX_RESULT_CHARS,
  noSuchToolResult,
  runTool,
  toolApiSchema,
} from '../../../tools/registry.js';
import { defineTool, ToolError, type ToolResult } from '../../../tools/tool.js';
import { makeCtx, run, tempDir, removeDir, text } from './helpers.js';

describe('registry', () => {
  it('lists the built-in tools and finds them by name', () => {
    const tools = builtinTools();
    expect(tools.map((t) => t.name)).toEqual([
      'Bash',
      'Read',
      'Write',
      'Edit',
      'Glob',
      'Grep',
      'NotebookEdit',
      'Agent',
      'TaskOutput',
      'TaskStop',
      'TodoWrite',
      'WebFetch',
      'WebSearch',
      'AskUserQuestion',
      'EnterPlanMode',
      'ExitPlanMode',
      'SendMessage',
      'ListAgents',
      'EnterWorktree',
      'ExitWorktree',
      'CronCreate',
      'CronDelete',
      'CronList',
      'ScheduleWakeup',
      'Monitor',
      'ReportFindings',
      'ToolSearch',
    ]);
    expect(
      builtinTools({ agentTeams: true })
        .map((t) => t.name)
        .slice(-2),
    ).toEqual(['TeamCreate', 'TeamDelete']);
    expect(findTool(tools, 'Read')?.name).toBe('Read');
    expect(findTool(tools, 'Nope')).toBeUndefined();
  });

  it('derives plain object JSON schemas for the Messages API', () => {
    for (const tool of builtinTools()) {
      const s = toolApiSchema(tool);
      expect(s.name).toBe(tool.name);
      expect(s.description.length).toBeGreaterThan(50);
      expect(s.input_schema.type).toBe('object');
      expect(s.input_schema).not.toHaveProperty('$schema');
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    }
    const edit = toolApiSchema(findTool(builtinTools(), 'Edit')!).input_schema as unknown as {
      required: string[];
      properties: Record<string, { type: string; default?: unknown }>;
    };
    expect(edit.required.sort()).toEqual(['file_path', 'new_string', 'old_string']);
    expect(edit.properties.replace_all.type).toBe('boolean');
    const grep = toolApiSchema(findTool(builtinTools(), 'Grep')!).input_schema as unknown as {
      properties: Record<string, unknown>;
    };
    expect(JSON.stringify(grep)).not.toContain('9007199254740991');
    expect(Object.keys(grep.properties)).toEqual(
      expect.arrayContaining([
        'pattern',
        'path',
        'glob',
        'output_mode',
        '-A',
        '-B',
        '-C',
        '-i',
        '-n',
        'head_limit',
        'offset',
        'multiline',
        'type',
      ]),
    );
  });

  it('names a missing or mistyped parameter', async () => {
    const dir = tempDir();
    try {
      const read = findTool(builtinTools(), 'Read')!;
      const missing = await run(read, {}, makeCtx(dir));
      expect(missing.isError).toBe(true);
      expect(text(missing)).toBe(
        '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>',
      );
      const wrong = await run(read, { file_path: 7 }, makeCtx(dir));
      expect(text(wrong)).toContain('The parameter `file_path` type is expected as `string` but provided as `number`');
      const notObject = await run(read, 'x', makeCtx(dir));
      expect(notObject.isError).toBe(true);
    } finally {
      removeDir(dir);
    }
  });

  it('shapes ToolErrors, unexpected exceptions and unknown tools as is_error results', async () => {
    const ctx = makeCtx('/tmp');
    const failing = (err: Error) =>
      defineTool({
        name: 'Fail',
        description: 'fails',
        inputSchema: z.object({}),
        isReadOnly: () => true,
        isConcurrencySafe: () => true,
        // eslint-disable-next-line require-yield
        async *call(): AsyncGenerator<never, ToolResult, void> {
          throw err;
        },
      });
    const expected = await run(failing(new ToolError('nicely said')), {}, ctx);
    expect(expected).toEqual({
      content: '<tool_use_error>nicely said</tool_use_error>',
      isError: true,
      data: undefined,
    });
    const unexpected = await run(failing(new TypeError('boom')), {}, ctx);
    expect(unexpected).toEqual({ content: '<tool_use_error>Error: boom</tool_use_error>', isError: true });
    expect(noSuchToolResult('X')).toEqual({
      content: '<tool_use_error>Error: No such tool available: X</tool_use_error>',
      isError: true,
    });
    // A hostile 64 KiB name is not echoed back whole.
    const clipped = noSuchToolResult('N'.repeat(65_536)).content as string;
    expect(clipped).toBe(
      `<tool_use_error>Error: No such tool available: ${'N'.repeat(100)}… (a name of 65536 characters)</tool_use_error>`,
    );
  });

  it('caps content and passes progress through', async () => {
    const chatty = defineTool({
      name: 'Chatty',
      description: 'talks',
      inputSchema: z.object({}),
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async *call() {
        yield { type: 'progress' as const };
        return { content: 'x'.repeat(MAX_RESULT_CHARS * 3) };
      },
    });
    const gen = runTool(chatty, {}, makeCtx('/tmp'));
    const first = await gen.next();
    expect(first).toEqual({ done: false, value: { type: 'progress' } });
    const last = await gen.next();
    expect(last.done).toBe(true);
    const content = (last.value as ToolResult).content as string;
    expect(content.length).toBeLessThan(MAX_RESULT_CHARS + 100);
    expect(content).toContain('characters truncated');
  });
});
