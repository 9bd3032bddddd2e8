import { describe, expect, it } from 'vitest';
import { replayItems } from '../../../src/tui/replay.js';
import { TuiStore } from '../../../src/tui/store.js';
import { resumedToolResults } from '../../../src/session/resumedToolResults.js';
import { findTool, builtinTools } from '../../../tools/registry.js';
import { editedFiles } from '../../../tools/toolCall.js';

describe('a resumed conversation drawn again', () => {
  it('prompts without the runtime reminders, thoughts, answers, and tool rows with their results', () => {
    const items = replayItems([
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nattached file\n</system-reminder>' },
          { type: 'text', text: 'fix @a.ts' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'look first' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/p/a.ts' } },
          { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'false' } },
          { type: 'tool_use', id: 't3', name: 'Bash', input: { command: 'sleep 9' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: '1\tconst a = 1;' },
          { type: 'tool_result', tool_use_id: 't2', content: 'exit 1', is_error: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      { role: 'user', content: 'thanks' },
    ]);
    expect(items.map((i) => [i.kind, 'text' in i ? i.text : 'label' in i ? `${i.label} ${i.status}` : ''])).toEqual([
      ['user', 'fix @a.ts'],
      ['thinking', 'look first'],
      ['text', 'Reading it.'],
      ['tool', 'Read(/p/a.ts) ok'],
      ['tool', 'Bash(false) error'],
      ['tool', 'Bash(sleep 9) error'],
      ['text', 'Done.'],
      ['user', 'thanks'],
    ]);
    expect(items[3]).toMatchObject({ result: '1\tconst a = 1;' });
  });

  it("an Edit's row carries the diff its result showed, from the transcript line's toolUseResult", () => {
    const patch = { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' a', '-b', '+B'] };
    const data = resumedToolResults([
      {
        entry: {
          type: 'user',
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e1', content: 'edited' }] },
          toolUseResult: { filePath: '/p/n.txt', structuredPatch: [patch], originalFile: 'a\nb\n' },
        },
      },
      // A line of two results cannot say whose its data is.
      {
        entry: {
          type: 'user',
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'x1', content: '' },
              { type: 'tool_result', tool_use_id: 'x2', content: '' },
            ],
          },
          toolUseResult: { filePath: '/p/x.txt', structuredPatch: [patch] },
        },
      },
    ]);
    expect([...data.keys()]).toEqual(['e1']);
    const items = replayItems(
      [
        { role: 'user', content: 'edit it' },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'e1',
              name: 'Edit',
              input: { file_path: '/p/n.txt', old_string: 'b', new_string: 'B' },
            },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e1', content: 'edited' }] },
      ],
      data,
      (name, input) => editedFiles(findTool(builtinTools(), name), input),
    );
    expect(items[1]).toMatchObject({ kind: 'tool', status: 'ok', diff: { file: '/p/n.txt', added: 1, removed: 1 } });
  });

  it("draws a result as a diff when its tool declares kind 'edit', whatever its name, under the file it declares", () => {
    const patch = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+b'] };
    // Scribble's path field is its own (`target`), and its result does not name the file.
    const input = { target: '/p/a', file_path: '/p/other' };
    const history = (name: string) => [
      { role: 'assistant' as const, content: [{ type: 'tool_use', id: 't1', name, input }] },
      { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 't1', content: 'done' }] },
    ];
    const data = new Map([['t1', { originalFile: 'a', structuredPatch: [patch] }]]);
    // Here the session's Edit is not an edit tool: a name alone draws nothing.
    const edited = (name: string, i: unknown) => (name === 'Scribble' ? [(i as { target: string }).target] : undefined);
    expect(replayItems(history('Scribble'), data, edited)[0]).toMatchObject({ diff: { file: '/p/a', added: 1 } });
    expect(replayItems(history('Edit'), data, edited)[0]).not.toHaveProperty('diff');

    const store = new TuiStore({ editedFiles: edited });
    for (const name of ['Scribble', 'Edit']) {
      store.show({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: name, name, input }] },
      } as never);
      store.show({
        type: 'tool_result',
        block: { tool_use_id: name, content: 'done' },
        data: { originalFile: 'a', structuredPatch: [patch] },
      } as never);
    }
    const tools = store.snapshot().items.filter((i) => i.kind === 'tool');
    expect(tools.map((t) => [t.name, 'diff' in t && t.diff !== undefined])).toEqual([
      ['Scribble', true],
      ['Edit', false],
    ]);
    expect(tools[0]).toMatchObject({ diff: { file: '/p/a' } });
  });

  it('rows added while a resumed session starts stay below its conversation, unwritten until it comes', () => {
    const store = new TuiStore();
    store.push({ kind: 'banner', text: 'agent' });
    store.awaitReplay();
    store.submitted('typed early');
    expect(store.snapshot().committed).toBe(1);
    store.replay([
      { kind: 'user', text: 'earlier prompt' },
      { kind: 'note', text: 'resumed', tone: 'dim' },
    ]);
    const { items, committed } = store.snapshot();
    expect(items.map((i) => ('text' in i ? i.text : ''))).toEqual([
      'agent',
      'earlier prompt',
      'resumed',
      'typed early',
    ]);
    expect(committed).toBe(4);
  });
});
