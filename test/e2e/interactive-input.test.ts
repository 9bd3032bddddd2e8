// The terminal UI's input end to end (bin/agent in tmux against the fake API): the prompt history
// kept per project across sessions (Up/Down, Ctrl+R), a large paste collapsed and sent whole.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, text } from '../fake-api/server.js';
import { type FakeApi, startFakeApi, tempDir } from './harness.js';
import { hasTmux, READY, send, startTerm, type Term } from './tmux.js';

if (!hasTmux) console.warn('interactive-input.test.ts: skipped: tmux is not installed');

let api: FakeApi | undefined;
const terms: Term[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of terms.splice(0)) t.close();
  await api?.close();
  api = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const dir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
const start = (args: string[], cwd: string, opts: Parameters<typeof startTerm>[3] = {}) => {
  const t = startTerm(api!.url, args, cwd, opts);
  terms.push(t);
  return t;
};
/** The editor's first line shows exactly this. */
const editorShows = (s: string) => new RegExp(`│ > ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +│`);

describe.skipIf(!hasTmux)('terminal UI input (in tmux)', () => {
  it("Up/Down walk this project's history, kept across sessions; Ctrl+R finds an older prompt", async () => {
    api = await startFakeApi(() => text('ok'));
    const config = dir();
    const cwd = dir();
    const other = dir();
    const env = { CLAUDE_CONFIG_DIR: config };
    let t = start([], cwd, { env });
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
    t = start([], cwd, { env });
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
    expect(lastUserText(api.requests.at(-1)!)).toBe('alpha one');
    t.keys('C-d');
    expect(await t.exited()).toBe(0);

    // Another project has its own (empty) history.
    t = start([], other, { env });
    await t.waitFor(READY);
    t.keys('Up');
    await new Promise((r) => setTimeout(r, 300));
    expect(t.screen()).toMatch(READY);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });

  it('a large paste shows as one placeholder line and is sent whole', async () => {
    api = await startFakeApi([text('read it')]);
    const t = start([], dir());
    await t.waitFor(READY);
    const lines = Array.from({ length: 40 }, (_, i) => `pasted line ${i + 1}`);
    t.type('summarise ');
    t.paste(lines.join('\n'));
    await t.waitFor(editorShows('summarise [Pasted text #1 +40 lines]'));
    expect(t.screen()).not.toMatch(/pasted line 2/);
    t.keys('Enter');
    const s = await t.waitFor(/read it/);
    expect(s).toMatch(/^> summarise \[Pasted text #1 \+40 lines\]$/m);
    expect(lastUserText(api.requests[0])).toBe(`summarise ${lines.join('\n')}`);
    t.keys('C-d');
    expect(await t.exited()).toBe(0);
  });
});
