// Benchmark (j): agent teams (the bench (h)). A lead spawns two named teammates in one turn; each runs `sleep 1`
// through Bash and then messages the lead. Prints (median of 3):
//   - from the lead's spawn turn until both teammates have sent their message (≈ 1 s when they
//     run side by side, 2 s if one waited for the other);
//   - from the fake API serving a teammate's SendMessage call to the lead's re-prompt that carries
//     it (the tool run, the mailbox write, the poll wake-up; target ≤ 600 ms);
//   - the whole session, spawn to exit (the lead's wrap-up and its teammates' end included).
// `benchTeams('detached')` runs the same task with the lead starting each teammate as its own
// `agent` process (`--teammate-mode detached`): process start and the inbox polls are then in it.
// The host closes stdin right after the prompt, as the official SDK does with a string prompt.
// `node bench/teams.mjs` (after `npm run build`), or imported by bench/run.mjs.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, runStreamSession, startBenchApi, textOf } from './lib.mjs';

const RUNS = 3;

async function startApi(t) {
  return startBenchApi((req) => {
    const messages = req.body.messages ?? [];
    const first = textOf(messages.find((m) => m.role === 'user')?.content);
    const turns = messages.filter((m) => m.role === 'assistant').length;
    // A teammate's first prompt is its inbox message (a process teammate's may follow a reminder).
    const mate = /<teammate-message[^>]*>\s*you are (\w+)/.exec(first)?.[1];
    if (mate) {
      if (turns === 0) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 1' } }] };
      if (turns === 1) {
        t.sent[mate] = performance.now();
        return {
          content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: `${mate} done` } }],
        };
      }
      return { content: [{ type: 'text', text: `${mate} idle` }] };
    }
    if (turns === 0) {
      t.fanOut = performance.now();
      const spawnOne = (name) => ({
        type: 'tool_use',
        name: 'Agent',
        input: { name, description: name, prompt: `you are ${name}`, subagent_type: 'general-purpose' },
      });
      return { content: [spawnOne('alice'), spawnOne('bob')] };
    }
    const last = textOf(messages[messages.length - 1]?.content);
    for (const name of ['alice', 'bob'])
      if (last.includes(`${name} done`) && t.sent[name] && !t.reprompt[name]) t.reprompt[name] = performance.now();
    return { content: [{ type: 'text', text: 'ok' }] };
  });
}

/**
 * {both, reprompt, wall}: ms from the spawn turn until both have sent; ms from a send to the lead's
 * re-prompt (worst of the two); ms from the lead's spawn to its exit. `mode`: where teammates run.
 */
export async function benchTeams(mode = 'in-process') {
  const both = [];
  const reprompt = [];
  const wall = [];
  for (let i = 0; i < RUNS; i++) {
    const t = { sent: {}, reprompt: {} };
    const api = await startApi(t);
    try {
      const run = await runStreamSession(api, 'two teammates', {
        prefix: 'bench-teams-',
        args: ['--teammate-mode', mode],
      });
      wall.push(run.ms);
    } finally {
      await api.close();
    }
    if (!t.sent.alice || !t.sent.bob || !t.reprompt.alice || !t.reprompt.bob)
      throw new Error(`bench (j, ${mode}): a teammate message never reached the lead`);
    both.push(Math.max(t.sent.alice, t.sent.bob) - t.fanOut);
    reprompt.push(Math.max(t.reprompt.alice - t.sent.alice, t.reprompt.bob - t.sent.bob));
  }
  return { both: Math.round(median(both)), reprompt: Math.round(median(reprompt)), wall: Math.round(median(wall)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const r = await benchTeams();
  const d = await benchTeams('detached');
  console.log(
    `(j) two teammates, each \`sleep 1\`: both done ${r.both} ms after the spawn; lead re-prompt ${r.reprompt} ms after a teammate's SendMessage; session ${r.wall} ms`,
  );
  console.log(
    `(j″) the same, our lead starting each teammate as a detached process: both done ${d.both} ms after the spawn; lead re-prompt ${d.reprompt} ms; session ${d.wall} ms`,
  );
}
