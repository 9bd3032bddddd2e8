// (g)'s parts, run in its own process (the sandbox runtime keeps global state and proxies):
// what bubblewrap itself costs (the floor), what running a ready wrap costs, and what making a
// wrap costs (the work the agent does while the session is idle). Prints one JSON line.
// Run from a fresh temp dir: the runtime scans the working directory.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { setupSandbox, mergeSandboxSettings } = await import(
  pathToFileURL(join(root, 'dist/src/sandbox/index.js')).href
);
const { fileActivity } = await import(pathToFileURL(join(root, 'dist/src/util/fileActivity.js')).href);
const RUNS = Number(process.env.BENCH_PART_RUNS) || 30;

const cwd = process.cwd();
const scratch = join(cwd, '.scratch');
mkdirSync(scratch, { recursive: true });
const settings = mergeSandboxSettings([{ source: 'flag', settings: { sandbox: { enabled: true } } }], cwd, cwd);
const sandbox = await setupSandbox({
  settings,
  rules: { allow: [], deny: [] },
  cwd,
  workingDirs: [],
  scratchDir: scratch,
  warn: (m) => process.stderr.write(`${m}\n`),
});

const run = (argv, env) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      stdio: 'ignore',
      detached: true,
      env: { ...process.env, ...env },
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${argv.join(' ')} exited ${code}`)),
    );
  });

const ready = await sandbox.wrap('true', { commandId: 'bench' });
// The runtime's own wrap of the same runner, as it comes (a network namespace and two proxy
// bridges of its own): what each command cost before it joined the session's namespace.
const { runnerScript, COMMAND_ENV } = await import(pathToFileURL(join(root, 'dist/src/sandbox/runtime.js')).href);
const { SandboxManager } = createRequire(join(root, 'package.json'))('@anthropic-ai/sandbox-runtime');
const own = await SandboxManager.wrapWithSandbox(runnerScript('linux'), undefined, undefined, undefined, {
  commandId: 'bench-own',
});
const variants = {
  bare: ['/bin/bash', '-c', 'true'],
  bwrapMin: ['bwrap', '--ro-bind', '/', '/', '/bin/bash', '-c', 'true'],
  bwrapNamespaces: [
    'bwrap',
    '--new-session',
    '--die-with-parent',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-user',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '/bin/bash',
    '-c',
    'true',
  ],
  readyWrap: ['/bin/bash', '-c', ready.command],
  ownBridges: ['/bin/bash', '-c', own],
};
const times = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
// Interleaved, so a change of the machine's load hits every variant alike.
for (let i = 0; i < RUNS; i++)
  for (const [k, argv] of Object.entries(variants))
    times[k].push(await run(argv, k === 'readyWrap' ? ready.env : k === 'ownBridges' ? { [COMMAND_ENV]: 'true' } : {}));
await ready.finish();
SandboxManager.cleanupAfterCommand();

// Making a wrap, as a command that finds none ready does (the runtime's helper spawns included):
// let the wrap prepared after the last command finish, then make it stale.
const wrapMs = [];
for (let i = 0; i < Math.min(RUNS, 15); i++) {
  await new Promise((r) => setTimeout(r, 100));
  fileActivity.changed();
  const t0 = performance.now();
  const w = await sandbox.wrap('true', { commandId: `bench-${i}` });
  wrapMs.push(performance.now() - t0);
  await w.finish();
}
const m = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
console.log(
  JSON.stringify({
    bwrapMin: m.bwrapMin - m.bare,
    bwrapNamespaces: m.bwrapNamespaces - m.bare,
    readyWrap: m.readyWrap - m.bare,
    ownBridges: m.ownBridges - m.bare,
    makeWrap: median(wrapMs),
  }),
);
process.exit(0);
