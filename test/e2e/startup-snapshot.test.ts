// bin/agent starts Node from the start-up snapshot (dist/agent.blob, scripts/snapshot.cjs) when it
// is usable, and runs the bundle through its code cache otherwise (AGENT_SNAPSHOT=off, `node
// bin/agent`). Both starts must be the same session; the snapshot's builder refuses a bundle that
// reads the environment, the clock or the process while it initialises.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { resultText, startAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** One session that runs a Bash call showing how its agent was started; its lines and that output. */
async function session(cwd: string, env: Record<string, string | undefined>) {
  api = await startFakeApi([
    toolUse('Bash', {
      command: 'tr "\\0" " " < /proc/$PPID/cmdline; echo; echo "malloc=[${MALLOC_MMAP_THRESHOLD_-unset}]"',
    }),
    text('done'),
  ]);
  const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], env });
  p.sendRaw(userLine('how were you started?'));
  p.endInput();
  const { code } = await p.exited;
  expect(code).toBe(0);
  const lines = p.json();
  const init = lines.find((l: any) => l.type === 'system' && l.subtype === 'init') as Record<string, unknown>;
  return { init, shown: resultText(lastToolResults(api.requests[1])[0].content), lines };
}

describe.runIf(existsSync('/proc/self/cmdline'))('the start-up snapshot', () => {
  it('with AGENT_SNAPSHOT=on bin/agent starts from the snapshot; the session is the one the code-cache start (the default) makes', async () => {
    expect(existsSync(join(ROOT, 'dist/agent.blob'))).toBe(true);
    const cwd = tempDir();
    const snap = await session(cwd, { AGENT_SNAPSHOT: 'on' });
    expect(snap.shown).toContain('--snapshot-blob');
    expect(snap.shown).toContain('malloc=[unset]');
    const plain = await session(cwd, {});
    expect(plain.shown).not.toContain('--snapshot-blob');
    const { session_id: _a, uuid: _b, ...snapInit } = snap.init;
    const { session_id: _c, uuid: _d, ...plainInit } = plain.init;
    expect(snapInit).toEqual(plainInit);
    // Ids are drawn at run time, not kept from the build.
    expect(snap.init.session_id).not.toBe(plain.init.session_id);
    expect(snap.lines.map((l: any) => l.type)).toEqual(plain.lines.map((l: any) => l.type));
  }, 30_000);

  it('the builder refuses a bundle that reads the environment while it initialises, naming the read', () => {
    const dir = tempDir('agent-snapshot-');
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(join(ROOT, 'scripts/snapshot.cjs'), join(dir, 'scripts/snapshot.cjs'));
    writeFileSync(
      join(dir, 'dist/agent.cjs'),
      `const home = process.env.AGENT_SNAPSHOT_PROBE;
const hook = globalThis[Symbol.for('agent-runtime.snapshotMain')];
hook(() => console.log(home), async () => {});
`,
    );
    const r = spawnSync(
      process.execPath,
      ['--no-warnings', '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /no start-up snapshot: the bundle reads process\.env\.AGENT_SNAPSHOT_PROBE \(dist\/agent\.cjs:1:/,
    );
    expect(existsSync(join(dir, 'dist/agent.blob'))).toBe(false);
    expect(existsSync(join(dir, 'dist/agent.blob.node'))).toBe(false);
    // The same bundle without the read is snapshotted, with the node that made it beside it.
    writeFileSync(
      join(dir, 'dist/agent.cjs'),
      `const hook = globalThis[Symbol.for('agent-runtime.snapshotMain')];
hook(() => console.log('ran from the snapshot'), async () => {});
`,
    );
    const ok = spawnSync(
      process.execPath,
      ['--no-warnings', '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(dir, 'dist/agent.blob.node'), 'utf8')).toBe(`${process.execPath}\n`);
    const run = spawnSync(process.execPath, ['--snapshot-blob', join(dir, 'dist/agent.blob')], { encoding: 'utf8' });
    expect(run.stdout).toBe('ran from the snapshot\n');
  }, 30_000);
});
