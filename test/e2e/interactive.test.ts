// The interactive terminal UI end to end: bin/agent in a tmux pane against the fake API, driven by
// keystrokes; the screen is asserted after each step, as a person would read it.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { startFakeApi, text, toolUse } from '../fake-api/server.js';
import { waitUntil } from '../processes.js';
import { AGENT_BIN, resultsById } from './harness.js';
import { hasTmux, READY, send, typedText, uiIt as it } from './tmux.js';

if (!hasTmux) console.warn('interactive.test.ts: skipped: tmux is not installed (it gives the UI a real terminal)');

(hasTmux ? describe.concurrent : describe.skip)('interactive terminal UI (in tmux)', () => {
  it('two prompts in one session, the status line, then /exit exits 0 after the SessionEnd hook; NO_COLOR writes no colour', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('first answer'), text('second answer')]);
    const cwd = ui.dir();
    const hookLog = join(cwd, 'session-end.json');
    const hook = join(ui.dir('agent-hooks-'), 'end.sh');
    writeFileSync(hook, `#!/bin/sh\ncat > '${hookLog}'\n`);
    chmodSync(hook, 0o755);
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] } }),
    );
    const t = ui.start(['--model', 'claude-haiku-4-5'], cwd, { env: { NO_COLOR: '1' } });
    let s = await t.waitFor(/default \(shift\+tab\) · claude-haiku-4-5 +ctx 0% · \$0\.0000/);
    // The banner may wrap at 80 columns (a long temp cwd): read it with the wraps undone.
    expect(s.replace(/\s+/g, ' ')).toMatch(/\/exit or Ctrl\+D to quit, Esc to interrupt/);
    await send(t, 'one');
    s = await t.waitFor(/first answer\n\(1 turn, \$[\d.]+, [\d.]+s\)/);
    expect(s).toMatch(/^> one$/m);
    await send(t, 'two');
    await t.waitFor(/second answer/);
    // The status line counts the session's cost and the context the last request used.
    s = await t.waitFor(/ctx [1-9]\d*% · \$0\.0\d*[1-9]/);
    // NO_COLOR: no colour and no dim (inverse for the cursor and the terminal's resets are fine).
    const codes = (t.rawScreen().match(/\x1b\[[\d;]*m/g) ?? []).flatMap((c) => c.slice(2, -1).split(';'));
    expect(codes.filter((c) => !['', '0', '7', '27', '39', '49'].includes(c))).toEqual([]);
    await send(t, '/exit');
    expect(await t.exited()).toBe(0);
    expect(JSON.parse(readFileSync(hookLog, 'utf8'))).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'prompt_input_exit',
    });
    expect(ui.api.requests).toHaveLength(2);
    expect(typedText(ui.api.requests[1])).toBe('two');
  });

  it('multi-line input: a backslash before Enter adds a line, Enter sends both lines as one prompt', async ({ ui }) => {
    ui.api = await startFakeApi([text('got two lines')]);
    const t = ui.start([], ui.dir());
    await t.waitFor(READY);
    t.type('line one\\');
    t.keys('Enter');
    await t.waitFor(/│ > line one +│\n│ {3} +│/);
    t.type('line two');
    // Shift+Enter as a terminal reports it with the kitty keyboard protocol (CSI 13;2u).
    t.keys('-H', ...Buffer.from('\x1b[13;2u').toString('hex').match(/../g)!);
    await t.waitFor(/│ {3}line two +│\n│ {3} +│/);
    t.type('line three');
    t.keys('Enter');
    await t.waitFor(/got two lines/);
    expect(typedText(ui.api.requests[0])).toBe('line one\nline two\nline three');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('slash commands: /help prints the list, a project command becomes the prompt; Ctrl+D leaves', async ({ ui }) => {
    ui.api = await startFakeApi([text('greeted')]);
    const cwd = ui.dir();
    mkdirSync(join(cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'commands', 'greet.md'),
      '---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $1 warmly\n',
    );
    const t = ui.start([], cwd, { rows: 60 });
    await send(t, '/help');
    await t.waitFor(/\/greet <name> — Greet someone \(project\)[\s\S]*\(0 turns/);
    await send(t, '/greet Ada');
    await t.waitFor(/greeted/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
    expect(typedText(ui.api.requests[0])).toBe('Greet Ada warmly');
  });

  it('a tool call is one row whose spinner becomes ✓; Bash output is collapsed to its last lines', async ({ ui }) => {
    ui.api = await startFakeApi([toolUse('Bash', { command: 'seq 1 10' }), text('counted')]);
    const t = ui.start(['--allowedTools', 'Bash(seq:*)'], ui.dir());
    await send(t, 'count');
    const s = await t.waitFor(/counted/);
    expect(s).toMatch(
      /✓ Bash\(seq 1 10\)\n {2}⎿ … 6 lines before \(ctrl\+o to expand\)\n {4}7\n {4}8\n {4}9\n {4}10\n/,
    );
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('the permission dialog takes one key: y runs the call, n denies it and the model sees the denial', async ({
    ui,
  }) => {
    ui.api = await startFakeApi((req) => {
      const results = resultsById(req);
      if (Object.keys(results).length) return text(results.a ? 'made it' : 'ok, not making it');
      return typedText(req) === 'make a'
        ? toolUse('Bash', { command: 'touch a.txt' }, 'a')
        : toolUse('Bash', { command: 'touch b.txt' }, 'b');
    });
    const cwd = ui.dir();
    const t = ui.start([], cwd);
    await send(t, 'make a');
    let s = await t.waitFor(
      /Allow Bash\(touch a\.txt\)\?[\s\S]*❯ 1\. Yes \(y\)[\s\S]*3\. No \(n\)[\s\S]*4\. No, and tell/,
    );
    expect(s).toMatch(/2\. Yes, and always: allow Bash\(touch[^)]*\) for this session \(a\)/);
    t.type('y');
    await t.waitFor(/made it/);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);
    await send(t, 'make b');
    await t.waitFor(/Allow Bash\(touch b\.txt\)\?/);
    t.type('n');
    s = await t.waitFor(/ok, not making it/);
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);
    expect(s).toMatch(/✗ Bash\(touch b\.txt\)\n {2}⎿ The user denied permission to use Bash/);
    const seen = resultsById(ui.api.requests[3]);
    expect(seen.b.isError).toBe(true);
    expect(seen.b.text).toMatch(/denied/i);
    await send(t, '/exit');
    expect(await t.exited()).toBe(0);
  });

  it('"no, and say what to do": the feedback typed in the dialog reaches the model with the denial', async ({ ui }) => {
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('will do') : toolUse('Bash', { command: 'rm -rf build' }, 'r'),
    );
    const t = ui.start([], ui.dir());
    await send(t, 'clean');
    await t.waitFor(/Allow Bash\(rm -rf build\)\?/);
    t.type('f');
    await t.waitFor(/What should the agent do instead\?/);
    t.type('use make clean');
    t.keys('Enter');
    await t.waitFor(/will do/);
    expect(resultsById(ui.api.requests[1]).r.text).toMatch(/denied permission to use Bash and said: use make clean/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('"yes, always" adds the rule the dialog showed: the same call is not asked again', async ({ ui }) => {
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('touched') : toolUse('Bash', { command: 'touch c.txt' }),
    );
    const t = ui.start([], ui.dir());
    await send(t, 'first');
    await t.waitFor(/Allow Bash\(touch c\.txt\)\?/);
    t.type('a');
    await t.waitFor(/touched/);
    await send(t, 'second');
    await t.waitFor(/touched[\s\S]*touched/);
    expect(t.screen().match(/Allow Bash/g)).toBeNull();
    expect(Object.values(resultsById(ui.api.requests[3]))).toEqual([expect.objectContaining({ isError: false })]);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('AskUserQuestion and ExitPlanMode are dialogs; [a] approves the plan into acceptEdits', async ({ ui }) => {
    const question = {
      question: 'Which color?',
      header: 'Color',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
      multiSelect: false,
    };
    ui.api = await startFakeApi([
      toolUse('AskUserQuestion', { questions: [question] }, 'q'),
      toolUse('ExitPlanMode', { plan: 'Paint it blue.' }, 'p'),
      text('painting'),
    ]);
    const t = ui.start(['--permission-mode', 'plan'], ui.dir(), { rows: 40 });
    await send(t, 'paint');
    await t.waitFor(/\[Color\] Which color\?[\s\S]*1\. Red — warm[\s\S]*2\. Blue — cool[\s\S]*3\. Other/);
    t.type('7');
    t.keys('Enter');
    await t.waitFor(/Not one of the choices\.[^\n]*\n[^\n]*Choose 1-3/);
    t.type('2');
    t.keys('Enter');
    await t.waitFor(/Plan for approval:[\s\S]*Paint it blue\.[\s\S]*Approve this plan and leave plan mode\?/);
    t.type('a');
    await t.waitFor(/painting/);
    await t.waitFor(/acceptEdits \(shift\+tab\)/);
    expect(resultsById(ui.api.requests[1]).q.text).toContain('"Which color?"="Blue"');
    expect(resultsById(ui.api.requests[2]).p.text).toContain('permission mode now: acceptEdits');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('Esc interrupts a long Bash and the prompt comes back; Ctrl+C twice at an empty prompt leaves', async ({ ui }) => {
    // A sleep no other test runs, to find its process.
    const seconds = `30.${Math.floor(Math.random() * 1e6)}`;
    const sleeping = () =>
      spawnSync('ps', ['-eo', 'args='], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l.startsWith(`sleep ${seconds}`));
    ui.api = await startFakeApi((req) =>
      typedText(req) === 'wait' && !Object.keys(resultsById(req)).length
        ? toolUse('Bash', { command: `sleep ${seconds}` })
        : text('back again'),
    );
    const t = ui.start(['--allowedTools', 'Bash(sleep:*)'], ui.dir());
    await send(t, 'wait');
    await t.waitFor(/Bash\(sleep 30\.\d+\)[\s\S]*esc to interrupt/);
    expect(await waitUntil(() => sleeping().length === 1, 5000)).toBe(true);
    const t0 = Date.now();
    t.keys('Escape');
    await t.waitFor(/✗ Bash\(sleep 30\.\d+\)[\s\S]*Interrupted/);
    expect(Date.now() - t0).toBeLessThan(5000);
    // The tool's process is gone too.
    expect(await waitUntil(() => sleeping().length === 0, 3000)).toBe(true);
    await send(t, 'hello');
    await t.waitFor(/back again/);
    await t.waitFor(READY);
    t.keys('C-c');
    await t.waitFor(/press Ctrl\+C again to exit/);
    t.keys('C-c');
    expect(await t.exited()).toBe(0);
  });

  it('Shift+Tab cycles the mode, the status line shows it (and the git branch), and the next tool call runs under it', async ({
    ui,
  }) => {
    const cwd = ui.dir();
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length
        ? text('written')
        : toolUse('Write', { file_path: join(cwd, 'note.txt'), content: 'hi\n' }),
    );
    // A git checkout: the status line names its branch.
    expect(spawnSync('git', ['init', '-q', '-b', 'topic-x'], { cwd }).status).toBe(0);
    const t = ui.start([], cwd);
    await t.waitFor(/default \(shift\+tab\) · .* · ⎇ topic-x$/m);
    t.keys('BTab');
    await t.waitFor(/acceptEdits \(shift\+tab\)/);
    await send(t, 'write it');
    await t.waitFor(/written/);
    // acceptEdits: the Write ran without a question.
    expect(t.screen()).not.toMatch(/Allow Write/);
    expect(readFileSync(join(cwd, 'note.txt'), 'utf8')).toBe('hi\n');
    t.keys('BTab');
    await t.waitFor(/plan \(shift\+tab\)/);
    t.keys('BTab');
    // bypassPermissions is not offered without --allow-dangerously-skip-permissions.
    await t.waitFor(/default \(shift\+tab\)/);
    // A checkout made meanwhile shows at the next redraw once 2 s have passed.
    expect(spawnSync('git', ['checkout', '-q', '-b', 'topic-y'], { cwd }).status).toBe(0);
    await new Promise((r) => setTimeout(r, 2100));
    t.keys('BTab');
    await t.waitFor(/acceptEdits \(shift\+tab\) · .* · ⎇ topic-y$/m);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('with --allow-dangerously-skip-permissions Shift+Tab reaches bypassPermissions, which the next call runs under', async ({
    ui,
  }) => {
    const cwd = ui.dir();
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('touched') : toolUse('Bash', { command: 'touch z.txt' }),
    );
    const t = ui.start(['--allow-dangerously-skip-permissions'], cwd);
    await t.waitFor(/default \(shift\+tab\)/);
    t.keys('BTab');
    await t.waitFor(/acceptEdits \(shift\+tab\)/);
    t.keys('BTab');
    await t.waitFor(/plan \(shift\+tab\)/);
    t.keys('BTab');
    await t.waitFor(/bypassPermissions \(shift\+tab\)/);
    await send(t, 'touch it');
    await t.waitFor(/touched/);
    expect(t.screen()).not.toMatch(/Allow Bash/);
    expect(existsSync(join(cwd, 'z.txt'))).toBe(true);
    t.keys('BTab');
    await t.waitFor(/default \(shift\+tab\)/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('works at 60 columns, and a resize while an answer streams reflows it', async ({ ui }) => {
    const long = 'word '.repeat(60).trim();
    // Three pieces; the stream holds after the first until the resize has been drawn, so the resize
    // comes while the answer is still streaming.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    ui.api = await startFakeApi([
      { content: [{ type: 'text', text: long }], holdAfterDeltas: { deltas: 1, until: held } },
    ]);
    const t = ui.start([], ui.dir(), { cols: 60 });
    let s = await t.waitFor(/default \(shift\+tab\)/);
    const widest = (screen: string) => Math.max(...screen.split('\n').map((l) => l.length));
    expect(widest(s)).toBeLessThanOrEqual(60);
    await send(t, 'talk');
    s = await t.waitFor(/^word word/m);
    expect(s).not.toMatch(/\(1 turn/);
    expect(widest(s)).toBeLessThanOrEqual(60);
    t.resize(100, 30);
    s = await t.waitFor(/╭─{98}╮/);
    // Still mid-answer, and the part already streamed is laid out again at the new width.
    s = await t.waitFor(/^(word ){13,}word/m);
    expect(s).not.toMatch(/\(1 turn/);
    release();
    s = await t.waitFor(/\(1 turn/);
    expect(s.match(/\bword\b/g)).toHaveLength(60);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a non-TTY stdout still refuses the interactive mode', () => {
    const r = spawnSync('script', ['-qec', `${AGENT_BIN} | cat`, '/dev/null'], { encoding: 'utf8', timeout: 15_000 });
    expect(r.stdout).toMatch(/the interactive mode needs a terminal on stdout too/);
  });
});
