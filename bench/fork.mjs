// Benchmark (p): a fork's first request reads its parent's prompt cache. The main agent calls
// Agent {subagent_type: "fork"} (then, for contrast, a general-purpose subagent); the fake API's
// prompt-cache simulation bills each request. Prints, for each child's first request, the input
// tokens read from the cache out of its whole prompt.
// `node bench/fork.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runStreamSession, startBenchApi, textOf } from './lib.mjs';

function startApi(seen) {
  return startBenchApi((req) => {
    const messages = req.body.messages ?? [];
    const last = messages[messages.length - 1];
    const lastText = textOf(last?.content);
    const first = textOf(messages.find((m) => m.role === 'user')?.content);
    if (lastText.includes('Directive: FORK')) {
      seen.fork = req;
      return { content: [{ type: 'text', text: 'fork report' }] };
    }
    if (first.startsWith('SUB')) {
      seen.sub = req;
      return { content: [{ type: 'text', text: 'subagent report' }] };
    }
    const turns = messages.filter((m) => m.role === 'assistant').length;
    if (turns === 0) {
      seen.parent = req;
      const call = (id, input) => ({ type: 'tool_use', id, name: 'Agent', input });
      return {
        content: [
          call('toolu_fork', { description: 'fork', prompt: 'FORK: count the files', subagent_type: 'fork' }),
          call('toolu_sub', { description: 'fresh', prompt: 'SUB: count the files', subagent_type: 'general-purpose' }),
        ],
      };
    }
    return { content: [{ type: 'text', text: 'both reported' }] };
  });
}

const tokens = (req) => {
  const b = req.billed ?? {};
  return {
    read: b.cache_read_input_tokens ?? 0,
    total: (b.input_tokens ?? 0) + (b.cache_read_input_tokens ?? 0) + (b.cache_creation_input_tokens ?? 0),
  };
};

/** {fork: {read, total}, sub: {read, total}} for the two children's first requests. */
export async function benchFork() {
  const seen = {};
  const api = await startApi(seen);
  try {
    await runStreamSession(api, 'fork and subagent', { prefix: 'bench-fork-' });
  } finally {
    await api.close();
  }
  if (!seen.fork || !seen.sub) throw new Error('bench (p): a child never made its request');
  return { fork: tokens(seen.fork), sub: tokens(seen.sub), parent: tokens(seen.parent) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const r = await benchFork();
  console.log(
    `(p) first request of a fork: ${r.fork.read} of ${r.fork.total} input tokens from the cache; of a general-purpose subagent: ${r.sub.read} of ${r.sub.total}`,
  );
}
