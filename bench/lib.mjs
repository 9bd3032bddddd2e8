// Helpers every bench script shares.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The median of a list of numbers (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A field of a live process's /proc status (VmRSS, VmHWM: the peak), in KiB; 0 once it is gone. */
export function procStatusKiB(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, all threads) a live process has used, in ms; 0 once it is gone. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
  } catch {
    return 0;
  }
}

/** Calls `onLine` with each complete line a child writes to `stream`. */
export function onLines(stream, onLine) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (c) => {
    buf += c;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(line);
    }
  });
}

/** Calls `onMessage` with each JSON line a child writes to `stream` (stream-json output). */
export function onJsonLines(stream, onMessage) {
  onLines(stream, (line) => onMessage(JSON.parse(line)));
}

/** The project root and the agent executable the benches run. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const AGENT = join(ROOT, 'bin/agent');

/** One stream-json user message line carrying `text`. */
export const userLine = (text) =>
  `${JSON.stringify({
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  })}\n`;

/** The text of a message's content (a string, or the text blocks of a block list). */
export function textOf(content) {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .filter((b) => b?.type === 'text')
        .map((b) => b.text)
        .join('\n')
    : '';
}

/** Starts the project's fake Messages API (built into dist/ by `npm run build`) with `script`. */
export async function startBenchApi(script) {
  const { startFakeApi } = await import(pathToFileURL(join(ROOT, 'dist/test/fake-api/server.js')).href);
  return startFakeApi(script);
}

/**
 * Runs one stream-json session of bin/agent with every permission granted, in a fresh temp cwd
 * that is also its config dir; stdin carries `prompt` and then closes, as the SDK does with a
 * string prompt; `args` are added to its flags. Resolves with {ms, out} (spawn to exit, and stdout when
 * `keepOutput`).
 */
export function runStreamSession(api, prompt, { prefix = 'bench-', keepOutput = false, args = [] } = {}) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      AGENT,
      [
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--dangerously-skip-permissions',
        ...args,
      ],
      {
        cwd,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: cwd },
        stdio: ['pipe', keepOutput ? 'pipe' : 'ignore', 'inherit'],
      },
    );
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - t0, out })
        : reject(new Error(`bench session failed (exit ${code})`)),
    );
    child.stdin.end(userLine(prompt));
  });
}
