// The terminal UI's input end to end (bin/agent in tmux against the fake API): the prompt history
// kept per project across sessions (Up/Down, Ctrl+R), a large paste collapsed and sent whole.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { type RecordedRequest, startFakeApi, text, toolUse } from '../fake-api/server.js';
import { waitUntil } from '../processes.js';
import { AGENT_BIN, resultsById } from './harness.js';
import { hasTmux, uiIt as it, READY, send, typedText } from './tmux.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

if (!hasTmux) console.warn('interactive-input.test.ts: skipped: tmux is not installed');

/** The editor's first line shows exactly this. */
const editorShows = (s: string) => new RegExp(`│ > ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +│`);

(hasTmux ? describe.concurrent : describe.skip)('terminal UI input (in tmux)', () => {
  it("Up/Down walk this project's history, kept across sessions; Ctrl+R finds an older prompt", async ({ ui }) => {
    ui.api = await startFakeApi(() => text('ok'));
    const config = ui.dir();
    const cwd = ui.dir();
    const other = ui.dir();
    const env = { CLAUDE_CONFIG_DIR: config };
    let t = ui.start([], cwd, { env });
    await send(t, 'alpha one');
    await t.waitFor(/ok\n\(1 turn/);
    await send(t, 'beta two');
    await t.waitFor(/ok\n\(1 turn[\s\S]*ok\n\(1 turn/);
    await t.waitFor(READY);
    t.type('draft');
    t.keys('Up');
    await t.waitFor(editorShows('beta two'));
    t.keys('Up');
    await t.waitFor(editorShows('alpha one'));
    t.keys('Down');
    await t.waitFor(editorShows('beta two'));
    t.keys('Down');
    await t.waitFor(editorShows('draft'));
    t.keys('C-u');
    await t.waitFor(READY);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);

    // A new session in the same project: the history is there.
    t = ui.start([], cwd, { env });
    await t.waitFor(READY);
    t.keys('Up');
    await t.waitFor(editorShows('beta two'));
    t.keys('C-u');
    await t.waitFor(READY);
    t.keys('C-r');
    await t.waitFor(/search history:/);
    t.type('alp');
    await t.waitFor(/search history: alp[\s\S]*│ alpha one +│/);
    t.keys('Enter');
    await t.waitFor(editorShows('alpha one'));
    t.keys('Enter');
    await t.waitFor(/ok\n\(1 turn/);
    expect(typedText(ui.api.requests.at(-1)!)).toBe('alpha one');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);

    // Another project has its own (empty) history.
    t = ui.start([], other, { env });
    await t.waitFor(READY);
    t.keys('Up');
    await new Promise((r) => setTimeout(r, 300));
    expect(t.screen()).toMatch(READY);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a large paste shows as one placeholder line and is sent whole', async ({ ui }) => {
    ui.api = await startFakeApi([text('read it')]);
    const t = ui.start([], ui.dir());
    await t.waitFor(READY);
    const lines = Array.from({ length: 40 }, (_, i) => `pasted line ${i + 1}`);
    t.type('summarise ');
    // Typed first: read in one chunk with the paste, it would be taken as part of it.
    await t.waitFor(editorShows('summarise'));
    t.paste(lines.join('\n'));
    await t.waitFor(editorShows('summarise [Pasted text #1 +40 lines]'));
    expect(t.screen()).not.toMatch(/pasted line 2/);
    t.keys('Enter');
    const s = await t.waitFor(/read it/);
    expect(s).toMatch(/^> summarise \[Pasted text #1 \+40 lines\]$/m);
    expect(typedText(ui.api.requests[0])).toBe(`summarise ${lines.join('\n')}`);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a bracketed paste is one paste: its newlines do not send the prompt, a long one collapses, all is sent whole', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('got both')]);
    const t = ui.start([], ui.dir());
    await t.waitFor(READY);
    t.type('look at ');
    await t.waitFor(editorShows('look at'));
    // One line and its newline: without bracketing, the newline would be Enter.
    t.pasteBracketed('the first line\n');
    await t.waitFor(/│ > look at the first line +│\n│ {3,}│/);
    const lines = Array.from({ length: 12 }, (_, i) => `row ${i + 1}`);
    t.pasteBracketed(lines.join('\n'));
    await t.waitFor(/│ {3}\[Pasted text #1 \+12 lines\] +│/);
    await new Promise((r) => setTimeout(r, 300));
    expect(ui.api.requests).toHaveLength(0);
    t.keys('Enter');
    await t.waitFor(/got both/);
    expect(typedText(ui.api.requests[0])).toBe(`look at the first line\n${lines.join('\n')}`);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('/ opens a filtered menu of the commands: ↓ and Enter run one, Tab completes one that takes arguments', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('greeted')]);
    const cwd = ui.dir();
    mkdirSync(join(cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'commands', 'greet.md'),
      '---\ndescription: Greet someone\nargument-hint: <name>\n---\nGreet $1 warmly\n',
    );
    const t = ui.start([], cwd, { rows: 40 });
    await t.waitFor(READY);
    t.type('/');
    let s = await t.waitFor(/❯ \/\w+/);
    expect(s).toMatch(/\/help/);
    expect(s).toMatch(/\/greet <name> Greet someone \(project\)/);
    t.type('co');
    s = await t.waitFor(/│ > \/co +│\n[^\n]*\n ❯ \/co/);
    expect(s).toMatch(/\/compact/);
    expect(s).toMatch(/\/cost/);
    expect(s).not.toMatch(/\/help/);
    // Choose /cost with ↓ (or wherever it is) and run it.
    const rows = s.split('\n').filter((l) => /^ (❯ | {2})\/co/.test(l));
    const costRow = rows.findIndex((l) => l.includes('/cost'));
    for (let i = 0; i < costRow; i++) t.keys('Down');
    await t.waitFor(/❯ \/cost/);
    t.keys('Enter');
    await t.waitFor(/^> \/cost$/m);
    await t.waitFor(/\(0 turns/);
    // A command that takes arguments is completed, not run.
    t.type('/gr');
    await t.waitFor(/❯ \/greet <name>/);
    t.keys('Tab');
    await t.waitFor(editorShows('/greet'));
    t.type('Ada');
    t.keys('Enter');
    await t.waitFor(/greeted/);
    expect(typedText(ui.api.requests[0])).toBe('Greet Ada warmly');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it("the / menu offers skills, plugins' commands and MCP servers' prompts with their descriptions; each runs as its prompt", async ({
    ui,
  }) => {
    ui.api = await startFakeApi(() => text('done'));
    const cwd = ui.dir();
    mkdirSync(join(cwd, '.claude', 'skills', 'tidy'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'skills', 'tidy', 'SKILL.md'),
      '---\nname: tidy\ndescription: Tidy the imports of a file\n---\nSort the imports of $ARGUMENTS.\n',
    );
    const server = mcpFixture('mcp-prompt-server');
    const mcp = join(cwd, 'mcp.json');
    writeFileSync(mcp, JSON.stringify({ mcpServers: { pr: { command: process.execPath, args: [server] } } }));
    // A plugin's command too.
    const plugin = join(ui.dir(), 'kit');
    mkdirSync(join(plugin, '.claude-plugin'), { recursive: true });
    mkdirSync(join(plugin, 'commands'));
    writeFileSync(join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'kit', version: '1.0.0' }));
    writeFileSync(
      join(plugin, 'commands', 'greet.md'),
      '---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n',
    );
    const t = ui.start(['--mcp-config', mcp, '--plugin-dir', plugin], cwd, { rows: 40 });
    await t.waitFor(READY);
    t.type('/');
    await t.waitFor(/\/help /);
    t.type('kit');
    await t.waitFor(/❯ \/kit:greet +Greet someone \(plugin:kit\)/);
    t.keys('C-u');
    await t.waitFor(READY);
    t.type('/ti');
    await t.waitFor(/❯ \/tidy +Tidy the imports of a file \(skill\)/);
    t.keys('Tab');
    await t.waitFor(editorShows('/tidy'));
    t.type('src/a.ts');
    t.keys('Enter');
    await t.waitFor(/done/);
    const skill = typedText(ui.api.requests[0]);
    expect(skill).toContain(`Base directory for this skill: ${join(cwd, '.claude', 'skills', 'tidy')}`);
    expect(skill).toContain('Sort the imports of src/a.ts.');
    await t.waitFor(READY);
    t.type('/mcp__pr');
    await t.waitFor(/❯ \/mcp__pr__review <focus> \[depth\] +Review the change \(MCP: pr\)/);
    t.keys('Tab');
    await t.waitFor(editorShows('/mcp__pr__review'));
    t.type('security deep');
    t.keys('Enter');
    await t.waitFor(/done[\s\S]*done/);
    expect(typedText(ui.api.requests[1])).toBe('Review it for security, depth deep.');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it("an MCP server's prompts/list_changed updates the / menu: a prompt it adds is offered and runs", async ({
    ui,
  }) => {
    ui.api = await startFakeApi((req) =>
      typedText(req) === 'add one' && !resultsById(req).g ? toolUse('mcp__pr__add_prompt', {}, 'g') : text('done'),
    );
    const cwd = ui.dir();
    const server = mcpFixture('mcp-prompt-server');
    const mcp = join(cwd, 'mcp.json');
    writeFileSync(mcp, JSON.stringify({ mcpServers: { pr: { command: process.execPath, args: [server, '--grow'] } } }));
    const t = ui.start(['--mcp-config', mcp, '--allowedTools', 'mcp__pr__add_prompt'], cwd, { rows: 40 });
    await t.waitFor(READY);
    t.type('/mcp__pr');
    await t.waitFor(/❯ \/mcp__pr__review <focus> \[depth\] +Review the change \(MCP: pr\)/);
    expect(t.screen()).not.toMatch(/summarize/);
    t.keys('C-c');
    await send(t, 'add one');
    await t.waitFor(/done/);
    await t.waitFor(READY);
    t.type('/mcp__pr__s');
    await t.waitFor(/❯ \/mcp__pr__summarize +Summarize the thread \(MCP: pr\)/);
    t.keys('Enter');
    await t.waitFor(/done[\s\S]*done/);
    expect(typedText(ui.api.requests.at(-1)!)).toBe('Summarize the thread so far.');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('@ completes a file path fuzzily, leaving out what .gitignore ignores, and attaches the file', async ({ ui }) => {
    ui.api = await startFakeApi([text('seen')]);
    const cwd = ui.dir();
    mkdirSync(join(cwd, 'src', 'deep'), { recursive: true });
    mkdirSync(join(cwd, 'build'));
    writeFileSync(join(cwd, '.gitignore'), 'build/\n*.log\n');
    writeFileSync(join(cwd, 'src', 'deep', 'notes.txt'), 'first note\nsecond note\n');
    writeFileSync(join(cwd, 'build', 'notes.txt'), 'built\n');
    writeFileSync(join(cwd, 'notes.log'), 'log\n');
    const t = ui.start([], cwd, { rows: 40 });
    await t.waitFor(READY);
    t.type('read @sdnot');
    const s = await t.waitFor(/❯ src\/deep\/notes\.txt/);
    expect(s).not.toMatch(/build\/notes\.txt|notes\.log/);
    t.keys('Tab');
    await t.waitFor(editorShows('read @src/deep/notes.txt'));
    t.keys('Enter');
    await t.waitFor(/seen/);
    const texts = userTexts(ui.api.requests[0]);
    const prompt = texts.indexOf('read @src/deep/notes.txt ');
    const file = texts.findIndex((x) => /src\/deep\/notes\.txt[\s\S]*1\tfirst note\n2\tsecond note/.test(x));
    expect(file).toBeGreaterThanOrEqual(0);
    // The file comes before the prompt.
    expect(prompt).toBeGreaterThan(file);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a file attached with @ counts as read: the Edit that follows it is allowed', async ({ ui }) => {
    const cwd = ui.dir();
    const file = join(cwd, 'notes.txt');
    writeFileSync(file, 'colour: red\n');
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length
        ? text('changed it')
        : toolUse('Edit', { file_path: file, old_string: 'red', new_string: 'blue' }, 'e'),
    );
    const t = ui.start(['--permission-mode', 'acceptEdits'], cwd);
    // The mention is not last: a menu of files open under it would take the Enter.
    await send(t, 'make @notes.txt say blue');
    await t.waitFor(/changed it/);
    const result = resultsById(ui.api.requests[1]).e;
    expect(result.isError, result.text).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('colour: blue\n');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('!command runs in the shell; the command and its output reach the model in bash-input/bash-stdout tags', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('noted the output')]);
    const cwd = ui.dir();
    const t = ui.start([], cwd);
    await send(t, '!echo shell-out; echo to-stderr >&2');
    let s = await t.waitFor(/noted the output/);
    expect(s).toMatch(/✓ ! echo shell-out; echo to-stderr >&2\n {2}⎿ shell-out\n {4}to-stderr/);
    expect(
      userTexts(ui.api.requests[0])
        .filter((x) => !x.startsWith('<system-reminder>'))
        .slice(-2),
    ).toEqual([
      '<bash-input>echo shell-out; echo to-stderr >&2</bash-input>\n',
      '<bash-stdout>shell-out\nto-stderr</bash-stdout><bash-stderr></bash-stderr>',
    ]);
    await send(t, '!exit 3');
    s = await t.waitFor(/✗ ! exit 3/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});

(hasTmux ? describe.concurrent : describe.skip)('terminal UI pickers (in tmux)', () => {
  it("--resume without an id offers this project's sessions (title or first prompt, age); the one picked goes on", async ({
    ui,
  }) => {
    ui.api = await startFakeApi(() => text('ok'));
    const config = ui.dir();
    const cwd = ui.dir();
    const env = { CLAUDE_CONFIG_DIR: config };
    for (const prompt of ['remember the word kiwi', 'something else entirely']) {
      const t = ui.start([], cwd, { env });
      await send(t, prompt);
      await t.waitFor(/ok\n\(1 turn/);
      t.keys('C-d');
      expect(await t.exited()).toBe(0);
    }
    const t = ui.start(['--resume'], cwd, { env, rows: 40 });
    const s = await t.waitFor(/Resume a session of this project \(2\)/);
    // Newest first.
    expect(s).toMatch(/❯ something else entirely · just now[\s\S]*remember the word kiwi · just now/);
    t.keys('Down');
    await t.waitFor(/❯ remember the word kiwi/);
    t.keys('Enter');
    // The chosen conversation is drawn again above the prompt.
    await t.waitFor(/^> remember the word kiwi\n\nok\n[\s\S]*│ > {2,}│/m);
    await send(t, 'which word?');
    await t.waitFor(/ok\n\(1 turn/);
    const msgs = JSON.stringify(ui.api.requests.at(-1)!.body.messages);
    expect(msgs).toContain('remember the word kiwi');
    expect(msgs).not.toContain('something else entirely');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('/resume picks another session of the project, which goes on in place of this one', async ({ ui }) => {
    ui.api = await startFakeApi(() => text('ok'));
    const config = ui.dir();
    const cwd = ui.dir();
    const env = { CLAUDE_CONFIG_DIR: config };
    let t = ui.start([], cwd, { env });
    await send(t, 'the old one about plums');
    await t.waitFor(/ok\n\(1 turn/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
    t = ui.start([], cwd, { env, rows: 40 });
    await send(t, 'a new one');
    await t.waitFor(/ok\n\(1 turn/);
    await send(t, '/resume');
    await t.waitFor(/Resume a session of this project \(2\)/);
    t.type('plums');
    await t.waitFor(/❯ the old one about plums/);
    t.keys('Enter');
    // The new session's UI starts below the old one, with the resumed conversation drawn again.
    await t.waitFor(/agent \d[\s\S]*agent \d[^\n]*\n[\s\S]*^> the old one about plums\n\nok\n[\s\S]*│ > {2,}│/m);
    await send(t, 'go on');
    const s = await t.waitFor(/> go on\n\nok\n\(1 turn/);
    expect(s).not.toMatch(/Resume a session/);
    const msgs = JSON.stringify(ui.api.requests.at(-1)!.body.messages);
    expect(msgs).toContain('the old one about plums');
    expect(msgs).not.toContain('a new one');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('--resume without an id is refused with -p (there is no picker there)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { AGENT_BIN } = await import('./harness.js');
    const r = spawnSync(AGENT_BIN, ['-p', '--resume'], { encoding: 'utf8', input: '', timeout: 15_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--resume needs a session id with -p or stream-json/);
  });

  it("/model alone opens a picker of the models; the one picked is the session's model", async ({ ui }) => {
    ui.api = await startFakeApi([text('answered')]);
    const t = ui.start([], ui.dir(), { rows: 40 });
    await send(t, '/model');
    let s = await t.waitFor(/Model \(now [^)]+\)/);
    expect(s).toMatch(/Haiku \(claude-haiku-[\d-]+\)/);
    t.type('haiku');
    await t.waitFor(/filter: haiku[\s\S]*❯ Haiku/);
    t.keys('Enter');
    s = await t.waitFor(/Model set to claude-haiku/);
    await t.waitFor(/· claude-haiku-[\d-]+ /);
    await send(t, 'hi');
    await t.waitFor(/answered/);
    expect(ui.api.requests[0].body.model).toMatch(/^claude-haiku/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('after /model opus the picker\'s "Default" is still the session default (ANTHROPIC_MODEL), and picking it goes back there', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('answered')]);
    const t = ui.start([], ui.dir(), { rows: 40, env: { ANTHROPIC_MODEL: 'claude-haiku-4-5' } });
    await send(t, '/model opus');
    await t.waitFor(/Model set to claude-opus-5-5/);
    await send(t, '/model');
    await t.waitFor(/Default \(claude-haiku-4-5\)/);
    t.type('default');
    await t.waitFor(/filter: default[\s\S]*❯ Default/);
    t.keys('Enter');
    await t.waitFor(/Model set to claude-haiku-4-5/);
    await send(t, 'hi');
    await t.waitFor(/answered/);
    expect(ui.api.requests[0].body.model).toBe('claude-haiku-4-5');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it("keys typed in the same read as the Enter that opens a picker are the picker's: ↓ ↓ and Enter pick the third model", async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('answered')]);
    const t = ui.start([], ui.dir(), { rows: 40 });
    await t.waitFor(READY);
    t.type('/model');
    await t.waitFor(editorShows('/model'));
    // One write: the picker opens on the Enter, and the keys after it are its own.
    t.keys('Enter', 'Down', 'Down', 'Enter');
    const s = await t.waitFor(/Model set to (claude-[\w-]+)/);
    // The third entry (after the session's default and Opus) is not Opus.
    expect(/Model set to (claude-[\w-]+)/.exec(s)![1]).not.toMatch(/opus/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});

(hasTmux ? describe.concurrent : describe.skip)('terminal UI MCP elicitation (in tmux)', () => {
  const ASKER = mcpFixture('mcp-elicit-server');
  const mcpConfig = (cwd: string) => {
    const f = join(cwd, 'mcp.json');
    writeFileSync(
      f,
      JSON.stringify({ mcpServers: { asker: { type: 'stdio', command: process.execPath, args: [ASKER] } } }),
    );
    return f;
  };

  it("an MCP server's form is asked field by field; a bad number is refused; the answers go back to the server", async ({
    ui,
  }) => {
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('thanks') : toolUse('mcp__asker__ask_name', {}, 'e'),
    );
    const cwd = ui.dir();
    const t = ui.start(['--mcp-config', mcpConfig(cwd), '--allowedTools', 'mcp__asker__ask_name'], cwd, { rows: 40 });
    await send(t, 'who am i');
    await t.waitFor(/asker asks: What is your name\?[\s\S]*Field 1 of 2[\s\S]*Name \(required\)/);
    t.keys('Enter');
    await t.waitFor(/Name is required\./);
    t.type('Ada');
    t.keys('Enter');
    await t.waitFor(/Field 2 of 2[\s\S]*age \(optional: Enter skips\) \(number\)/);
    t.type('old');
    t.keys('Enter');
    await t.waitFor(/age must be a number\./);
    t.type('36');
    t.keys('Enter');
    await t.waitFor(/thanks/);
    expect(resultsById(ui.api.requests[1]).e.text).toBe('action=accept content={"name":"Ada","age":36}');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('Esc declines a form', async ({ ui }) => {
    ui.api = await startFakeApi((req) =>
      Object.keys(resultsById(req)).length ? text('ok then') : toolUse('mcp__asker__ask_name', {}, 'e'),
    );
    const cwd = ui.dir();
    const t = ui.start(['--mcp-config', mcpConfig(cwd), '--allowedTools', 'mcp__asker__ask_name'], cwd, { rows: 40 });
    await send(t, 'who am i');
    await t.waitFor(/What is your name\?/);
    t.keys('Escape');
    await t.waitFor(/ok then/);
    expect(resultsById(ui.api.requests[1]).e.text).toBe('action=decline content=null');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});

/** The text blocks of the last user message of a request. */
function userTexts(req: RecordedRequest): string[] {
  const msgs = req.body.messages as Array<{ role: string; content: unknown }>;
  const last = msgs.filter((m) => m.role === 'user').at(-1)!;
  if (typeof last.content === 'string') return [last.content];
  return (last.content as Array<{ type: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text!);
}

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

// tmux speaks no kitty keyboard protocol: here the test is the terminal, on the far side of a
// pseudo-terminal (util-linux `script`), sending keys as WezTerm, kitty or Ghostty do once the
// protocol is on.
describe.skipIf(!hasScript)('terminal UI in a terminal with the kitty keyboard protocol (a pty)', () => {
  it('the UI turns the protocol on; Shift+Enter adds a line; Ctrl+D as the protocol sends it leaves and turns it off', async ({
    ui,
  }) => {
    ui.api = await startFakeApi([text('kitty ok')]);
    const cwd = ui.dir();
    const p = spawn('script', ['-qfec', AGENT_BIN, '/dev/null'], {
      cwd,
      env: {
        ...process.env,
        TERM: 'xterm-256color',
        TERM_PROGRAM: 'WezTerm',
        COLUMNS: '80',
        LINES: '30',
        ANTHROPIC_BASE_URL: ui.api.url,
        ANTHROPIC_API_KEY: 'k',
        CLAUDE_CONFIG_DIR: cwd,
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d.toString('utf8')));
    const exited = once(p, 'close');
    const shown = (pattern: RegExp) =>
      waitUntil(() => pattern.test(out.replace(/\x1b\[[\d;?<>]*[a-zA-Z~]/g, '')), 15_000);
    const written = (sequence: string) => waitUntil(() => out.includes(sequence), 15_000);
    const pause = () => new Promise((r) => setTimeout(r, 60));
    try {
      // The UI pushes the protocol's flags (it asks nothing: WezTerm has the protocol).
      expect(await written('\x1b[>1u')).toBe(true);
      expect(await shown(/│ > /)).toBe(true);
      expect(out).not.toContain('\x1b[?u');
      // Shift+Tab as the protocol sends it still cycles the mode.
      p.stdin.write('\x1b[9;2u');
      expect(await shown(/acceptEdits \(shift\+tab\)/)).toBe(true);
      for (const keys of ['one', '\x1b[13;2u', 'two', '\r']) {
        p.stdin.write(keys);
        await pause();
      }
      expect(await shown(/kitty ok/)).toBe(true);
      expect(typedText(ui.api.requests[0])).toBe('one\ntwo');
      const before = out.length;
      p.stdin.write('\x1b[100;5u');
      const [code] = await exited;
      expect(code).toBe(0);
      // The protocol is popped on the way out.
      expect(out.slice(before)).toContain('\x1b[<u');
    } finally {
      p.kill('SIGKILL');
    }
  });
});
