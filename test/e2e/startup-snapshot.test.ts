// bin/agent starts Node from the start-up snapshot (dist/agent.blob, scripts/snapshot.cjs) when it
// is usable, and runs the bundle through its code cache otherwise (AGENT_SNAPSHOT=off, `node
// bin/agent`, a blob made elsewhere). Both starts must be the same session; the snapshot's builder
// refuses a bundle that reads the environment, the clock or the process, or loads
// node:worker_threads, while it initialises.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { resultText, startAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// The flags the build gives the snapshot's builder (scripts/snapshotFlags.mjs), and a start from its blob.
const START = ['--no-rehash-snapshot', '--optimize-for-size'];
const BUILD = ['--no-warnings', ...START];

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
  it('bin/agent starts from the snapshot by default; the session is the one the code-cache start (AGENT_SNAPSHOT=off) makes', async () => {
    expect(existsSync(join(ROOT, 'dist/agent.blob'))).toBe(true);
    // Padded by the build (scripts/alignBlob.mjs) so that Node's buffer for it is a whole number of
    // 2 MiB huge pages: glibc maps the size plus its header rounded up to 4 KiB.
    expect(statSync(join(ROOT, 'dist/agent.blob')).size % (2 * 1024 * 1024)).toBe(2 * 1024 * 1024 - 4096);
    const cwd = tempDir();
    const snap = await session(cwd, { AGENT_SNAPSHOT: undefined });
    expect(snap.shown).toContain('--snapshot-blob');
    expect(snap.shown).toContain('malloc=[unset]');
    const plain = await session(cwd, { AGENT_SNAPSHOT: 'off' });
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
      [...BUILD, '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
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
      [...BUILD, '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(dir, 'dist/agent.blob.node'), 'utf8')).toBe(`${process.execPath}\n${join(dir, 'dist')}\n`);
    const run = spawnSync(process.execPath, [...START, '--snapshot-blob', join(dir, 'dist/agent.blob')], {
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('ran from the snapshot\n');
  }, 30_000);

  it('the builder refuses a bundle that loads node:worker_threads while it initialises; loaded later, workers and console.Console work', () => {
    const dir = tempDir('agent-snapshot-');
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'dist'));
    copyFileSync(join(ROOT, 'scripts/snapshot.cjs'), join(dir, 'scripts/snapshot.cjs'));
    const build = () =>
      spawnSync(
        process.execPath,
        [...BUILD, '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
        { cwd: dir, encoding: 'utf8' },
      );
    writeFileSync(
      join(dir, 'dist/agent.cjs'),
      `const { Worker } = require('node:worker_threads');
globalThis[Symbol.for('agent-runtime.snapshotMain')](() => new Worker('0', { eval: true }), async () => {});
`,
    );
    const refused = build();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/no start-up snapshot: the bundle loads node:worker_threads \(dist\/agent\.cjs:1:/);
    expect(existsSync(join(dir, 'dist/agent.blob'))).toBe(false);
    // Loaded when the started process needs it, a worker starts and answers.
    writeFileSync(
      join(dir, 'dist/agent.cjs'),
      `globalThis[Symbol.for('agent-runtime.snapshotMain')](() => {
  console.log(typeof console.Console);
  const { Worker } = require('node:worker_threads');
  const w = new Worker('require("node:worker_threads").parentPort.postMessage(process.cwd())', { eval: true });
  w.on('message', (m) => { console.log('worker in', m); void w.terminate(); });
  w.on('error', (e) => console.log('worker failed:', e.message));
}, async () => {});
`,
    );
    const ok = build();
    expect(ok.status, ok.stderr).toBe(0);
    const run = spawnSync(process.execPath, [...START, '--snapshot-blob', join(dir, 'dist/agent.blob')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.stdout).toBe(`function\nworker in ${dir}\n`);
  }, 30_000);

  it("functions a warm-up session ran are in the blob compiled (the warm-up's code cache), and Node's own that every session runs (the builder ran them); the others compile at their first call", () => {
    const dir = tempDir('agent-snapshot-');
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'dist'));
    for (const f of ['snapshot.cjs', 'snapshot-warmup.cjs'])
      copyFileSync(join(ROOT, 'scripts', f), join(dir, 'scripts', f));
    // Neither runs while the bundle initialises: `hot` runs in the warm-up session, `cold` never.
    // V8's %DebugPrint shows a function's bytecode once it has some.
    writeFileSync(
      join(dir, 'dist/agent.cjs'),
      `function hot() { return 1; }
function cold() { return 2; }
function main() {
  if (process.argv[2] === '--warm-up') return console.log(hot());
  require('node:v8').setFlagsFromString('--allow-natives-syntax');
  const fns = { hot, cold, connect: require('node:net').Socket.prototype.connect };
  new Function('f', '%DebugPrint(f)')(fns[process.argv[2]]);
}
const hook = globalThis[Symbol.for('agent-runtime.snapshotMain')];
if (hook) hook(main, async () => {});
else main();
`,
    );
    const build = () =>
      spawnSync(
        process.execPath,
        [...BUILD, '--snapshot-blob', join(dir, 'dist/agent.blob'), '--build-snapshot', 'scripts/snapshot.cjs'],
        { cwd: dir, encoding: 'utf8' },
      );
    /** Which of the functions have bytecode in a process started from the blob. */
    const compiled = (fns = ['hot', 'cold']) =>
      fns.filter((fn) => {
        const run = spawnSync(process.execPath, [...START, '--snapshot-blob', join(dir, 'dist/agent.blob'), '--', fn], {
          encoding: 'utf8',
        });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toContain(`<SharedFunctionInfo ${fn === 'connect' ? 'Socket.connect' : fn}>`);
        return /^ - bytecode: /m.test(run.stdout);
      });
    const cold = build();
    expect(cold.status, cold.stderr).toBe(0);
    expect(cold.stderr).toContain('agent.snapshot-cache; the blob');
    expect(compiled()).toEqual([]);
    // A socket's connect: nothing in the builder connects one but its run of Node's modules.
    expect(compiled(['connect'])).toEqual(['connect']);

    const warm = spawnSync(process.execPath, [...START, 'scripts/snapshot-warmup.cjs', '--', '--warm-up'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(warm.stdout, warm.stderr).toBe('1\n');
    expect(existsSync(join(dir, 'dist/agent.snapshot-cache'))).toBe(true);
    const built = build();
    expect(built.status, built.stderr).toBe(0);
    expect(built.stderr).toBe('');
    expect(compiled()).toEqual(['hot']);

    // A cache from another bundle is refused, said so, and the blob is made without it.
    writeFileSync(join(dir, 'dist/agent.cjs'), `${readFileSync(join(dir, 'dist/agent.cjs'), 'utf8')}// changed\n`);
    const other = build();
    expect(other.status, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/V8 refused .*agent\.snapshot-cache/);
    expect(compiled()).toEqual([]);
  }, 30_000);

  it('-p and stream-json load no UI: an install without the UI bundle and without node_modules runs both; the CLI bundle holds no Ink or React', async () => {
    // Ink's host elements and React's element tag: in the UI bundle, never in the CLI's.
    const markers = ['ink-text', 'ink-box', 'react.transitional.element'];
    const cli = readFileSync(join(ROOT, 'dist', 'agent.cjs'), 'utf8');
    const ui = readFileSync(join(ROOT, 'dist', 'tui.cjs'), 'utf8');
    for (const m of markers) {
      expect(ui).toContain(m);
      expect(cli).not.toContain(m);
    }
    const dir = tempDir('agent-headless-');
    mkdirSync(join(dir, 'dist'));
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true, preserveTimestamps: true });
    for (const f of ['agent.cjs', 'agent.cache'])
      cpSync(join(ROOT, 'dist', f), join(dir, 'dist', f), { preserveTimestamps: true });
    api = await startFakeApi([text('printed'), text('streamed')]);
    const env = {
      ...process.env,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'k',
      CLAUDE_CONFIG_DIR: dir,
      TMPDIR: dir,
    };
    const run = async (args: string[], input: string) => {
      const child = spawn(join(dir, 'bin/agent'), args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.stdin.end(input);
      const [code] = await once(child, 'close');
      expect(code, err).toBe(0);
      return out;
    };
    expect(await run(['-p', 'say it'], '')).toBe('printed\n');
    const lines = (await run(STREAM_ARGS, userLine('say it')))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'streamed' });
  }, 30_000);

  it('a blob made in another folder is not used: a copy of the install runs the bundle through its code cache', async () => {
    const dir = tempDir('agent-moved-');
    mkdirSync(join(dir, 'dist'));
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true, preserveTimestamps: true });
    for (const f of ['agent.cjs', 'agent.cache', 'agent.blob', 'agent.blob.node'])
      cpSync(join(ROOT, 'dist', f), join(dir, 'dist', f), { preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    api = await startFakeApi([toolUse('Bash', { command: 'tr "\\0" " " < /proc/$PPID/cmdline' }), text('done')]);
    const child = spawn(join(dir, 'bin/agent'), ['-p', 'how were you started?', '--allowedTools', 'Bash'], {
      cwd: dir,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'k', CLAUDE_CONFIG_DIR: dir, TMPDIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const [code] = await once(child, 'close');
    expect(code, err).toBe(0);
    const shown = resultText(lastToolResults(api.requests[1])[0].content);
    expect(shown).toContain(join(dir, 'bin/agent'));
    expect(shown).not.toContain('--snapshot-blob');
  }, 30_000);
});
