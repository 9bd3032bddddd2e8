// (g) What the Bash sandbox adds: the same session of Bash calls (`true`) with and without
// `sandbox.enabled`, back to back (20 calls) and at a model's pace (10 calls, replies 300 ms after
// each request); the difference of the median call span is the sandbox's cost per call.
// Also the start-up cost (spawn → init), and the parts (bench/sandboxParts.mjs): bubblewrap's own
// floor, running a ready wrap, making one. Skipped with the reason where bubblewrap is missing.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, onJsonLines } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const RUNS = Number(process.env.BENCH_RUNS) || 7;
const CALLS = 20;
const PACED_CALLS = 10;
const PACED_DELAY_MS = 300;
const PACED_RUNS = 3;
const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;

function run(api, cwd, settings, calls) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const args = [
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--allowedTools',
      'Bash',
      '--settings',
      JSON.stringify(settings),
    ];
    const child = spawn(AGENT, args, {
      cwd,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let initMs = 0;
    let result;
    onJsonLines(child.stdout, (msg) => {
      if (msg.type === 'system' && msg.subtype === 'init' && !initMs) initMs = performance.now() - t0;
      if (msg.type === 'result') result = msg;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || result?.is_error) return reject(new Error(`agent exited ${code}: ${JSON.stringify(result)}`));
      resolve({ initMs, totalMs: performance.now() - t0 });
    });
    child.stdin.end(userLine(`run true ${calls} times`));
  });
}

export async function benchSandbox() {
  const missing = ['bwrap', 'socat', 'rg'].filter((c) => spawnSync('which', [c]).status !== 0);
  if (missing.length) return { skipped: `${missing.join(', ')} not installed` };
  const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  // Each request's arrival is noted: the time from one reply's start to the next request, less the
  // reply's own delay, is what the agent spent on that call (tool run + its bookkeeping + the
  // round trip); its median over every call of every run, with and without the sandbox, differs
  // by what the sandbox adds, free of start-up and of one slow run.
  const script = (calls, delayMs, arrivals) => {
    let n = 0;
    return () => {
      arrivals.push(performance.now());
      return ++n % (calls + 1) === 0
        ? { content: [{ type: 'text', text: 'done' }], delayMs }
        : { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'true' } }], delayMs };
    };
  };
  /** The per-call spans of `arrivals` (one session's requests: calls + 1 of them each). */
  const spans = (arrivals, calls, delayMs) => {
    const out = [];
    for (let i = 0; i + 1 < arrivals.length; i++)
      if ((i + 1) % (calls + 1) !== 0) out.push(arrivals[i + 1] - arrivals[i] - delayMs);
    return out;
  };
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-f-')));
  /** Sessions of `calls` Bash calls with and without the sandbox: per-call difference and start-up difference, medians of `runs`. */
  async function compare(calls, delayMs, runs) {
    const arrivalsOn = [];
    const arrivalsOff = [];
    const apiOn = await startFakeApi(script(calls, delayMs, arrivalsOn));
    const apiOff = await startFakeApi(script(calls, delayMs, arrivalsOff));
    const perCall = [];
    const startup = [];
    try {
      for (let i = 0; i < runs; i++) {
        const on = await run(apiOn, cwd, { sandbox: { enabled: true } }, calls);
        const off = await run(apiOff, cwd, {}, calls);
        perCall.push((on.totalMs - on.initMs - (off.totalMs - off.initMs)) / calls);
        startup.push(on.initMs - off.initMs);
      }
    } finally {
      await apiOn.close();
      await apiOff.close();
    }
    return {
      perCall: median(spans(arrivalsOn, calls, delayMs)) - median(spans(arrivalsOff, calls, delayMs)),
      perCallWhole: median(perCall),
      startup: median(startup),
    };
  }
  // Back to back against an instant model: the next call often comes before its wrap is ready.
  const instant = await compare(CALLS, 0, RUNS);
  // At a model's pace (each reply starts 300 ms after its request; a real model takes longer), the
  // wrap made while the model thinks is ready when the call comes.
  const paced = await compare(PACED_CALLS, PACED_DELAY_MS, PACED_RUNS);
  const parts = spawnSync(process.execPath, [join(root, 'bench/sandboxParts.mjs')], {
    cwd: realpathSync(mkdtempSync(join(tmpdir(), 'bench-g-'))),
    encoding: 'utf8',
  });
  if (parts.status !== 0) throw new Error(`bench/sandboxParts.mjs failed: ${parts.stderr}`);
  return {
    perCall: instant.perCall,
    startup: instant.startup,
    pacedPerCall: paced.perCall,
    wholeSession: { instant: instant.perCallWhole, paced: paced.perCallWhole },
    parts: JSON.parse(parts.stdout.trim().split('\n').pop()),
  };
}
