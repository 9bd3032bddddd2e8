// (i) --replay: a 50-turn session (Read each turn) recorded once against the fake API, then
// replayed offline at --replay-speed 0. Reports the replay's wall time per turn and the recording's size.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Read'];
const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;

function run(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(AGENT, [...ARGS, ...args], {
      cwd,
      env: { ...process.env, CLAUDE_CONFIG_DIR: cwd, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const result = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((m) => m.type === 'result');
      if (code !== 0 || result?.num_turns !== 50)
        return reject(new Error(`agent exited ${code}: ${JSON.stringify(result)}`));
      resolve(performance.now() - t0);
    });
    child.stdin.end(userLine('read 49 times'));
  });
}

export async function benchReplay(runs) {
  const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-h-')));
  writeFileSync(join(cwd, 'small.txt'), 'one line\n');
  let n = 0;
  const api = await startFakeApi(() =>
    ++n % 50 === 0
      ? { content: [{ type: 'text', text: 'done' }] }
      : { content: [{ type: 'tool_use', name: 'Read', input: { file_path: join(cwd, 'small.txt') } }] },
  );
  const rec = join(cwd, 'session.rec.jsonl');
  const live = await run(['--record', rec], { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench' }, cwd);
  await api.close();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await run(['--replay', rec], { ANTHROPIC_API_KEY: '' }, cwd));
  times.sort((a, b) => a - b);
  return { recordMs: live, replayMs: times[Math.floor(times.length / 2)], kib: statSync(rec).size / 1024 };
}
