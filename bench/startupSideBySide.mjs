// Start-up of two or more builds side by side: `node bench/startupSideBySide.mjs <root> <root> …`
// (each a checkout with a built dist/, e.g. this one and a temporary worktree of an older commit).
// Each round spawns `node -e 0` (the floor), then every build once in a rotating order, each as
// bench row (a) does: stream-json, one prompt, the time from spawn to the `system/init` line.
// Prints each build's median init time, its median ratio to the floor of its round, and (from the
// second build on) the median of its ratio to the first build's start in the same round.
// BENCH_ROUNDS (default 41) rounds; the environment is the caller's without any provider, proxy,
// certificate or telemetry variable, so what is measured is a start with none of them set.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, onLines } from './lib.mjs';

const here = fileURLToPath(new URL('..', import.meta.url));
const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length < 2) {
  console.error('usage: node bench/startupSideBySide.mjs <checkout> <checkout> [...]');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 41;
const { startFakeApi } = await import(pathToFileURL(join(here, 'dist/test/fake-api/server.js')).href);

/** The variables of the features measured here: a start with none of them set. */
const UNSET =
  /^(CLAUDE_CODE_USE_|AWS_|ANTHROPIC_(BEDROCK|VERTEX|FOUNDRY|AUTH_TOKEN|CUSTOM_HEADERS)|CLOUD_ML_REGION|VERTEX_REGION_|GOOGLE_APPLICATION_CREDENTIALS|CLAUDE_CODE_SKIP_|CLAUDE_CODE_CLIENT_|CLAUDE_CODE_ENABLE_TELEMETRY|OTEL_|HTTPS?_PROXY$|https?_proxy$|NO_PROXY$|no_proxy$|NODE_EXTRA_CA_CERTS$)/;
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !UNSET.test(k)));

const userLine = `${JSON.stringify({
  type: 'user',
  session_id: '',
  message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
  parent_tool_use_id: null,
})}\n`;
const ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

/** ms from spawn to the init line of `root`'s bin/agent; the run is then let finish. */
function initOnce(root, apiUrl, cwd) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(join(root, 'bin/agent'), ARGS, {
      cwd,
      env: { ...baseEnv, ANTHROPIC_BASE_URL: apiUrl, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let init = 0;
    onLines(child.stdout, (line) => {
      if (!init && line.includes('"subtype":"init"')) init = performance.now() - t0;
    });
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 && init ? done(init) : fail(new Error(`${root}: exit ${code}, init ${init ? 'seen' : 'not seen'}`)),
    );
    child.stdin.end(userLine);
  });
}

function floorOnce() {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    // The same environment as the agents' (no NODE_EXTRA_CA_CERTS, which Node parses at every start
    // when it is set: about 50 ms here), so the ratio compares like with like.
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', env: baseEnv });
    child.on('error', fail);
    child.on('close', () => done(performance.now() - t0));
  });
}

const api = await startFakeApi(() => ({ content: [{ type: 'text', text: 'ok' }] }));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-side-')));
const init = roots.map(() => []);
const ratio = roots.map(() => []);
const floors = [];
try {
  // One unmeasured start each: the page cache and each build's code cache are warm for all.
  for (const root of roots) await initOnce(root, api.url, cwd);
  for (let round = 0; round < ROUNDS; round++) {
    const floor = await floorOnce();
    floors.push(floor);
    for (let k = 0; k < roots.length; k++) {
      const i = (round + k) % roots.length;
      const ms = await initOnce(roots[i], api.url, cwd);
      init[i].push(ms);
      ratio[i].push(ms / floor);
    }
  }
} finally {
  await api.close();
  rmSync(cwd, { recursive: true, force: true });
}
console.log(`${ROUNDS} rounds; node -e 0 median ${median(floors).toFixed(1)} ms`);
for (let i = 0; i < roots.length; i++) {
  const paired = i === 0 ? '' : `, ${median(init[i].map((ms, r) => ms / init[0][r])).toFixed(3)}x the first's`;
  console.log(
    `${roots[i]}: spawn → init median ${median(init[i]).toFixed(1)} ms, ${median(ratio[i]).toFixed(2)}x node -e 0${paired}`,
  );
}
