// Builds dist/agent.cache: one real session (a Bash call, then an answer) against the project's
// fake Messages API, with the cache written at exit, so it holds the code a session really runs.
// Then dist/tui.cache, the terminal UI's (src/util/cachedBundle.ts): `agent` in a pseudo-terminal
// (util-linux `script`) up to its first frame, then /exit; without `script`, the first interactive
// run writes it at its exit instead.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { startFakeApi } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
const api = await startFakeApi([
  { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'true' } }] },
  { content: [{ type: 'text', text: 'warm' }] },
]);
const cwd = mkdtempSync(join(tmpdir(), 'agent-warm-'));
const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'warm up' } })}\n`;
await new Promise((resolve) => {
  const p = spawn(
    join(root, 'bin/agent'),
    [
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--allowedTools',
      'Bash',
      '--no-session-persistence',
    ],
    {
      cwd,
      env: {
        ...process.env,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'warm-up',
        AGENT_CODE_CACHE: 'write',
        // The code cache is for bin/agent's start without the snapshot: take that path.
        AGENT_SNAPSHOT: 'off',
        CLAUDE_CONFIG_DIR: cwd,
      },
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
  p.on('close', resolve);
  p.stdin.end(line);
});

// The UI's cache is missing after a build (scripts/bundle.mjs removes it), so this run writes it.
await new Promise((resolve) => {
  const p = spawn('script', ['-qfec', join(root, 'bin/agent'), '/dev/null'], {
    cwd,
    env: {
      ...process.env,
      TERM: 'xterm-256color',
      COLUMNS: '80',
      LINES: '30',
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'warm-up',
      AGENT_SNAPSHOT: 'off',
      CLAUDE_CONFIG_DIR: cwd,
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const timer = setTimeout(() => {
    process.stderr.write('warm-cache: the terminal UI did not draw its prompt in 30 s; dist/tui.cache not made\n');
    p.kill('SIGKILL');
  }, 30_000);
  let out = '';
  let sent = false;
  p.stdout.on('data', (d) => {
    out += d.toString('utf8');
    if (!sent && /│ > /.test(out.replace(/\x1b\[[\d;?]*[a-zA-Z]/g, ''))) {
      sent = true;
      p.stdin.write('/exit\r');
    }
  });
  p.on('error', () => {
    process.stderr.write('warm-cache: no `script` (util-linux) to run the terminal UI; dist/tui.cache not made\n');
  });
  p.on('close', () => {
    clearTimeout(timer);
    resolve();
  });
});
await api.close();
rmSync(cwd, { recursive: true, force: true });
