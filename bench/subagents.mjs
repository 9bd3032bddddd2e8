// Benchmark: two subagents launched in one assistant turn, each running `sleep 1` through Bash.
// Run concurrently they take about 1 s, not 2. Prints the wall time of the whole session (spawn
// to exit) and of the fan-out alone (from the parent's Task turn to its next request), median of 3.
// `node bench/subagents.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const RUNS = 3;

const userLine = (text) =>
  JSON.stringify({ type: 'user', session_id: '', message: { role: 'user', content: [{ type: 'text', text }] }, parent_tool_use_id: null }) + '\n';

function textOf(content) {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : '';
}

async function startApi(times) {
  const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  return startFakeApi((req) => {
    const messages = req.body.messages ?? [];
    const first = textOf(messages.find((m) => m.role === 'user')?.content);
    const turns = messages.filter((m) => m.role === 'assistant').length;
    if (first.startsWith('SUB')) {
      return turns === 0 ? { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 1' } }] } : { content: [{ type: 'text', text: `${first} done` }] };
    }
    if (turns === 0) {
      times.fanOut = performance.now();
      return {
        content: [
          { type: 'tool_use', name: 'Task', input: { description: 'one', prompt: 'SUB1 sleep', subagent_type: 'general-purpose' } },
          { type: 'tool_use', name: 'Task', input: { description: 'two', prompt: 'SUB2 sleep', subagent_type: 'general-purpose' } },
        ],
      };
    }
    times.joined = performance.now();
    return { content: [{ type: 'text', text: 'both done' }] };
  });
}

function runOnce(api) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-subagents-')));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(AGENT, ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'], {
      cwd,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0 || !out.includes('"result":"both done"')) reject(new Error(`bench session failed (exit ${code})`));
      else resolve(ms);
    });
    child.stdin.end(userLine('run two subagents'));
  });
}

/** Two concurrent subagents, each running `sleep 1`: {label, ms} with ms the median fan-out time. */
export async function benchSubagents() {
  const totals = [];
  const fanOuts = [];
  for (let i = 0; i < RUNS; i++) {
    const times = {};
    const api = await startApi(times);
    try {
      totals.push(await runOnce(api));
      fanOuts.push(times.joined - times.fanOut);
    } finally {
      await api.close();
    }
  }
  return {
    label: 'two concurrent subagents, each `sleep 1` (fan-out to join, median of 3)',
    ms: Math.round(median(fanOuts)),
    sessionMs: Math.round(median(totals)),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const r = await benchSubagents();
  console.log(`${r.label}: ${r.ms} ms (whole session, spawn to exit: ${r.sessionMs} ms)`);
}
