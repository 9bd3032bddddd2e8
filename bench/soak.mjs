// Benchmark: memory over a long tool session. One session of 300 model turns (a Read of a small
// file each turn, as in (c)), the prompt cache simulated; the agent's RSS is read when the fake API
// gets request 10 and request 300, and the growth between them is printed.
// Heap snapshots for a dev run: SOAK_HEAPSNAPSHOT=1 starts the agent with
// --heapsnapshot-signal=SIGUSR2 and signals it at both points; the .heapsnapshot files land in the
// session's temp dir (printed), for Chrome DevTools' comparison view. SOAK_NODE_OPTIONS=... sets the
// agent's NODE_OPTIONS (alone, not the bench's), to try V8 heap flags such as --max-semi-space-size.
// `node bench/soak.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, procStatusKiB } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);

const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;

/** One soak session: {rss10, rss300, transcriptKiB} in MiB / KiB. */
async function soakOnce(turns, marks, snapshot) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-soak-')));
  writeFileSync(join(cwd, 'small.txt'), 'one line of a small file\n'.repeat(8));
  const rss = {};
  let child;
  const api = await startFakeApi(async (_req, i) => {
    const n = i + 1;
    if (marks.includes(n)) {
      rss[n] = procStatusKiB(child.pid, 'VmRSS') / 1024;
      if (snapshot) {
        child.kill('SIGUSR2');
        await new Promise((r) => setTimeout(r, 3000)); // the snapshot is written synchronously by the agent
      }
    }
    return n >= turns
      ? { content: [{ type: 'text', text: 'done' }] }
      : {
          content: [
            { type: 'text', text: `Turn ${n}: reading it again.` },
            { type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'small.txt') } },
          ],
        };
  });
  const env = { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd };
  if (process.env.SOAK_NODE_OPTIONS) env.NODE_OPTIONS = process.env.SOAK_NODE_OPTIONS;
  if (snapshot) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2`;
  try {
    await new Promise((resolve, reject) => {
      child = spawn(
        AGENT,
        ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Read'],
        {
          cwd,
          env,
          stdio: ['pipe', 'ignore', 'inherit'],
        },
      );
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`soak session exited ${code}`))));
      child.stdin.end(userLine('read it many times'));
    });
    if (api.requests.length !== turns) throw new Error(`expected ${turns} requests, got ${api.requests.length}`);
  } finally {
    await api.close();
  }
  if (snapshot) console.error(`heap snapshots in ${cwd}`);
  return rss;
}

/** RSS growth from turn 10 to turn 300 of a 300-turn Read session, median of `runs`. */
export async function benchSoak(runs = 3, snapshot = false) {
  const at10 = [];
  const at300 = [];
  const growth = [];
  for (let r = 0; r < runs; r++) {
    const rss = await soakOnce(300, [10, 300], snapshot);
    at10.push(rss[10]);
    at300.push(rss[300]);
    growth.push(rss[300] - rss[10]);
  }
  return { rss10: median(at10), rss300: median(at300), growth: median(growth) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const s = await benchSoak(Number(process.env.BENCH_RUNS) || 3, process.env.SOAK_HEAPSNAPSHOT === '1');
  console.log(
    `300-turn session: RSS ${s.rss10.toFixed(1)} MiB at turn 10, ${s.rss300.toFixed(1)} MiB at turn 300, growth ${s.growth.toFixed(1)} MiB`,
  );
}
