// Benchmark: resume a long session. A transcript of 1,000 turns (a prompt and a ~1 KB answer each,
// ~2.4 MB) is written in the reference format; `agent -p next --resume ID` is timed from spawn to
// the moment its first model request arrives (the transcript read and the branch rebuilt), with
// its peak RSS. Median of 5. `node bench/resume.mjs` (after `npm run build`), or from bench/run.mjs.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, procStatusKiB } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const AGENT = join(root, 'bin/agent');
const RUNS = 5;
const TURNS = 1000;

function writeTranscript(config, cwd, sessionId) {
  const dir = join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const lines = [];
  let parent = null;
  const base = { isSidechain: false, userType: 'external', cwd, sessionId, version: 'bench' };
  for (let i = 0; i < TURNS; i++) {
    const p = randomUUID();
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: parent,
        type: 'user',
        uuid: p,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: `question ${i}` },
      }),
    );
    const a = randomUUID();
    const answer = {
      id: `msg_${i}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5-5',
      content: [{ type: 'text', text: `answer ${i} `.repeat(100) }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 10 },
    };
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: p,
        type: 'assistant',
        uuid: a,
        timestamp: new Date().toISOString(),
        message: answer,
      }),
    );
    parent = a;
  }
  writeFileSync(join(dir, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
}

export async function benchResume() {
  const { startFakeApi, text } = await import(pathToFileURL(join(root, 'dist/test/fake-api/server.js')).href);
  const times = [];
  const rss = [];
  for (let r = 0; r < RUNS; r++) {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'bench-resume-')));
    const config = join(cwd, '.config');
    const sessionId = randomUUID();
    writeTranscript(config, cwd, sessionId);
    let firstRequest = 0;
    const t0 = performance.now();
    const api = await startFakeApi((_req) => {
      if (!firstRequest) firstRequest = performance.now() - t0;
      return text('ok');
    });
    await new Promise((resolve, reject) => {
      const child = spawn(AGENT, ['-p', 'next', '--resume', sessionId, '--output-format', 'json'], {
        cwd,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench', CLAUDE_CONFIG_DIR: config },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, procStatusKiB(child.pid, 'VmHWM'))), 5);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearInterval(sampler);
        rss.push(peak / 1024);
        code === 0 ? resolve() : reject(new Error(`agent exited ${code}`));
      });
    });
    await api.close();
    times.push(firstRequest);
  }
  return { ms: median(times), rssMiB: median(rss), turns: TURNS };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchResume();
  console.log(
    `resume of a ${r.turns}-turn transcript → first request: ${r.ms.toFixed(1)} ms, peak RSS ${r.rssMiB.toFixed(1)} MiB`,
  );
}
