// (o) Tool search with 200 MCP tools (test/fixtures/mcp-many-tools-server.mjs): a 10-turn session
// where the model finds one tool with ToolSearch and calls it every turn after, against the fake
// API's prompt-cache simulation, at Sonnet's prices. Run once with tools deferred (the default) and
// once with ENABLE_TOOL_SEARCH=false: the first request's prompt tokens, and the session's cost.
// `node bench/toolSearch.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, onJsonLines, startBenchApi, AGENT, ROOT, userLine } from './lib.mjs';

const PRICE = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }; // USD per million tokens
const SERVER = join(ROOT, 'test/fixtures/mcp-many-tools-server.mjs');
const TURNS = 10;
const turnsOf = (req) => (req.body.messages ?? []).filter((m) => m.role === 'assistant').length;

function script(req) {
  const t = turnsOf(req);
  if (t === 0)
    return {
      content: [{ type: 'tool_use', name: 'ToolSearch', input: { query: 'select:mcp__many__weather_forecast' } }],
    };
  if (t === TURNS - 1) return { content: [{ type: 'text', text: 'done' }] };
  return { content: [{ type: 'tool_use', name: 'mcp__many__weather_forecast', input: { city: `city ${t}` } }] };
}

/** The deferred run's first turn searches; the other run calls the tool from the start (it is offered). */
function scriptAllOffered(req) {
  const t = turnsOf(req);
  if (t === TURNS - 1) return { content: [{ type: 'text', text: 'done' }] };
  return { content: [{ type: 'tool_use', name: 'mcp__many__weather_forecast', input: { city: `city ${t}` } }] };
}

async function session(enable) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-o-')));
  const api = await startBenchApi(enable === 'false' ? scriptAllOffered : script);
  try {
    const t0 = performance.now();
    await new Promise((resolve, reject) => {
      const config = JSON.stringify({ mcpServers: { many: { command: process.execPath, args: [SERVER] } } });
      const child = spawn(
        AGENT,
        [
          '--input-format',
          'stream-json',
          '--output-format',
          'stream-json',
          '--verbose',
          '--dangerously-skip-permissions',
          // Sonnet, whose prices the cost uses, and whose 200k window the 10 % rule is measured
          // against: the default model's 1M window would offer all 200 tools (under 10 % of it).
          '--model',
          'claude-sonnet-4-5',
          '--mcp-config',
          config,
        ],
        {
          cwd,
          env: {
            ...process.env,
            ANTHROPIC_BASE_URL: api.url,
            ANTHROPIC_API_KEY: 'bench',
            CLAUDE_CONFIG_DIR: cwd,
            ENABLE_TOOL_SEARCH: enable,
          },
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      let result;
      onJsonLines(child.stdout, (m) => m.type === 'result' && (result = m));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 && result && !result.is_error
          ? resolve(result)
          : reject(new Error(`bench (o) session failed (exit ${code})`)),
      );
      child.stdin.end(userLine('weather, ten times'));
    });
    const ms = performance.now() - t0;
    if (api.requests.length !== TURNS)
      throw new Error(`bench (o): expected ${TURNS} requests, got ${api.requests.length}`);
    const b = api.requests[0].billed;
    const firstTokens = b.input_tokens + b.cache_read_input_tokens + b.cache_creation_input_tokens;
    let cost = 0;
    for (const q of api.requests)
      cost +=
        (q.billed.input_tokens * PRICE.input +
          q.billed.cache_creation_input_tokens * PRICE.cacheWrite +
          q.billed.cache_read_input_tokens * PRICE.cacheRead) /
        1e6;
    return { ms, firstTokens, cost };
  } finally {
    await api.close();
  }
}

export async function benchToolSearch(runs = 3) {
  const out = {};
  for (const enable of ['auto', 'false']) {
    const rows = [];
    for (let r = 0; r < runs; r++) rows.push(await session(enable));
    out[enable] = {
      ms: median(rows.map((x) => x.ms)),
      firstTokens: median(rows.map((x) => x.firstTokens)),
      cost: median(rows.map((x) => x.cost)),
    };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const o = await benchToolSearch(Number(process.env.BENCH_RUNS) || 3);
  console.log(
    `(o) 200 MCP tools, 10-turn session: first request ${o.auto.firstTokens} prompt tokens deferred / ${o.false.firstTokens} all offered; ` +
      `input cost $${o.auto.cost.toFixed(4)} / $${o.false.cost.toFixed(4)}; wall ${Math.round(o.auto.ms)} / ${Math.round(o.false.ms)} ms`,
  );
}
