// Markdown drawn for the terminal, and where a streaming answer is cut into settled blocks.
import { render } from 'ink-testing-library';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadLexer } from '../../../src/tui/markdown/lexer.js';
import { Markdown } from '../../../src/tui/markdown/Markdown.js';
import { settledLength } from '../../../src/tui/markdown/split.js';
import { TuiStore } from '../../../src/tui/store.js';
import type { TaskEvent } from '../../../tools/taskEvents.js';
import { makeTheme, ThemeContext } from '../../../src/tui/theme.js';

// marked is loaded after the first frame in the app; here before the drawing tests.
beforeAll(() => loadLexer());

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const draw = (text: string, color = false) => {
  const r = render(
    <ThemeContext.Provider value={makeTheme(color)}>
      <Markdown text={text} />
    </ThemeContext.Provider>,
  );
  unmount = r.unmount;
  return r;
};

describe('Markdown', () => {
  it('headings, lists, task boxes, quotes, tables and inline code lose their markup', () => {
    const { lastFrame } = draw(
      '# Title\n\nSome **bold** and `code` and a [link](https://x.dev).\n\n- one\n- two\n  1. nested\n\n- [x] done\n- [ ] todo\n\n> quoted\n\n| a | bb |\n|---|---:|\n| 1 | 22 |\n',
    );
    expect(lastFrame()).toBe(
      [
        'Title',
        '',
        'Some bold and `code` and a link (https://x.dev).',
        '',
        '• one',
        '• two',
        '  1. nested',
        '☒ done',
        '☐ todo',
        '',
        '▎ quoted',
        '',
        'a │ bb',
        '──┼───',
        '1 │ 22',
      ].join('\n'),
    );
  });

  it('a code block is split into classed runs once the highlighter has loaded', async () => {
    // A fresh copy of the module: another file run before this one in the same worker (the suite
    // does not isolate files) may have loaded the shared copy's highlighter already.
    vi.resetModules();
    const { highlight, highlighterSettled, loadHighlighter } = await import('../../../src/tui/markdown/highlight.js');
    expect(highlighterSettled()).toBe(false);
    expect(highlight('const x = 1;', 'ts')).toBeUndefined();
    await loadHighlighter();
    expect(highlighterSettled()).toBe(true);
    expect(highlight('const x = "s"; // note\nx', 'ts')).toEqual([
      [
        { text: 'const', cls: 'keyword' },
        { text: ' x = ' },
        { text: '"s"', cls: 'string' },
        { text: '; ' },
        { text: '// note', cls: 'comment' },
      ],
      [{ text: 'x' }],
    ]);
    expect(highlight('x', 'no-such-language')).toBeUndefined();
    const { lastFrame } = draw('```sh\necho hi\n```', false);
    expect(lastFrame()).toBe('  sh\n  echo hi');
  });
});

describe('settledLength', () => {
  it('cuts at the last blank line once the next block has begun, never inside a fence', () => {
    expect(settledLength('one\n\ntw')).toBe(3);
    expect(settledLength('one\n\n')).toBe(0);
    expect(settledLength('one\n\n  indented')).toBe(0);
    expect(settledLength('a\n\n```\nx\n\ny\n')).toBe(1);
    expect(settledLength('a\n\n```\nx\n```\n\nb')).toBe(12);
  });
});

describe('TuiStore streaming', () => {
  it('moves finished blocks into items as they stream, and does not draw them again at the end', () => {
    const store = new TuiStore();
    const ev = (event: unknown) => store.show({ type: 'stream_event', parentToolUseId: null, event } as never);
    ev({ type: 'message_start' });
    ev({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'First para.\n\nSec' } });
    expect(store.snapshot().items.map((i) => (i.kind === 'text' ? i.text : i.kind))).toEqual(['First para.']);
    expect(store.snapshot().streaming).toBe('Sec');
    ev({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'ond.' } });
    store.show({
      type: 'assistant',
      parentToolUseId: null,
      message: { content: [{ type: 'text', text: 'First para.\n\nSecond.' }] },
    } as never);
    expect(store.snapshot().items.map((i) => (i.kind === 'text' ? i.text : i.kind))).toEqual([
      'First para.',
      'Second.',
    ]);
    expect(store.snapshot().streaming).toBe('');
  });
});

describe('TuiStore tasks', () => {
  it("a subagent's row: started, its nested calls as its last action, its progress summary, its end", () => {
    const store = new TuiStore();
    const task = (event: TaskEvent) => store.show({ type: 'task', parentToolUseId: null, event });
    task({
      kind: 'started',
      taskId: 'a1',
      toolUseId: 'tu1',
      description: 'Find the bug',
      taskType: 'local_agent',
      backgrounded: false,
    });
    store.show({
      type: 'assistant',
      parentToolUseId: 'tu1',
      message: { content: [{ type: 'tool_use', id: 'x', name: 'Grep', input: { pattern: 'TODO' } }] },
    } as never);
    expect(store.snapshot().tasks[0]).toMatchObject({
      kind: 'local_agent',
      status: 'running',
      lastAction: 'Grep(TODO)',
    });
    const usage = { totalTokens: 1, toolUses: 1, durationMs: 1 };
    // The progress line that names only the tool keeps the call's label; another tool's name replaces it.
    const progress = (lastToolName: string) =>
      task({ kind: 'progress', taskId: 'a1', toolUseId: 'tu1', description: 'Find the bug', usage, lastToolName });
    progress('Grep');
    expect(store.snapshot().tasks[0].lastAction).toBe('Grep(TODO)');
    progress('Read');
    expect(store.snapshot().tasks[0].lastAction).toBe('Read');
    task({
      kind: 'progress',
      taskId: 'a1',
      toolUseId: 'tu1',
      description: 'Find the bug',
      usage,
      summary: 'Reading the parser',
    });
    expect(store.snapshot().tasks[0].lastAction).toBe('Reading the parser');
    task({
      kind: 'notification',
      taskId: 'a1',
      toolUseId: 'tu1',
      status: 'completed',
      outputFile: '/f',
      summary: 'found it',
    });
    expect(store.snapshot().tasks[0].status).toBe('completed');
  });

  it('a teammate between turns is idle: a message that calls no tool ends its turn, the next one starts another', () => {
    const store = new TuiStore();
    store.show({
      type: 'task',
      parentToolUseId: null,
      event: {
        kind: 'started',
        taskId: 't1',
        toolUseId: 'tu2',
        description: 'Tidy the docs',
        taskType: 'in_process_teammate',
        backgrounded: true,
      },
    });
    const says = (content: unknown[]) =>
      store.show({ type: 'assistant', parentToolUseId: 'tu2', message: { content } } as never);
    says([{ type: 'tool_use', id: 'y', name: 'Bash', input: { command: 'ls' } }]);
    expect(store.snapshot().tasks[0].idle).toBeFalsy();
    says([{ type: 'text', text: 'done for now' }]);
    expect(store.snapshot().tasks[0]).toMatchObject({ status: 'running', idle: true });
    says([{ type: 'tool_use', id: 'z', name: 'Read', input: { file_path: '/a' } }]);
    expect(store.snapshot().tasks[0].idle).toBe(false);
  });
});
