// The terminal UI's start end to end (bin/agent in tmux against the fake API): the UI's bundle runs
// from a V8 code cache of its own, as the CLI's does; a resumed session is drawn as it ran, above
// what was typed while it started.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { transcriptPath } from '../../src/transcript/transcript.js';
import { text, toolUse } from '../fake-api/server.js';
import { type FakeApi, runAgent, startFakeApi, tempDir } from './harness.js';
import { hasTmux, READY, send, startTerm, type Term, typedText } from './tmux.js';

if (!hasTmux) console.warn('interactive-startup.test.ts: skipped: tmux is not installed');

const UI_BUNDLE = fileURLToPath(new URL('../../dist/tui.cjs', import.meta.url));

let api: FakeApi | undefined;
let term: Term | undefined;
afterEach(async () => {
  term?.close();
  term = undefined;
  await api?.close();
  api = undefined;
});

const start = (args: string[], cwd: string, opts: Parameters<typeof startTerm>[3] = {}) =>
  (term = startTerm(api!.url, args, cwd, opts));

/** One interactive session up to its first frame, then /exit. */
async function openAndLeave(cwd: string, env: Record<string, string>): Promise<void> {
  const t = start([], cwd, { env });
  await t.waitFor(READY);
  await send(t, '/exit');
  expect(await t.exited()).toBe(0);
  t.close();
  term = undefined;
}

/** SGR colour codes on the screen's lines that contain `needle`. */
const coloursOn = (raw: string, needle: string) =>
  raw
    .split('\n')
    .filter((l) => l.replace(/\x1b\[[\d;]*m/g, '').includes(needle))
    .join('\n')
    .match(/\x1b\[[\d;]*m/g) ?? [];

/** A session run headless (-p) in `cwd` with its transcript under `configDir`: the one to resume. */
async function earlierSession(cwd: string, configDir: string, prompt: string, args: string[] = []): Promise<string> {
  const id = randomUUID();
  const r = await runAgent({
    api,
    cwd,
    args: ['-p', prompt, '--session-id', id, ...args],
    env: { CLAUDE_CONFIG_DIR: configDir },
  });
  expect(r.code, r.stderr).toBe(0);
  return id;
}

describe.skipIf(!hasTmux)('terminal UI start and resume (in tmux)', () => {
  it("the UI's bundle runs from its code cache: written at the first exit, used as is after, remade when V8 rejects it", async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    // A copy of the UI's bundle with no cache beside it yet.
    const bundle = join(tempDir('agent-tui-'), 'tui.cjs');
    copyFileSync(UI_BUNDLE, bundle);
    const cache = bundle.replace(/\.cjs$/, '.cache');
    const env = { AGENT_TUI_BUNDLE: bundle };
    await openAndLeave(cwd, env);
    expect(existsSync(cache)).toBe(true);
    const made = statSync(cache);
    expect(made.size).toBeGreaterThan(100_000);
    // Accepted: not written again (a rewrite renames a new file into place).
    await openAndLeave(cwd, env);
    expect(statSync(cache).ino).toBe(made.ino);
    // A cache V8 rejects (here: not one at all) only costs speed: the UI comes up and remakes it.
    writeFileSync(cache, 'not a code cache');
    await openAndLeave(cwd, env);
    expect(readFileSync(cache).length).toBeGreaterThan(100_000);
  });

  it('a resumed Edit is drawn as the coloured diff it showed when it ran', async () => {
    const cwd = tempDir();
    const configDir = tempDir('agent-config-');
    const file = join(cwd, 'notes.txt');
    writeFileSync(file, 'alpha\nbeta\ngamma\ndelta\n');
    api = await startFakeApi([
      toolUse('Read', { file_path: file }),
      toolUse('Edit', { file_path: file, old_string: 'beta', new_string: 'BETA\nbeta two' }),
      text('edited'),
    ]);
    const id = await earlierSession(cwd, configDir, 'change beta', ['--permission-mode', 'acceptEdits']);
    const t = start(['--resume', id], cwd, { rows: 40, env: { CLAUDE_CONFIG_DIR: configDir } });
    const s = await t.waitFor(/\(resumed: the conversation goes on below\)/);
    expect(s).toMatch(
      /✓ Edit\([^)]*notes\.txt\)\n {2}⎿ Updated notes\.txt: 2 lines added, 1 removed\n {4}1 {3}alpha\n {4}2 - beta\n {4}2 \+ BETA\n {4}3 \+ beta two\n {4}4 {3}gamma\n {4}5 {3}delta\n/,
    );
    // Removed lines red (31), added green (32), as when it ran.
    const raw = t.rawScreen();
    expect(coloursOn(raw, '2 - beta').join('')).toMatch(/\x1b\[31m/);
    expect(coloursOn(raw, '3 + beta two').join('')).toMatch(/\x1b\[32m/);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it("a prompt typed while a resumed session starts is drawn below that session's conversation, then sent", async () => {
    const cwd = tempDir();
    const configDir = tempDir('agent-config-');
    api = await startFakeApi([text('earlier answer'), text('later answer')]);
    const id = await earlierSession(cwd, configDir, 'earlier prompt');
    // The transcript becomes a FIFO: the session's start waits at reading it until the test writes
    // it, so the prompt is typed (and drawn) before the conversation is known. --fork-session
    // writes the new session's lines to a file of its own.
    const path = transcriptPath({ CLAUDE_CONFIG_DIR: configDir }, cwd, id);
    const lines = readFileSync(path, 'utf8');
    rmSync(path);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    const t = start(['--resume', id, '--fork-session'], cwd, { env: { CLAUDE_CONFIG_DIR: configDir } });
    await send(t, 'typed early');
    await t.waitFor(/^> typed early$/m);
    writeFileSync(path, lines);
    const s = await t.waitFor(/later answer/);
    const at = (what: string) => s.indexOf(what);
    expect(at('earlier prompt')).toBeGreaterThan(-1);
    expect(at('earlier prompt')).toBeLessThan(at('earlier answer'));
    expect(at('earlier answer')).toBeLessThan(at('(resumed: the conversation goes on below)'));
    expect(at('(resumed: the conversation goes on below)')).toBeLessThan(at('> typed early'));
    expect(at('> typed early')).toBeLessThan(at('later answer'));
    expect(s.match(/> typed early/g)).toHaveLength(1);
    expect(typedText(api.requests[1])).toBe('typed early');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});
