// `npm run bench`: figures, not a timed test. Medians of several runs against the project's fake
// Messages API (no delay), so what is measured is the runtime's own overhead.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs, median, procStatusKiB } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);

const RUNS = Number(process.env.BENCH_RUNS) || 7;
const tmp = (p) => realpathSync(mkdtempSync(join(tmpdir(), p)));
const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;
const ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'];

/**
 * One agent run: spawn, send one prompt, close stdin; resolve with times (ms from spawn) of the
 * init line and of exit, and the peak RSS seen.
 */
function runOnce(api, prompt, cwd) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(AGENT, ARGS, {
      cwd,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let initMs = 0;
    let peak = 0;
    let buf = '';
    let lastResult;
    let cpu = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, procStatusKiB(child.pid, 'VmHWM'))), 5);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => {
      peak = Math.max(peak, procStatusKiB(child.pid, 'VmHWM'));
      buf += c;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.type === 'system' && msg.subtype === 'init' && !initMs) initMs = performance.now() - t0;
        if (msg.type === 'result') {
          lastResult = msg;
          cpu = cpuMs(child.pid);
          peak = Math.max(peak, procStatusKiB(child.pid, 'VmHWM'));
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code !== 0 || lastResult?.is_error)
        return reject(new Error(`agent exited ${code}: ${JSON.stringify(lastResult)}`));
      resolve({ initMs, totalMs: performance.now() - t0, peakMiB: peak / 1024, cpuMs: cpu, result: lastResult });
    });
    child.stdin.end(userLine(prompt));
  });
}

/** `node -e 0` spawned and waited for, the same way as the agent: the floor of any start. */
function nodeFloorOnce() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - t0));
  });
}

/**
 * (a) side by side with the floor: each agent start follows a `node -e 0`, so both see the same
 * moment of the machine and their ratio holds better than either figure when the machine drifts.
 */
async function benchStartup() {
  const api = await startFakeApi(() => ({ content: [{ type: 'text', text: 'ok' }] }));
  const cwd = tmp('bench-a-');
  const init = [];
  const floor = [];
  const ratio = [];
  for (let i = 0; i < Math.max(RUNS, 11); i++) {
    const f = await nodeFloorOnce();
    const a = (await runOnce(api, 'hi', cwd)).initMs;
    floor.push(f);
    init.push(a);
    ratio.push(a / f);
  }
  await api.close();
  rmSync(cwd, { recursive: true, force: true });
  return { init: median(init), floor: median(floor), ratio: median(ratio) };
}

async function benchTwoTurn() {
  let n = 0;
  const api = await startFakeApi(() =>
    n++ % 2 === 0
      ? { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo bench' } }] }
      : { content: [{ type: 'text', text: 'done' }] },
  );
  const cwd = tmp('bench-b-');
  const wall = [];
  const rss = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runOnce(api, 'run echo', cwd);
    wall.push(r.totalMs);
    rss.push(r.peakMiB);
  }
  await api.close();
  return { wall: median(wall), rss: median(rss) };
}

async function benchFiftyTurns() {
  const cwd = tmp('bench-c-');
  writeFileSync(join(cwd, 'small.txt'), 'one line\n');
  const turnsOf = (turns) => {
    let n = 0;
    return () =>
      ++n % turns === 0
        ? { content: [{ type: 'text', text: 'done' }] }
        : { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'small.txt') } }] };
  };
  const api50 = await startFakeApi(turnsOf(50));
  const api1 = await startFakeApi(turnsOf(1));
  const per = [];
  const cpuPer = [];
  for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 2)); i++) {
    const long = await runOnce(api50, 'read 49 times', cwd);
    const short = await runOnce(api1, 'answer at once', cwd);
    if (long.result.num_turns !== 50) throw new Error(`expected 50 turns, got ${long.result.num_turns}`);
    per.push((long.totalMs - short.totalMs) / 49);
    cpuPer.push((long.cpuMs - short.cpuMs) / 49);
  }
  await api50.close();
  await api1.close();
  return { perTurn: median(per), cpuPerTurn: median(cpuPer) };
}

async function benchGrep() {
  const dir = tmp('bench-d-');
  for (let d = 0; d < 200; d++) {
    const sub = join(dir, `dir${d}`);
    mkdirSync(sub);
    for (let f = 0; f < 100; f++)
      writeFileSync(
        join(sub, `file${f}.ts`),
        `export const value${f} = ${f};\n// ${f % 97 === 0 ? 'NEEDLE here' : 'hay'}\n`,
      );
  }
  const { runGrep, findRg } = await import(pathToFileURL(join(root, 'dist/tools/grep.js')).href);
  const ctx = { cwd: dir, signal: new AbortController().signal };
  const time = async (fn) => {
    const xs = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await fn();
      xs.push(performance.now() - t);
    }
    return median(xs);
  };
  const out = { js: await time(() => runGrep({ pattern: 'NEEDLE' }, ctx, { impl: 'js' })) };
  if (findRg()) {
    out.viaRg = await time(() => runGrep({ pattern: 'NEEDLE' }, ctx, { impl: 'rg' }));
    out.rgAlone = await time(async () => spawnSync('rg', ['-l', 'NEEDLE', dir]));
  }
  rmSync(dir, { recursive: true, force: true });
  return out;
}

async function benchNodeFloor() {
  const xs = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    xs.push(performance.now() - t);
  }
  return median(xs);
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;
console.log(`agent-runtime bench: node ${process.version}, ${RUNS} runs each, medians\n`);
const floor = await benchNodeFloor();
console.log(`node -e 0 (the floor)                  ${fmt(floor)}`);
const a = await benchStartup();
console.log(
  `(a) spawn → init line                  ${fmt(a.init)}, ${a.ratio.toFixed(2)}x node -e 0 (${fmt(a.floor)} beside it)    target ≤ 150 ms, ≤ 1.5x`,
);
{
  const { benchTuiStartup } = await import('./tuiStartup.mjs');
  const api = await startFakeApi([]);
  const q = await benchTuiStartup(api.url, RUNS);
  await api.close();
  console.log(`(q) \`agent\` in a terminal → the prompt editor's first frame ${fmt(q)}    target ≤ 300 ms`);
}
const b = await benchTwoTurn();
console.log(
  `(b) two-turn session (Bash echo)       ${fmt(b.wall)}, peak RSS ${b.rss.toFixed(1)} MiB    target ≤ 250 ms, ≤ 80 MiB`,
);
const c = await benchFiftyTurns();
console.log(
  `(c) 50-turn session, per-turn overhead ${fmt(c.perTurn)} wall (the fake API's time included), ${fmt(c.cpuPerTurn)} agent CPU    target ≤ 5 ms`,
);
const d = await benchGrep();
console.log(
  `(d) Grep, 20,000 files                 js ${fmt(d.js)}` +
    (d.viaRg !== undefined ? `, via rg ${fmt(d.viaRg)}, rg alone ${fmt(d.rgAlone)}` : ' (rg not installed)'),
);
try {
  const { benchSubagents } = await import('./subagents.mjs');
  const s = await benchSubagents();
  console.log(`(e) ${s.label.padEnd(34)} ${fmt(s.ms)}    target ≈ 1000 ms`);
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
}
{
  const { benchLongLines } = await import('./longLines.mjs');
  const l = await benchLongLines();
  const row = Object.entries(l)
    .map(([mb, ms]) => `${mb} MB ${fmt(ms)}`)
    .join(', ');
  console.log(`(f) one long stdin line → its result     ${row}    target: 50 MB ≤ 1000 ms`);
}
const f = await (await import('./sandbox.mjs')).benchSandbox();
console.log(
  f.skipped
    ? `(g) Bash sandbox                        skipped: ${f.skipped}`
    : `(g) Bash sandbox: added per Bash call   ${fmt(f.pacedPerCall)} at a model's pace (replies start 300 ms after the request), ${fmt(f.perCall)} back to back on an instant model (median call span, on − off; whole sessions: ${fmt(f.wholeSession.paced)} / ${fmt(f.wholeSession.instant)}); added at start ${fmt(f.startup)}    target ≤ 15 ms per call\n` +
        `(g) … its parts, each over bash -c true: bwrap --ro-bind / / ${fmt(f.parts.bwrapMin)}, bwrap with the sandbox's namespaces ${fmt(f.parts.bwrapNamespaces)}, ` +
        `a ready wrap (joins the session's network namespace; mounts, seccomp) ${fmt(f.parts.readyWrap)} (the runtime's own, with a network namespace and proxy bridges per command: ${fmt(f.parts.ownBridges)}); making a wrap (done while idle) ${fmt(f.parts.makeWrap)}`,
);
{
  const { benchResume } = await import('./resume.mjs');
  const r = await benchResume();
  console.log(
    `(h) resume a ${r.turns}-turn transcript → first request ${fmt(r.ms)}, peak RSS ${r.rssMiB.toFixed(1)} MiB`,
  );
}
{
  const r = await (await import('./replay.mjs')).benchReplay(Math.max(3, Math.ceil(RUNS / 2)));
  console.log(
    `(i) 50-turn session, --record then --replay   recorded ${fmt(r.recordMs)}, replayed ${fmt(r.replayMs)} (${fmt(r.replayMs / 50)} a turn), recording ${r.kib.toFixed(0)} KiB`,
  );
}
{
  const { benchTeams } = await import('./teams.mjs');
  const t = await benchTeams();
  console.log(`(j) two teammates, each \`sleep 1\`: both done ${fmt(t.both)} after the spawn    target ≈ 1000 ms`);
  console.log(`(j) lead re-prompt after a teammate's SendMessage ${fmt(t.reprompt)}    target ≤ 600 ms`);
  const d = await benchTeams('detached');
  console.log(
    `(j) the same, our lead starting each teammate as a detached process: both done ${fmt(d.both)} after the spawn (in-process: ${fmt(t.both)}); session ${fmt(d.wall)} (in-process: ${fmt(t.wall)})`,
  );
  const { benchProcessTeams } = await import('./processTeams.mjs');
  const pt = await benchProcessTeams();
  console.log(
    `(j) the same with process teammates (claude-code-controller leads): both done ${fmt(pt.task)} after the tasks were sent; spawn → both answering ${fmt(pt.start)}`,
  );
}
{
  const econ = await import('./economics.mjs');
  const runs = Math.max(3, Math.ceil(RUNS / 2));
  const k = await econ.benchReviewCost(runs);
  console.log(
    `(k) 30-turn review session (Read 6 KB / ls), prompt cache simulated: $${k.cost.toFixed(3)} (the agent's total_cost_usd $${k.reported.toFixed(3)}), ` +
      `${(k.share * 100).toFixed(1)} % of input tokens from cache    target ≤ $0.37, ≥ 85 % (reference $0.44)`,
  );
  console.log(
    `(k) its first request's prompt tokens: ${k.firstPrompt.system + k.firstPrompt.tools} (system ${k.firstPrompt.system} + tools ${k.firstPrompt.tools})    ` +
      'reference 9303 (system 1535 + tools 7768; its environment, agents and skills add 2537 in the first messages)',
  );
  const l = await econ.benchStreamedTools(runs);
  console.log(
    `(l) 3 tool calls 1 s apart in one reply, request → next request: read-only \`sleep 1\` ${fmt(l.readOnly)}, writing \`sleep 1 && echo N > F\` ${fmt(l.writing)}    target ≤ 4.3 s each (reference 4.1 s)`,
  );
  const m = await econ.benchParallelReadOnly(runs);
  console.log(
    `(m) 4 read-only \`sleep 1\` Bash calls in one turn, request → next request ${fmt(m)}    target ≤ 1.3 s (reference 1.2 s)`,
  );
}
{
  const { benchToolSearch } = await import('./toolSearch.mjs');
  const o = await benchToolSearch(3);
  console.log(
    `(o) 200 MCP tools, 10-turn session: first request ${o.auto.firstTokens} prompt tokens deferred / ${o.false.firstTokens} all offered; ` +
      `input cost $${o.auto.cost.toFixed(4)} / $${o.false.cost.toFixed(4)}    target: first request ≤ 25 % of all offered`,
  );
}
{
  const { benchFork } = await import('./fork.mjs');
  const p = await benchFork();
  console.log(
    `(p) a fork's first request: ${p.fork.read} of ${p.fork.total} input tokens read from the parent's cache (a general-purpose subagent's: ${p.sub.read} of ${p.sub.total})    target: ≥ 90 % read`,
  );
}
{
  const { benchSoak } = await import('./soak.mjs');
  const s = await benchSoak(3);
  console.log(
    `(n) 300-turn Read session: RSS ${s.rss10.toFixed(1)} MiB at turn 10, ${s.rss300.toFixed(1)} MiB at turn 300, growth ${s.growth.toFixed(1)} MiB    target ≤ 10 MiB`,
  );
}
