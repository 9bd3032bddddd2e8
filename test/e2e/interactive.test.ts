// The interactive terminal mode end to end: bin/agent under a real pseudo-terminal (util-linux
// `script` gives it one), driven by writing keystrokes and reading what a person would see.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, text, toolUse } from '../fake-api/server.js';
import { resultsById, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { ESC, startTty as startTtyAt, submit, type Tty } from './tty.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasScript)
  console.warn('interactive.test.ts: skipped: util-linux `script` is not installed (it provides the pseudo-terminal)');

let api: FakeApi | undefined;
let tty: Tty | undefined;
afterEach(async () => {
  if (tty && tty.child.exitCode === null) tty.child.kill('SIGKILL');
  tty = undefined;
  await api?.close();
  api = undefined;
});

const startTty = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  startTtyAt(api!.url, args, cwd, env);

describe.skipIf(!hasScript)('interactive terminal mode (under a pty)', () => {
  it('two prompts in one session, then /exit exits 0 after the SessionEnd hook; the banner says how to leave', async () => {
    api = await startFakeApi([text('first answer'), text('second answer')]);
    const cwd = tempDir();
    const hookLog = join(cwd, 'session-end.json');
    const hook = join(tempDir('agent-hooks-'), 'end.sh');
    writeFileSync(hook, `#!/bin/sh\ncat > '${hookLog}'\n`);
    chmodSync(hook, 0o755);
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: hook }] }] } }),
    );
    tty = startTty(['--model', 'claude-haiku-4-5'], cwd, { NO_COLOR: '1' });
    await tty.waitFor(/claude-haiku-4-5.*permissions: default.*\/exit to quit, Ctrl\+C to interrupt/);
    let at = await submit(tty, 'one', 0);
    at = await tty.waitFor(/first answer\n\(1 turn, \$[\d.]+, [\d.]+s\)/, at);
    at = await submit(tty, 'two', at);
    at = await tty.waitFor(/second answer/, at);
    await submit(tty, '/exit', at);
    expect(await tty.exited).toBe(0);
    expect(JSON.parse(readFileSync(hookLog, 'utf8'))).toMatchObject({
      hook_event_name: 'SessionEnd',
      reason: 'prompt_input_exit',
    });
    expect(api.requests).toHaveLength(2);
    const msgs = api.requests[1].body.messages;
    expect(msgs.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(msgs[0].content)).toContain('one');
    expect(JSON.stringify(msgs[1].content)).toContain('first answer');
    expect(lastUserText(api.requests[1])).toBe('two');
    // NO_COLOR: no dim or red, only what readline needs to draw the line.
    expect(tty.raw()).not.toMatch(new RegExp(`${ESC}\\[(2|31)m`));
  });

  it('slash commands: /help prints the list, a project command becomes the prompt', async () => {
    api = await startFakeApi([text('greeted')]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'commands', 'greet.md'),
      '---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $1 warmly\n',
    );
    tty = startTty([], cwd, { NO_COLOR: '1' });
    let at = await submit(tty, '/help', 0);
    at = await tty.waitFor(/\/greet <name> — Greet someone \(project\)[\s\S]*\(0 turns/, at);
    at = await submit(tty, '/greet Ada', at);
    await tty.waitFor(/greeted/, at);
    tty.type('\x04');
    expect(await tty.exited).toBe(0);
    expect(api.requests).toHaveLength(1);
    expect(lastUserText(api.requests[0])).toBe('Greet Ada warmly');
  });

  it('shows a tool call and the first lines of its result; with colors, the result is dim', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'seq 1 10' }), text('counted')]);
    const cwd = tempDir();
    tty = startTty(['--allowedTools', 'Bash(seq:*)'], cwd);
    const at = await submit(tty, 'count', 0);
    const end = await tty.waitFor(/counted/, at);
    const shown = tty.screen().slice(at, end);
    expect(shown).toMatch(/● Bash\(seq 1 10\)\n {2}⎿ 1\n {4}2\n {4}3\n {4}4\n {4}… \+6 lines\n/);
    expect(tty.raw()).toContain(`${ESC}[2m  ⎿ 1`);
    tty.type('\x04'); // Ctrl+D leaves too
    expect(await tty.exited).toBe(0);
  });

  it('asks before a tool runs: y runs it, n denies it and the model sees the denial', async () => {
    api = await startFakeApi((req) => {
      const results = resultsById(req);
      if (Object.keys(results).length) return text(results.a ? 'made it' : 'ok, not making it');
      return lastUserText(req) === 'make a'
        ? toolUse('Bash', { command: 'touch a.txt' }, 'a')
        : toolUse('Bash', { command: 'touch b.txt' }, 'b');
    });
    const cwd = tempDir();
    tty = startTty([], cwd);
    let at = await submit(tty, 'make a', 0);
    // Tools start while the reply streams, so the question may come before the reply's "● Bash" line.
    at = await tty.waitFor(/Allow Bash\(touch a\.txt\)\?.*\[y\]es \/ \[n\]o \/ \[a\]lways /m, at);
    tty.type('y\r');
    at = await tty.waitFor(/made it/, at);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);
    at = await submit(tty, 'make b', at);
    at = await tty.waitFor(/Allow Bash\(touch b\.txt\)\?/, at);
    tty.type('n\r');
    at = await tty.waitFor(/ok, not making it/, at);
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);
    const seen = resultsById(api.requests[3]);
    expect(seen.b.isError).toBe(true);
    expect(seen.b.text).toMatch(/denied/i);
    expect(tty.screen().slice(0, at)).toMatch(/⎿ The user denied permission to use Bash/);
    await submit(tty, '/exit', at);
    expect(await tty.exited).toBe(0);
  });

  it('AskUserQuestion is a numbered choice; ExitPlanMode shows the plan and [a] approves it into acceptEdits', async () => {
    const question = {
      question: 'Which color?',
      header: 'Color',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
      multiSelect: false,
    };
    api = await startFakeApi([
      toolUse('AskUserQuestion', { questions: [question] }, 'q'),
      toolUse('ExitPlanMode', { plan: 'Paint it blue.' }, 'p'),
      text('painting'),
    ]);
    const cwd = tempDir();
    tty = startTty(['--permission-mode', 'plan'], cwd);
    let at = await submit(tty, 'paint', 0);
    at = await tty.waitFor(
      /\[Color\] Which color\?\n {2}1\. Red — warm\n {2}2\. Blue — cool\n {2}3\. Other \(type your own answer\)\nChoose 1-3, or type an answer: $/m,
      at,
    );
    tty.type('7\r'); // out of range: asked again
    at = await tty.waitFor(/Choose 1-3, or type an answer: $/m, at);
    tty.type('2\r');
    at = await tty.waitFor(/Plan for approval:\n {2}Paint it blue\.\nApprove this plan and leave plan mode\?/, at);
    tty.type('a\r');
    at = await tty.waitFor(/painting/, at);
    expect(resultsById(api.requests[1]).q.text).toContain('"Which color?"="Blue"');
    expect(resultsById(api.requests[2]).p.text).toContain('permission mode now: acceptEdits');
    await submit(tty, '/exit', at);
    expect(await tty.exited).toBe(0);
  });

  it('[a]lways allows the call and adds the suggested rule: the same call is not asked again', async () => {
    api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('touched') : toolUse('Bash', { command: 'touch c.txt' }),
    );
    const cwd = tempDir();
    tty = startTty([], cwd);
    let at = await submit(tty, 'first', 0);
    at = await tty.waitFor(/Allow Bash\(touch c\.txt\)\?/, at);
    tty.type('a\r');
    at = await tty.waitFor(/touched/, at);
    at = await submit(tty, 'second', at);
    at = await tty.waitFor(/touched/, at);
    expect(tty.screen().match(/Allow Bash/g)).toHaveLength(1);
    expect(Object.values(resultsById(api.requests[3]))).toEqual([expect.objectContaining({ isError: false })]);
    await submit(tty, '/exit', at);
    expect(await tty.exited).toBe(0);
  });

  it('Ctrl+C during a long Bash interrupts it and the prompt comes back; Ctrl+C twice at an empty prompt leaves', async () => {
    api = await startFakeApi((req) =>
      lastUserText(req) === 'wait' && !Object.keys(resultsById(req)).length
        ? toolUse('Bash', { command: 'sleep 30' })
        : text('back again'),
    );
    const cwd = tempDir();
    tty = startTty(['--allowedTools', 'Bash(sleep:*)'], cwd);
    let at = await submit(tty, 'wait', 0);
    at = await tty.waitFor(/● Bash\(sleep 30\)\n/, at);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    tty.type('\x03');
    at = await tty.waitFor(/Interrupted\n/, at);
    expect(Date.now() - t0).toBeLessThan(5000);
    at = await submit(tty, 'hello', at);
    at = await tty.waitFor(/back again/, at);
    await tty.waitFor(/\n> $/, at);
    tty.type('\x03');
    at = await tty.waitFor(/press Ctrl\+C again to exit/, at);
    tty.type('\x03');
    expect(await tty.exited).toBe(0);
  });
});
