// src/tui/inkOutput.ts: the UI's Output.get gives Ink's own output, frame for frame. Every frame
// Ink draws here goes through a get that runs both and compares them; then generated writes
// (colours, bold and dim together, wide characters, clips) are compared the same way.
import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Output from '../../../node_modules/ink/build/output.js';
import { App } from '../../../src/tui/App.js';
import type { TuiDeps } from '../../../src/tui/deps.js';
import { fastGet, inkGet, installFastOutput } from '../../../src/tui/inkOutput.js';
import { loadHighlighter } from '../../../src/tui/markdown/highlight.js';
import { loadLexer } from '../../../src/tui/markdown/lexer.js';
import { TuiStore } from '../../../src/tui/store.js';
import { makeTheme, ThemeContext } from '../../../src/tui/theme.js';
import { builtinTools, findTool } from '../../../tools/registry.js';
import { editedFiles } from '../../../tools/toolCall.js';

const tick = () => new Promise((r) => setTimeout(r, 40));
let compared = 0;
let level: typeof chalk.level;

beforeAll(async () => {
  level = chalk.level;
  chalk.level = 3;
  await Promise.all([loadLexer(), loadHighlighter()]);
  // Each frame: Ink's get and ours on the same writes; the test fails at the first difference.
  Output.prototype.get = function (this: Output) {
    const ink = inkGet.call(this);
    expect(fastGet.call(this)).toEqual(ink);
    compared++;
    return ink;
  };
});

afterAll(() => {
  Output.prototype.get = inkGet;
  chalk.level = level;
});

describe('fastGet', () => {
  it('is what Ink draws with once installed', () => {
    const was = Output.prototype.get;
    installFastOutput();
    expect(Output.prototype.get).toBe(fastGet);
    Output.prototype.get = was;
  });

  it('gives Ink’s frames for a session drawn in colour (answers, tools, diff, todos, dialog, status line)', async () => {
    const store = new TuiStore({ highlight: true });
    const deps: TuiDeps = {
      banner: 'agent test · 世界 wide',
      colour: 3,
      submit: () => {},
      interrupt: () => false,
      status: () => ({ model: 'claude-test', mode: 'acceptEdits', contextWindow: 200_000, branch: 'main' }),
      modes: ['default', 'acceptEdits', 'plan'],
      setMode: () => {},
      // Write declares kind 'edit' and the file it writes: its permission question shows the diff.
      editedFiles: (name, input) => editedFiles(findTool(builtinTools(), name), input),
    };
    const r = render(
      <ThemeContext.Provider value={makeTheme(true)}>
        <App store={store} deps={deps} onExit={() => {}} />
      </ThemeContext.Provider>,
    );
    const before = compared;
    r.stdin.write('hello 世界');
    await tick();
    store.submitted('hello 世界');
    const msg = (content: unknown[]) =>
      store.show({ type: 'assistant', message: { role: 'assistant', content } } as never);
    store.show({ type: 'stream_event', event: { type: 'message_start' } } as never);
    for (const t of [
      '# Title\n\nSome **bold** and `code`',
      ' and a [link](https://x.dev).\n\n',
      '```ts\nconst x = 1;\n```\n',
    ])
      store.show({
        type: 'stream_event',
        event: { type: 'content_block_delta', delta: { type: 'text_delta', text: t } },
      } as never);
    await tick();
    msg([
      {
        type: 'text',
        text: '# Title\n\nSome **bold** and `code` and a [link](https://x.dev).\n\n```ts\nconst x = 1;\n```',
      },
      { type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'seq 1 10' } },
      {
        type: 'tool_use',
        id: 'e1',
        name: 'TodoWrite',
        input: { todos: [{ content: 'Do it', status: 'in_progress', activeForm: 'Doing it' }] },
      },
    ]);
    await tick();
    store.show({ type: 'tool_result', block: { tool_use_id: 'b1', content: '1\n2\n3\n4\n5\n6' } } as never);
    store.show({ type: 'tool_result', block: { tool_use_id: 'e1', content: 'ok' } } as never);
    await tick();
    const answer = store.ask(
      { tool_name: 'Write', input: { file_path: '/nonexistent/x.txt', content: 'a\nb\n' }, tool_use_id: 'w1' } as never,
      new AbortController().signal,
    );
    await tick();
    r.stdin.write('n');
    await answer;
    await tick();
    msg([{ type: 'text', text: '| a | bb |\n|---|---:|\n| 1 | 22 |\n\n> quoted ~~old~~ *em*\n\n- [x] done\n- one' }]);
    await tick();
    r.unmount();
    expect(compared - before).toBeGreaterThan(8);
  });

  it('gives Ink’s output for generated writes: styles that overlap and end, wide characters, clips', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const styles = [
      (s: string) => s,
      chalk.red,
      chalk.bold,
      chalk.dim,
      chalk.bold.dim,
      chalk.inverse,
      chalk.bgBlue.white,
      chalk.hex('#ff8800'),
      chalk.italic.underline,
      (s: string) => chalk.red(`a${chalk.bold(s)}b`),
    ];
    const words = ['x', 'hello', ' ', '世界', '╭──╮', '⏵', 'é', 'a b c', '✓', ''];
    const piece = () => styles[rand(styles.length)](words[rand(words.length)]);
    for (let n = 0; n < 400; n++) {
      const o = new Output({ width: 1 + rand(20), height: 1 + rand(5) });
      for (let k = rand(8); k >= 0; k--) {
        if (rand(6) === 0) o.clip({ x1: rand(5), x2: 3 + rand(15), y1: rand(2), y2: 1 + rand(4) });
        if (rand(8) === 0) o.unclip();
        const text = Array.from({ length: 1 + rand(3) }, () => piece() + piece()).join(rand(3) ? '' : '\n');
        o.write(rand(12), rand(5), text, { transformers: rand(4) ? [] : [(s: string) => chalk.green(s)] });
      }
      expect(fastGet.call(o), `case ${n}`).toEqual(inkGet.call(o));
    }
  });
});
