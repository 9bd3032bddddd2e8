// The terminal UI's output end to end (bin/agent in tmux against the fake API): an edit's diff in
// its permission question and in its result, Ctrl+O showing a collapsed output in full.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { firstUserText, startFakeApi, text, toolUse } from '../fake-api/server.js';
import { resultsById, turns } from './harness.js';
import { hasTmux, uiIt as it, send, typedText } from './tmux.js';

if (!hasTmux) console.warn('interactive-output.test.ts: skipped: tmux is not installed');

/** SGR colour codes on the screen's lines that contain `needle`. */
const coloursOn = (raw: string, needle: string) =>
  raw
    .split('\n')
    .filter((l) => l.replace(/\x1b\[[\d;]*m/g, '').includes(needle))
    .join('\n')
    .match(/\x1b\[[\d;]*m/g) ?? [];

/** The SGR attributes in force where `needle` starts (tmux carries them across lines). */
const attributesAt = (raw: string, needle: string) => {
  const before = raw.slice(0, raw.indexOf(needle));
  const codes = (before.match(/\x1b\[[\d;]*m/g) ?? []).flatMap((c) => c.slice(2, -1).split(';'));
  const reset = Math.max(codes.lastIndexOf('0'), codes.lastIndexOf(''));
  return codes.slice(reset + 1);
};

(hasTmux ? describe.concurrent : describe.skip)('terminal UI output (in tmux)', () => {
  it("an Edit's permission question shows its diff, and its result is a coloured unified diff", async ({ ui }) => {
    const cwd = ui.dir();
    const file = join(cwd, 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\ndelta\n');
    ui.api = await startFakeApi((req, i) => {
      if (i === 0) return toolUse('Read', { file_path: file }, 'r');
      if (i === 1) return toolUse('Edit', { file_path: file, old_string: 'beta', new_string: 'BETA\nbeta two' }, 'e');
      return text(resultsById(req).e?.isError ? 'edit failed' : 'edited');
    });
    // CI set, as on a build machine: the terminal still gets colours (chalk's own guess drops them).
    const t = ui.start([], cwd, { rows: 40, env: { CI: 'true' } });
    await send(t, 'change beta');
    // The question shows what the edit would do, numbered, before anything is written.
    let s = await t.waitFor(/Allow Edit\([^)]*notes\.txt\)\?[\s\S]*❯ 1\. Yes/);
    expect(s).toMatch(/Updated notes\.txt: 2 lines added, 1 removed/);
    expect(s).toMatch(/│ 1 {3}alpha +│\n│ 2 - beta +│\n│ 2 \+ BETA +│\n│ 3 \+ beta two +│\n│ 4 {3}gamma +│/);
    t.type('y');
    s = await t.waitFor(/edited/);
    expect(s).toMatch(
      /✓ Edit\([^)]*notes\.txt\)\n {2}⎿ Updated notes\.txt: 2 lines added, 1 removed\n {4}1 {3}alpha\n {4}2 - beta\n {4}2 \+ BETA\n {4}3 \+ beta two\n {4}4 {3}gamma\n {4}5 {3}delta\n/,
    );
    // Removed lines red (31), added green (32).
    const raw = t.rawScreen();
    expect(coloursOn(raw, '2 - beta').join('')).toMatch(/\x1b\[31m/);
    expect(coloursOn(raw, '3 + beta two').join('')).toMatch(/\x1b\[32m/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a Write that creates a file shows its lines as added', async ({ ui }) => {
    const cwd = ui.dir();
    ui.api = await startFakeApi([
      toolUse('Write', { file_path: join(cwd, 'new.txt'), content: 'one\ntwo\n' }),
      text('done'),
    ]);
    const t = ui.start(['--permission-mode', 'acceptEdits'], cwd);
    await send(t, 'write');
    const s = await t.waitFor(/done/);
    expect(s).toMatch(
      /✓ Write\([^)]*new\.txt\)\n {2}⎿ Created new\.txt \(2 lines written\)\n {4}1 \+ one\n {4}2 \+ two\n/,
    );
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('an answer streams in as Markdown: headings, lists and inline code lose their marks, code blocks are coloured', async ({
    ui,
  }) => {
    const answer = [
      '# Plan',
      '',
      'Use **two** steps and `npm test`.',
      '',
      '1. build',
      '2. check',
      '',
      '```ts',
      'const total = "sum"; // add',
      '```',
      '',
      'Last line.',
    ].join('\n');
    // The reply stops after its first third until the test has looked at the screen.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    ui.api = await startFakeApi([
      { content: [{ type: 'text', text: answer }], holdAfterDeltas: { deltas: 1, until: held } },
    ]);
    const t = ui.start([], ui.dir(), { rows: 40 });
    await send(t, 'plan');
    // Mid-stream: the first third is drawn as Markdown while the rest has not come.
    let s = await t.waitFor(/^Plan$/m);
    expect(s).not.toMatch(/Last line/);
    expect(s).not.toMatch(/# Plan/);
    release();
    s = await t.waitFor(/\(1 turn/);
    expect(s).toMatch(
      /^Plan\n\nUse two steps and npm test\.\n\n1\. build\n2\. check\n\n {2}ts\n {2}const total = "sum"; \/\/ add\n\nLast line\.$/m,
    );
    expect(s).not.toMatch(/\*\*|```/);
    const raw = t.rawScreen();
    // The keyword magenta, the string green, the heading bold.
    expect(coloursOn(raw, 'const total').join('')).toMatch(/\x1b\[35m/);
    expect(coloursOn(raw, 'const total').join('')).toMatch(/\x1b\[32m/);
    expect(coloursOn(raw, 'Plan').join('')).toMatch(/\x1b\[1[;m]/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('thinking is drawn dim and folded to its first line; Ctrl+O shows it whole', async ({ ui }) => {
    ui.api = await startFakeApi([
      {
        content: [
          { type: 'thinking', thinking: 'Weigh the first idea.\nThen the second idea.\nPick the shorter one.' },
          { type: 'text', text: 'Shorter it is.' },
        ],
      },
    ]);
    const t = ui.start([], ui.dir(), { rows: 40 });
    await send(t, 'think');
    let s = await t.waitFor(/Shorter it is\.\n\(1 turn/);
    expect(s).toMatch(/> think\n\n✻ Thinking \(\+2 lines, ctrl\+o to expand\)\n {2}Weigh the first idea\.\n/);
    expect(s).not.toMatch(/second idea/);
    expect(attributesAt(t.rawScreen(), 'Weigh the first idea')).toContain('2');
    t.keys('C-o');
    await t.waitFor(/❯ ✻ Thinking 3 lines/);
    t.keys('Enter');
    s = await t.waitFor(/✻ Thinking \(in full\)/);
    expect(s).toMatch(
      /✻ Thinking \(in full\)\n {2}Weigh the first idea\.\n {2}Then the second idea\.\n {2}Pick the shorter one\./,
    );
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('the todo list is a checklist above the prompt that changes in place as the agent updates it', async ({ ui }) => {
    const todo = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });
    // Each TodoWrite is followed by a Bash that asks, so the screen can be read between the two lists.
    ui.api = await startFakeApi(
      (_req, i) =>
        [
          toolUse('TodoWrite', { todos: [todo('Plan', 'in_progress'), todo('Build', 'pending')] }),
          toolUse('Bash', { command: 'touch one.txt' }),
          toolUse('TodoWrite', { todos: [todo('Plan', 'completed'), todo('Build', 'in_progress')] }),
          toolUse('Bash', { command: 'touch two.txt' }),
        ][i] ?? text('all done'),
    );
    const t = ui.start([], ui.dir(), { rows: 50, env: { CI: 'true' } });
    await send(t, 'do the work');
    let s = await t.waitFor(/Allow Bash\(touch one\.txt\)\?/);
    expect(s).toMatch(/^Todos\n☐ Planing\n☐ Build\n/m);
    // The task under way is cyan.
    expect(attributesAt(t.rawScreen(), 'Planing')).toContain('36');
    t.type('y');
    s = await t.waitFor(/Allow Bash\(touch two\.txt\)\?/);
    expect(s).toMatch(/^Todos\n☒ Plan\n☐ Building\n/m);
    // Redrawn where it was: one list on the screen, not the old one left above the new one.
    expect(s.match(/^Todos$/gm)).toHaveLength(1);
    expect(s).not.toMatch(/Planing/);
    // The finished task is struck through.
    expect(attributesAt(t.rawScreen(), '☒')).toContain('9');
    t.type('y');
    await t.waitFor(/all done/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a background command has a live row with its time; Ctrl+T lists the tasks, finished ones too', async ({ ui }) => {
    ui.api = await startFakeApi((req) =>
      typedText(req) === 'start it' && !Object.keys(resultsById(req)).length
        ? toolUse('Bash', { command: 'sleep 4; echo finished', description: 'wait a little', run_in_background: true })
        : text('started it'),
    );
    const t = ui.start(['--allowedTools', 'Bash'], ui.dir(), { rows: 40 });
    await send(t, 'start it');
    let s = await t.waitFor(/started it/);
    s = await t.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] shell wait a little · [1-9]s · background/);
    // Its clock moves.
    const first = Number(/wait a little · (\d)s/.exec(s)![1]);
    await t.waitFor(new RegExp(`wait a little · (?!${first}s)\\ds`));
    t.keys('C-t');
    s = await t.waitFor(/Tasks \(1 running, 1 in all\)/);
    t.keys('Escape');
    // The list goes (the editor stays up under it all along).
    await t.waitFor(/^(?![\s\S]*Tasks \()/);
    // Once it ends, the live row goes; the list keeps it, marked done.
    await t.waitFor(/│ > {2,}│/);
    await t.waitFor(/^(?![\s\S]*shell wait a little · \d+s · background)/, 10_000);
    // Its notice comes back as a turn of its own: the keys below wait until that turn has ended.
    await t.waitFor(/^\(1 turn, \$[\d.]+, [\d.]+s\)$/m, 10_000);
    t.keys('C-t');
    s = await t.waitFor(/Tasks \(0 running, 1 in all\)/);
    expect(s).toMatch(/✓ shell wait a little · [4-9]s · background · completed/);
    t.keys('C-t');
    // Closed, on a whole frame (the editor and the status line under it), not on one caught
    // while it was being drawn.
    await t.waitFor(/^(?![\s\S]*Tasks \()[\s\S]*│ > +│\n╰─+╯\n ⏵/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a subagent and a teammate each have a live row with their latest tool call and time; Ctrl+T lists both; an idle teammate is marked so', async ({
    ui,
  }) => {
    // The teammate works while the lead waits on the subagent: both rows are up at once.
    ui.api = await startFakeApi((req) => {
      const first = firstUserText(req);
      const n = turns(req);
      if (first.includes('MATE:')) return n === 0 ? toolUse('Bash', { command: 'sleep 8' }) : text('tidied');
      if (first.includes('SUB:')) return n === 0 ? toolUse('Bash', { command: 'sleep 3' }) : text('found it');
      if (n === 0) return toolUse('TeamCreate', { team_name: 'crew' });
      if (n === 1)
        return toolUse('Agent', {
          name: 'worker',
          team_name: 'crew',
          description: 'Tidy the docs',
          prompt: 'MATE: tidy the docs',
          subagent_type: 'general-purpose',
        });
      if (n === 2)
        return toolUse('Agent', {
          description: 'Find the bug',
          prompt: 'SUB: find the bug',
          subagent_type: 'general-purpose',
        });
      return text('both on it');
    });
    const t = ui.start(['--dangerously-skip-permissions'], ui.dir(), {
      rows: 50,
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' },
    });
    await send(t, 'find the bug and tidy the docs');
    const spin = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';
    await t.waitFor(new RegExp(`${spin} agent Find the bug · \\ds · Bash\\(sleep 3\\)`));
    // The teammate's row names its call once its own first reply is in, which may come after the
    // subagent's; the subagent's 3 s command keeps its row up meanwhile.
    let s = await t.waitFor(new RegExp(`${spin} teammate Tidy the docs · \\ds · background · Bash\\(sleep 8\\)`));
    expect(s).toMatch(new RegExp(`${spin} agent Find the bug · \\ds · Bash\\(sleep 3\\)`));
    // Their clocks move.
    const first = Number(/Find the bug · (\d)s/.exec(s)![1]);
    await t.waitFor(new RegExp(`Find the bug · (?!${first}s)\\ds`));
    t.keys('C-t');
    s = await t.waitFor(/Tasks \(2 running, 2 in all\)/);
    expect(s).toMatch(/agent Find the bug · \ds · Bash\(sleep 3\)/);
    expect(s).toMatch(/teammate Tidy the docs · \ds · background · Bash\(sleep 8\)/);
    t.keys('Escape');
    // The subagent's row goes when it ends; the list keeps it, marked done.
    s = await t.waitFor(/both on it\n\(4 turns/);
    expect(s).not.toMatch(new RegExp(`${spin} agent Find the bug`));
    // The teammate's call that runs on past the lead's turn is not drawn as failed.
    expect(s).toMatch(/… Bash\(sleep 8\)\n {4}⎿ running on in the background \(ctrl\+t\)/);
    t.keys('C-t');
    s = await t.waitFor(/Tasks \(\d running, 2 in all\)/);
    expect(s).toMatch(/✓ agent Find the bug · \ds · completed · Bash\(sleep 3\)/);
    t.keys('Escape');
    // The teammate's turn ends (a message that calls no tool): it is idle, not spinning.
    await t.waitFor(/◦ teammate Tidy the docs · \d+s · background · idle/);
    expect(t.screen()).not.toMatch(new RegExp(`${spin} teammate`));
    t.keys('C-d');
    expect(await t.exited(20_000)).toBe(0);
  });

  it('Ctrl+O lists the tool calls; Enter shows the chosen one in full, Esc closes the list', async ({ ui }) => {
    ui.api = await startFakeApi([
      toolUse('Bash', { command: 'seq 101 130' }),
      toolUse('Bash', { command: 'echo short' }),
      text('counted'),
    ]);
    const t = ui.start(['--allowedTools', 'Bash'], ui.dir(), { rows: 60 });
    await send(t, 'count');
    let s = await t.waitFor(/counted/);
    expect(s).toMatch(/⎿ … 26 lines before \(ctrl\+o to expand\)/);
    expect(s).not.toMatch(/^ {4}101$/m);
    t.keys('C-o');
    s = await t.waitFor(/Tool calls and thinking \(2\)/);
    expect(s).toMatch(/│ {3}✓ Bash\(seq 101 130\) 30 lines +│\n│ ❯ ✓ Bash\(echo short\) 1 line +│/);
    t.keys('Escape');
    await t.waitFor(/│ > {2,}│/);
    expect(t.screen()).not.toMatch(/Tool calls/);
    t.keys('C-o');
    await t.waitFor(/❯ ✓ Bash\(echo short\)/);
    t.keys('Up');
    await t.waitFor(/❯ ✓ Bash\(seq 101 130\)/);
    t.keys('Enter');
    s = await t.waitFor(/Bash\(seq 101 130\) \(full output\)/);
    expect(s).toMatch(/Bash\(seq 101 130\) \(full output\)\n {2}⎿ 101\n {4}102\n[\s\S]* {4}129\n {4}130\n/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});
