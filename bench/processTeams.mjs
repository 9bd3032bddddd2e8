// Benchmark (j′): the two-teammate task of (j) with process teammates. claude-code-controller leads
// and starts two `bin/agent` teammate processes; each is sent a task that runs `sleep 1` through
// Bash and then messages the lead. Prints (median of 3) the time from sending the two tasks until
// both messages are in the lead's inbox (≈ 1 s when they work side by side), and from spawning the
// two processes until both have answered a first message (the cost of starting a process teammate).
// `node bench/processTeams.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT, median, startBenchApi, textOf } from './lib.mjs';

const RUNS = 3;

function startApi() {
  return startBenchApi((req) => {
    const messages = req.body.messages ?? [];
    const last = messages[messages.length - 1];
    const said = textOf(last?.content);
    const system = Array.isArray(req.body.system)
      ? req.body.system.map((b) => b.text).join('\n')
      : String(req.body.system);
    const me = /You are "(\w+)", a member/.exec(system)?.[1] ?? '?';
    const calls = (last?.role === 'user' && Array.isArray(last.content) ? last.content : []).filter(
      (b) => b.type === 'tool_result',
    );
    if (calls.length) {
      const prev = messages[messages.length - 2].content.find((b) => b.type === 'tool_use');
      if (prev?.name === 'Bash')
        return {
          content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'controller', message: `${me} done` } }],
        };
      return { content: [{ type: 'text', text: 'idle' }] };
    }
    if (said.includes('WORK')) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 1' } }] };
    if (said.includes('HELLO'))
      return {
        content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'controller', message: `${me} here` } }],
      };
    const request = /"requestId":"([^"]+)"/.exec(said);
    if (request)
      return {
        content: [
          {
            type: 'tool_use',
            name: 'SendMessage',
            input: { message: { type: 'shutdown_response', request_id: request[1], approve: true } },
          },
        ],
      };
    return { content: [{ type: 'text', text: 'ok' }] };
  });
}

async function until(pred, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (pred()) return performance.now();
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('bench (j′): a teammate never answered');
}

/** {task, start}: ms from sending both tasks to both reports; ms from spawning both to both first answers. */
export async function benchProcessTeams() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'bench-process-teams-')));
  const savedHome = process.env.HOME;
  process.env.HOME = home; // the controller reads homedir() once, when it is loaded
  const { ClaudeCodeController } = await import('claude-code-controller');
  process.env.HOME = savedHome;
  const tasks = [];
  const starts = [];
  const api = await startApi();
  try {
    for (let i = 0; i < RUNS; i++) {
      const ctrl = new ClaudeCodeController({
        teamName: `bench${i}${Date.now().toString(36)}`,
        cwd: home,
        claudeBinary: AGENT,
        logLevel: 'silent',
        env: {
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'bench',
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          HOME: home,
        },
      });
      await ctrl.init();
      ctrl.poller.stop(); // this bench reads the lead's inbox itself
      const inbox = join(home, '.claude', 'teams', ctrl.teamName, 'inboxes', 'controller.json');
      const has = (text) => {
        try {
          return JSON.parse(readFileSync(inbox, 'utf8')).some((m) => m.text === text);
        } catch {
          return false;
        }
      };
      try {
        const spawned = performance.now();
        for (const name of ['alice', 'bob']) {
          await ctrl.spawnAgent({ name, permissions: ['Bash'] });
          await ctrl.send(name, 'HELLO');
        }
        const ready = await until(() => has('alice here') && has('bob here'));
        starts.push(ready - spawned);
        const sent = performance.now();
        await Promise.all(['alice', 'bob'].map((name) => ctrl.send(name, 'WORK: sleep 1')));
        const done = await until(() => has('alice done') && has('bob done'));
        tasks.push(done - sent);
      } finally {
        ctrl.poller.start();
        await ctrl.shutdown().catch(() => {});
      }
    }
  } finally {
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
  return { task: Math.round(median(tasks)), start: Math.round(median(starts)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const r = await benchProcessTeams();
  console.log(
    `(j′) two process teammates (claude-code-controller), each \`sleep 1\`: both done ${r.task} ms after the tasks were sent; spawn → both answering ${r.start} ms`,
  );
}
