// Builds dist/agent.cache: one real session (a Bash call, then an answer) against the project's
// fake Messages API, with the cache written at exit, so it holds the code a session really runs.
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
await api.close();
rmSync(cwd, { recursive: true, force: true });
