// (q) the terminal UI's start-up: from spawning `agent` (no flags, a terminal on both ends: a pty
// from util-linux `script`) to the first frame that shows the prompt editor, and the same for `-p`
// / stream-json beside it is (a). The UI is drawn first; the session starts behind it.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');

/** One start: ms from spawn to the editor's first frame (`│ > ` drawn), then the agent is ended. */
function once(apiUrl) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'agent-bench-tui-')));
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('script', ['-qfec', AGENT, '/dev/null'], {
      cwd,
      env: {
        ...process.env,
        TERM: 'xterm-256color',
        COLUMNS: '80',
        LINES: '30',
        ANTHROPIC_BASE_URL: apiUrl,
        ANTHROPIC_API_KEY: 'bench',
        CLAUDE_CONFIG_DIR: cwd,
      },
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    let out = '';
    let done = false;
    const timer = setTimeout(() => finish(new Error(`no prompt in 10 s; output:\n${out.slice(-500)}`)), 10_000);
    // The agent runs in the pseudo-terminal's own session, out of reach of a kill of `script`'s
    // group: killed that way, it went on to write its config folder after the folder was removed,
    // and every run left one behind. It is asked to /exit, and killed only if it has not in 5 s.
    const finish = (err, ms) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const kill = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }, 5_000);
      child.once('close', () => {
        clearTimeout(kill);
        rmSync(cwd, { recursive: true, force: true });
        err ? reject(err) : resolve(ms);
      });
      child.stdin.on('error', () => {}); // gone already: its close ends this
      child.stdin.write('/exit\r');
    };
    child.stdout.on('data', (d) => {
      out += d.toString('utf8');
      if (/│ > /.test(out.replace(/\x1b\[[\d;?]*[a-zA-Z]/g, ''))) finish(undefined, performance.now() - t0);
    });
    child.on('error', (e) => finish(e));
  });
}

export async function benchTuiStartup(apiUrl, runs) {
  await once(apiUrl); // the page cache warm, as for the other rows
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once(apiUrl));
  return median(times);
}
