// Per-turn overhead and memory of two or more builds side by side:
// `node bench/turnsSideBySide.mjs <root> <root> …` (each a checkout with a built dist/, e.g. this
// one and a temporary worktree of an older commit). Each round runs every build, in a rotating
// order, through bench row (c) (a 50-turn Read session and a 1-turn session: wall and agent CPU per
// extra turn) and row (n) (a 300-turn Read session: RSS at request 10 and request 300). Prints each
// build's medians and, from the second build on, the median of its per-round ratio to the first.
// Rows (c) and (n) alone move by 20 % between runs on this machine; rounds that alternate see the
// same moment of the machine, so their ratio holds when the absolute figures drift.
// BENCH_ROUNDS (default 7) rounds; BENCH_SOAK=0 leaves row (n) out.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMs, median, procStatusKiB, ROOT, startBenchApi, userLine } from './lib.mjs';

const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length < 2) {
  console.error('usage: node bench/turnsSideBySide.mjs <checkout> <checkout> [...]');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;
const SOAK = process.env.BENCH_SOAK !== '0';
const ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Read'];

/** A fake API whose session reads `file` until request `turns`, then answers; `onRequest(n)` sees each. */
function readScript(file, turns, onRequest = () => {}) {
  return async (_req, i) => {
    const n = i + 1;
    await onRequest(n);
    return n % turns === 0
      ? { content: [{ type: 'text', text: 'done' }] }
      : { content: [{ type: 'tool_use', name: 'Read', input: { file_path: file } }] };
  };
}

/**
 * One session of `root`'s agent against `api`: resolves with its wall time (spawn to exit) and the
 * CPU it had used when its result line came. `onChild` gets the child as it is spawned.
 */
function session(root, api, cwd, onChild = () => {}) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(join(root, 'bin/agent'), ARGS, {
      cwd,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    onChild(child);
    let cpu = 0;
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => {
      buf += c;
      if (!cpu && buf.includes('"type":"result"')) cpu = cpuMs(child.pid);
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
    });
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done({ wall: performance.now() - t0, cpu }) : fail(new Error(`${root}: exit ${code}`)),
    );
    child.stdin.end(userLine('read it'));
  });
}

/** Row (c) for one build: {wall, cpu} per turn, from a 50-turn and a 1-turn session. */
async function perTurn(root, cwd) {
  const file = join(cwd, 'small.txt');
  const api50 = await startBenchApi(readScript(file, 50));
  const api1 = await startBenchApi(readScript(file, 1));
  try {
    const long = await session(root, api50, cwd);
    const short = await session(root, api1, cwd);
    if (api50.requests.length !== 50) throw new Error(`${root}: expected 50 requests, got ${api50.requests.length}`);
    return { wall: (long.wall - short.wall) / 49, cpu: (long.cpu - short.cpu) / 49 };
  } finally {
    await api50.close();
    await api1.close();
  }
}

/** Row (n) for one build: RSS in MiB at request 10 and request 300 of a 300-turn Read session. */
async function soak(root, cwd) {
  let child;
  const rss = {};
  const api = await startBenchApi(
    readScript(join(cwd, 'small.txt'), 300, (n) => {
      if (n === 10 || n === 300) rss[n] = procStatusKiB(child.pid, 'VmRSS') / 1024;
    }),
  );
  try {
    await session(root, api, cwd, (c) => (child = c));
    return { at10: rss[10], at300: rss[300], growth: rss[300] - rss[10] };
  } finally {
    await api.close();
  }
}

const rows = roots.map(() => ({ wall: [], cpu: [], at10: [], at300: [], growth: [] }));
const ratios = roots.map(() => ({ wall: [], cpu: [], at300: [] }));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-turns-')));
writeFileSync(join(cwd, 'small.txt'), 'one line of a small file\n'.repeat(8));
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = roots.map((_, i) => (i + round) % roots.length);
    const seen = [];
    for (const i of order) {
      const c = await perTurn(roots[i], cwd);
      const n = SOAK ? await soak(roots[i], cwd) : undefined;
      seen[i] = { ...c, ...n };
      rows[i].wall.push(c.wall);
      rows[i].cpu.push(c.cpu);
      if (n) for (const k of ['at10', 'at300', 'growth']) rows[i][k].push(n[k]);
    }
    for (let i = 1; i < roots.length; i++) {
      ratios[i].wall.push(seen[i].wall / seen[0].wall);
      ratios[i].cpu.push(seen[i].cpu / seen[0].cpu);
      if (SOAK) ratios[i].at300.push(seen[i].at300 / seen[0].at300);
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
} finally {
  rmSync(cwd, { recursive: true, force: true });
}

console.log(`turns side by side: node ${process.version}, ${ROUNDS} rounds, medians (bench rows (c) and (n))\n`);
roots.forEach((root, i) => {
  const r = rows[i];
  let line = `${root === ROOT.replace(/\/$/, '') ? `${root} (this checkout)` : root}\n  (c) ${median(r.wall).toFixed(2)} ms wall, ${median(r.cpu).toFixed(2)} ms CPU a turn`;
  if (SOAK)
    line += `; (n) RSS ${median(r.at10).toFixed(1)} → ${median(r.at300).toFixed(1)} MiB, growth ${median(r.growth).toFixed(1)} MiB`;
  if (i > 0) {
    line += `\n  against the first: (c) wall ${median(ratios[i].wall).toFixed(2)}x, CPU ${median(ratios[i].cpu).toFixed(2)}x`;
    if (SOAK) line += `; (n) RSS at turn 300 ${median(ratios[i].at300).toFixed(2)}x`;
  }
  console.log(line);
});
