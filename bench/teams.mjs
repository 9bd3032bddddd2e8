// Benchmark (j): agent teams (the bench (h)). A lead spawns two named teammates in one turn; each runs `sleep 1`
// through Bash and then messages the lead. Prints (median of 3):
//   - from the lead's spawn turn until both teammates have sent their message (≈ 1 s when they
//     run side by side, 2 s if one waited for the other);
//   - from the fake API serving a teammate's SendMessage call to the lead's re-prompt that carries
//     it (the tool run, the mailbox write, the poll wake-up; target ≤ 600 ms).
// The host closes stdin right after the prompt, as the official SDK does with a string prompt.
// `node bench/teams.mjs` (after `npm run build`), or imported by bench/run.mjs.
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

async function startApi(t) {
  const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  return startFakeApi((req) => {
    const messages = req.body.messages ?? [];
    const first = textOf(messages.find((m) => m.role === 'user')?.content);
    const turns = messages.filter((m) => m.role === 'assistant').length;
    const mate = /you are (\w+)/.exec(first)?.[1];
    if (first.startsWith('<teammate-message') && mate) {
      if (turns === 0) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 1' } }] };
      if (turns === 1) {
        t.sent[mate] = performance.now();
        return { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: `${mate} done` } }] };
      }
      return { content: [{ type: 'text', text: `${mate} idle` }] };
    }
    if (turns === 0) {
      t.fanOut = performance.now();
      const spawnOne = (name) => ({ type: 'tool_use', name: 'Agent', input: { name, description: name, prompt: `you are ${name}`, subagent_type: 'general-purpose' } });
      return { content: [spawnOne('alice'), spawnOne('bob')] };
    }
    const last = textOf(messages[messages.length - 1]?.content);
    for (const name of ['alice', 'bob'])
      if (last.includes(`${name} done`) && t.sent[name] && !t.reprompt[name]) t.reprompt[name] = performance.now();
    return { content: [{ type: 'text', text: 'ok' }] };
  });
}

function runOnce(api) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-teams-')));
  return new Promise((resolve, reject) => {
    const child = spawn(AGENT, ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'], {
      cwd,
      env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`bench session failed (exit ${code})`))));
    child.stdin.end(userLine('two teammates'));
  });
}

/** {both, reprompt}: ms from the spawn turn until both have sent; ms from a send to the lead's re-prompt (worst of the two). */
export async function benchTeams() {
  const both = [];
  const reprompt = [];
  for (let i = 0; i < RUNS; i++) {
    const t = { sent: {}, reprompt: {} };
    const api = await startApi(t);
    try {
      await runOnce(api);
    } finally {
      await api.close();
    }
    if (!t.sent.alice || !t.sent.bob || !t.reprompt.alice || !t.reprompt.bob) throw new Error('bench (h): a teammate message never reached the lead');
    both.push(Math.max(t.sent.alice, t.sent.bob) - t.fanOut);
    reprompt.push(Math.max(t.reprompt.alice - t.sent.alice, t.reprompt.bob - t.sent.bob));
  }
  return { both: Math.round(median(both)), reprompt: Math.round(median(reprompt)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const r = await benchTeams();
  console.log(`(j) two teammates, each \`sleep 1\`: both done ${r.both} ms after the spawn; lead re-prompt ${r.reprompt} ms after a teammate's SendMessage`);
}
