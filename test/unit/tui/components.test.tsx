// The UI's components under ink-testing-library: keys in, frames out.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { AskHostAnswer } from '../../../src/loop/toolPipeline.js';
import { App } from '../../../src/tui/App.js';
import { PermissionDialog } from '../../../src/tui/components/PermissionDialog.js';
import type { TuiDeps } from '../../../src/tui/deps.js';
import { TuiStore } from '../../../src/tui/store.js';
import { makeTheme, ThemeContext } from '../../../src/tui/theme.js';

const tick = () => new Promise((r) => setTimeout(r, 30));
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const req = {
  tool_name: 'Bash',
  input: { command: 'npm test' },
  tool_use_id: 't1',
  permission_suggestions: [
    {
      type: 'addRules' as const,
      rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
      behavior: 'allow' as const,
      destination: 'localSettings' as const,
    },
  ],
};

function dialog(onAnswer: (a: AskHostAnswer) => void) {
  const r = render(
    <ThemeContext.Provider value={makeTheme(false)}>
      <PermissionDialog req={req} onAnswer={onAnswer} />
    </ThemeContext.Provider>,
  );
  unmount = r.unmount;
  return r;
}

describe('PermissionDialog', () => {
  it('shows the exact rule "yes, always" adds, and one key answers', async () => {
    const answers: AskHostAnswer[] = [];
    const { lastFrame, stdin } = dialog((a) => answers.push(a));
    expect(lastFrame()).toContain('Allow Bash(npm test)?');
    expect(lastFrame()).toContain('2. Yes, and always: allow Bash(npm test:*) in .claude/settings.local.json (a)');
    await tick();
    stdin.write('a');
    await tick();
    expect(answers).toEqual([
      { behavior: 'allow', updatedInput: { command: 'npm test' }, updatedPermissions: req.permission_suggestions },
    ]);
  });

  it('arrows and Enter pick a choice', async () => {
    const answers: AskHostAnswer[] = [];
    const { lastFrame, stdin } = dialog((a) => answers.push(a));
    await tick();
    stdin.write('\x1b[B');
    await tick();
    stdin.write('\x1b[B');
    await tick();
    expect(lastFrame()).toMatch(/❯ 3\. No/);
    stdin.write('\r');
    await tick();
    expect(answers).toEqual([{ behavior: 'deny', message: 'The user denied permission to use Bash.' }]);
  });
});

describe('App', () => {
  function app(over: Partial<TuiDeps> = {}) {
    const store = new TuiStore();
    const submitted: string[] = [];
    let mode: TuiDeps['modes'][number] = 'default';
    const deps: TuiDeps = {
      banner: 'agent test',
      colour: 0,
      submit: (t) => submitted.push(t),
      interrupt: () => false,
      status: () => ({ model: 'claude-test', mode, contextWindow: 200_000, branch: 'main' }),
      modes: ['default', 'acceptEdits', 'plan'],
      setMode: (m) => {
        mode = m;
      },
      ...over,
    };
    const exits: number[] = [];
    const r = render(
      <ThemeContext.Provider value={makeTheme(false)}>
        <App store={store} deps={deps} onExit={() => exits.push(1)} />
      </ThemeContext.Provider>,
    );
    unmount = r.unmount;
    return { ...r, store, submitted, exits };
  }

  it('the status line shows model, mode, context, cost and branch; Shift+Tab cycles the mode', async () => {
    const { lastFrame, stdin } = app();
    expect(lastFrame()).toMatch(/⏵ default \(shift\+tab\) · claude-test +ctx 0% · \$0\.0000 · ⎇ main/);
    await tick();
    stdin.write('\x1b[Z');
    await tick();
    expect(lastFrame()).toContain('⏵ acceptEdits');
  });

  it('a tool row runs with a spinner, then shows ✓ and its result; the todo list updates in place', async () => {
    const { lastFrame, store } = app();
    const todos = [
      { content: 'Write it', status: 'completed', activeForm: 'Writing it' },
      { content: 'Test it', status: 'in_progress', activeForm: 'Testing it' },
    ];
    store.show({
      type: 'assistant',
      parentToolUseId: null,
      message: { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'TodoWrite', input: { todos } }] },
    } as any);
    await tick();
    expect(lastFrame()).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] TodoWrite\(/);
    store.show({
      type: 'tool_result',
      parentToolUseId: null,
      block: { type: 'tool_result', tool_use_id: 'u1', content: 'ok' },
    } as any);
    await tick();
    expect(lastFrame()).toMatch(/✓ TodoWrite\(/);
    expect(lastFrame()).toMatch(/☒ Write it\n☐ Testing it/);
    // The next TodoWrite's list takes the place of this one.
    const next = [todos[0], { ...todos[1], status: 'completed' }];
    store.show({
      type: 'assistant',
      parentToolUseId: null,
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'u2', name: 'TodoWrite', input: { todos: next } }],
      },
    } as any);
    store.show({
      type: 'tool_result',
      parentToolUseId: null,
      block: { type: 'tool_result', tool_use_id: 'u2', content: 'ok' },
    } as any);
    await tick();
    expect(lastFrame()).toMatch(/☒ Write it\n☒ Test it/);
    expect(lastFrame()).not.toMatch(/Testing it/);
    expect(lastFrame()!.match(/^Todos$/gm)).toHaveLength(1);
  });

  it('Enter sends the prompt; /exit leaves without sending', async () => {
    const { stdin, submitted, exits } = app();
    await tick();
    stdin.write('hello');
    await tick();
    stdin.write('\r');
    await tick();
    stdin.write('/exit\r');
    await tick();
    expect(submitted).toEqual(['hello']);
    expect(exits).toEqual([1]);
  });
});
