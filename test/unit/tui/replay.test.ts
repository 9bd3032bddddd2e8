import { describe, expect, it } from 'vitest';
import { replayItems } from '../../../src/tui/replay.js';

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
});
