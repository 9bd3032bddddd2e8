// Benchmark: two subagents launched in one assistant turn, each running `sleep 1` through Bash.
// Run concurrently they take about 1 s, not 2. Prints the wall time of the whole session (spawn
// to exit) and of the fan-out alone (from the parent's Task turn to its next request), median of 3.
// `node bench/subagents.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, runStreamSession, startBenchApi, textOf } from './lib.mjs';

const RUNS = 3;

async function startApi(times) {
  return startBenchApi((req) => {
    const messages = req.body.messages ?? [];
    const first = textOf(messages.find((m) => m.role === 'user')?.content);
    const turns = messages.filter((m) => m.role === 'assistant').length;
    if (first.startsWith('SUB')) {
      return turns === 0
        ? { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 1' } }] }
        : { content: [{ type: 'text', text: `${first} done` }] };
    }
    if (turns === 0) {
      times.fanOut = performance.now();
      return {
        content: [
          {
            type: 'tool_use',
            name: 'Task',
            input: { description: 'one', prompt: 'SUB1 sleep', subagent_type: 'general-purpose' },
          },
          {
            type: 'tool_use',
            name: 'Task',
            input: { description: 'two', prompt: 'SUB2 sleep', subagent_type: 'general-purpose' },
          },
        ],
      };
    }
    times.joined = performance.now();
    return { content: [{ type: 'text', text: 'both done' }] };
  });
}

async function runOnce(api) {
  const { ms, out } = await runStreamSession(api, 'run two subagents', {
    prefix: 'bench-subagents-',
    keepOutput: true,
  });
  if (!out.includes('"result":"both done"')) throw new Error('bench session ended without the joined result');
  return ms;
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
