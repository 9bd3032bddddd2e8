// The terminal UI's start end to end (bin/agent in tmux against the fake API): the UI's bundle runs
// from a V8 code cache of its own, as the CLI's does.
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { type FakeApi, startFakeApi, tempDir } from './harness.js';
import { hasTmux, READY, send, startTerm, type Term } from './tmux.js';

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

describe.skipIf(!hasTmux)('terminal UI start (in tmux)', () => {
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
});
