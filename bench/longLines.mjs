// Long stdin lines: how long a prompt line of 5/20/50 MB takes from its first byte written to its
// result, in a session that has already answered one prompt (so start-up is not counted).
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, onJsonLines } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const ARGS = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
const userLine = (text, padBytes = 0) =>
  `${JSON.stringify({
    type: 'user',
    message: { role: 'user', content: text },
    parent_tool_use_id: null,
    // An extra field the reader must frame, decode, parse and validate; the model never sees it.
    ...(padBytes ? { padding: 'x'.repeat(padBytes) } : {}),
  })}\n`;

function session(api) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-lines-')));
  const child = spawn(AGENT, ARGS, {
    cwd,
    env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let onResult = () => {};
  onJsonLines(child.stdout, (msg) => {
    if (msg.type === 'result') onResult(msg);
  });
  const ask = (line) =>
    new Promise((resolve, reject) => {
      onResult = (msg) => (msg.is_error ? reject(new Error(msg.result)) : resolve());
      child.stdin.write(line);
    });
  return { child, ask };
}

/** Median ms from the first byte of an N-MB line to its result, per size. */
export async function benchLongLines(sizesMb = [5, 20, 50], runs = 3) {
  const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  const api = await startFakeApi(() => ({ content: [{ type: 'text', text: 'ok' }] }));
  const out = {};
  try {
    for (const mb of sizesMb) {
      const line = userLine('hi', mb * 1024 * 1024);
      const xs = [];
      for (let i = 0; i < runs; i++) {
        const s = session(api);
        await s.ask(userLine('warm up'));
        const t = performance.now();
        await s.ask(line);
        xs.push(performance.now() - t);
        s.child.stdin.end();
        await new Promise((r) => s.child.on('close', r));
      }
      out[mb] = median(xs);
    }
  } finally {
    await api.close();
  }
  return out;
}
