// Benchmarks of what a real model costs in money and time (issue "Real-model economics"), against
// the fake API with its prompt-cache simulation on:
// (k) a 30-turn review session (Read of a 6 KB file / `ls`, alternating): its cost in dollars at one
//     fixed price table (claude-sonnet-4-5's, as the reference prices it: $3 input, $15 output,
//     cache write $3.75, cache read $0.30 per million tokens; the session runs on that model, so
//     the agent's own total_cost_usd must agree) and the share of input tokens read from the cache;
//     beside it, the first request's prompt tokens for the system prompt and the tool definitions
//     (the fake API's estimate, characters / 4, of their JSON);
// (l) three tool calls whose blocks complete 1 s apart in one streamed reply: time from that request
//     to the next, once with three read-only `sleep 1` and once with three writing
//     `sleep 1 && echo N > F` (those run one after another, each as soon as the one before is done);
// (m) four read-only `sleep 1` Bash calls in one turn: time from that request to the next.
// `node bench/economics.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, onJsonLines } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const { startFakeApi, estimateTokens } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);

// USD per million tokens: claude-sonnet-4-5 in the model table (src/loop/pricing.ts), measured from the reference.
const MODEL = 'claude-sonnet-4-5';
const PRICE = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const tmp = (p) => realpathSync(mkdtempSync(join(tmpdir(), p)));
const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;
const bash = (command) => ({ type: 'tool_use', name: 'Bash', input: { command } });
const turnsOf = (req) => (req.body.messages ?? []).filter((m) => m.role === 'assistant').length;

/** One session: spawn, one prompt, stdin closed; resolves with the `result` line. */
function runSession(api, cwd, prompt) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      AGENT,
      [
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--dangerously-skip-permissions',
        '--model',
        MODEL,
      ],
      {
        cwd,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let result;
    onJsonLines(child.stdout, (msg) => {
      if (msg.type === 'result') result = msg;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !result || result.is_error)
        reject(new Error(`bench session failed (exit ${code}): ${JSON.stringify(result)}`));
      else resolve(result);
    });
    child.stdin.end(userLine(prompt));
  });
}

/** (k) The 30-turn review session: 29 tool turns (Read of a 6 KB file, `ls`, alternating), then an answer. */
export async function benchReviewCost(runs = 3) {
  const TURNS = 30;
  const costs = [];
  const reported = [];
  const shares = [];
  let firstPrompt;
  for (let r = 0; r < runs; r++) {
    const cwd = tmp('bench-k-');
    const line = 'export function step(n: number): number { return n * 2 + 1; } // review me\n';
    writeFileSync(join(cwd, 'review.ts'), line.repeat(Math.ceil(6144 / line.length)).slice(0, 6144));
    const api = await startFakeApi((req) => {
      const t = turnsOf(req);
      if (t === TURNS - 1) return { content: [{ type: 'text', text: 'Review done: no findings.' }] };
      return t % 2 === 0
        ? {
            content: [
              { type: 'text', text: 'Reading the file again.' },
              { type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'review.ts') } },
            ],
          }
        : { content: [{ type: 'text', text: 'Listing the directory.' }, bash('ls')] };
    });
    try {
      const result = await runSession(api, cwd, 'Review review.ts');
      if (api.requests.length !== TURNS) throw new Error(`expected ${TURNS} requests, got ${api.requests.length}`);
      const first = api.requests[0].body;
      firstPrompt = {
        system: estimateTokens(JSON.stringify(first.system ?? [])),
        tools: estimateTokens(JSON.stringify(first.tools ?? [])),
      };
      let input = 0;
      let read = 0;
      let write = 0;
      for (const q of api.requests) {
        input += q.billed.input_tokens;
        read += q.billed.cache_read_input_tokens;
        write += q.billed.cache_creation_input_tokens;
      }
      const output = result.usage.output_tokens;
      costs.push(
        (input * PRICE.input + write * PRICE.cacheWrite + read * PRICE.cacheRead + output * PRICE.output) / 1e6,
      );
      reported.push(result.total_cost_usd);
      shares.push(read / (input + read + write));
    } finally {
      await api.close();
    }
  }
  return { cost: median(costs), reported: median(reported), share: median(shares), firstPrompt };
}

/**
 * A reply whose tool blocks complete `apartMs` apart: a tool_use block is 6 waits of chunkDelayMs
 * (its start and five input_json_delta events, the first one empty, the input in four pieces).
 */
function staggered(commands, apartMs) {
  return { content: commands.map(bash), chunkDelayMs: apartMs / 6 };
}

/** Median time (ms) from the request that gets `reply` to the next request, over `runs` sessions. */
async function requestToNext(reply, runs) {
  const gaps = [];
  for (let r = 0; r < runs; r++) {
    const cwd = tmp('bench-lm-');
    const at = [];
    const api = await startFakeApi((req) => {
      at.push(performance.now());
      return turnsOf(req) === 0 ? reply : { content: [{ type: 'text', text: 'done' }] };
    });
    try {
      await runSession(api, cwd, 'go');
      if (at.length !== 2) throw new Error(`expected 2 requests, got ${at.length}`);
      gaps.push(at[1] - at[0]);
    } finally {
      await api.close();
    }
  }
  return median(gaps);
}

/** (l) Three tool calls 1 s apart in one streamed reply: read-only, then writing. */
export async function benchStreamedTools(runs = 3) {
  const readOnly = await requestToNext(staggered(['sleep 1', 'sleep 1', 'sleep 1'], 1000), runs);
  const writing = await requestToNext(
    staggered(
      [1, 2, 3].map((n) => `sleep 1 && echo ${n} > f${n}`),
      1000,
    ),
    runs,
  );
  return { readOnly, writing };
}

/** (m) Four read-only `sleep 1` Bash calls in one turn. */
export async function benchParallelReadOnly(runs = 3) {
  return requestToNext({ content: ['sleep 1', 'sleep 1', 'sleep 1', 'sleep 1'].map(bash) }, runs);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const runs = Number(process.env.BENCH_RUNS) || 3;
  const k = await benchReviewCost(runs);
  console.log(
    `(k) 30-turn review: $${k.cost.toFixed(3)} (agent's total_cost_usd $${k.reported.toFixed(3)}), ${(k.share * 100).toFixed(1)} % of input from cache`,
  );
  const l = await benchStreamedTools(runs);
  console.log(
    `(l) 3 calls 1 s apart: read-only ${(l.readOnly / 1000).toFixed(2)} s, writing ${(l.writing / 1000).toFixed(2)} s`,
  );
  const m = await benchParallelReadOnly(runs);
  console.log(`(m) 4 read-only sleep 1: ${(m / 1000).toFixed(2)} s`);
}
