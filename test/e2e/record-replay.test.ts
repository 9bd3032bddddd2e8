// --record / --replay: a multi-turn session with tools and two concurrent subagents is recorded
// against the fake API, then replayed with the fake stopped and no key — same answers, same
// files on disk. A changed system prompt is refused with the first difference named.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  text,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { calls, resultText, runAgent, startTestApi, STREAM_ARGS, tempDir, turns, userLine } from './harness.js';

// The tests run side by side (describe.concurrent), each with its own API.

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];
const FILES = ['a.txt', 'b.txt', 'c.txt', 'd.txt'];

function script(cwd: string) {
  const sub =
    (file: string, body: string, done: string) =>
    (req: RecordedRequest): ScriptedReply =>
      turns(req) === 0
        ? { ...calls([['Write', { file_path: join(cwd, file), content: body }]], `w${file[0]}`), chunkDelayMs: 15 }
        : text(done);
  return (req: RecordedRequest): ScriptedReply => {
    const first = firstUserText(req);
    if (first.startsWith('SUB-A:')) return sub('c.txt', 'gamma', 'A done')(req);
    if (first.startsWith('SUB-B:')) return sub('d.txt', 'delta', 'B done')(req);
    switch (turns(req)) {
      case 0:
        return {
          ...calls(
            [
              ['Write', { file_path: join(cwd, 'a.txt'), content: 'alpha' }],
              ['Bash', { command: 'printf beta > b.txt' }],
            ],
            'm',
          ),
          chunkDelayMs: 20,
        };
      case 1:
        return calls(
          [
            ['Task', { description: 'write c', prompt: 'SUB-A: write c.txt', subagent_type: 'general-purpose' }],
            ['Task', { description: 'write d', prompt: 'SUB-B: write d.txt', subagent_type: 'general-purpose' }],
          ],
          'task',
        );
      case 2:
        return text(
          `built: ${lastToolResults(req)
            .map((r) => resultText(r.content))
            .join(' + ')}`,
        );
      case 3:
        return lastUserText(req) === 'check'
          ? calls([['Read', { file_path: join(cwd, 'a.txt') }]], 'r')
          : text('unexpected');
      default:
        return text(`a says: ${resultText(lastToolResults(req)[0]?.content).includes('alpha') ? 'alpha' : '?'}`);
    }
  };
}

const INPUT = userLine('build') + userLine('check');

/** What must be the same in a replay: results, what the agents said, the files written. */
function observed(cwd: string, msgs: Array<Record<string, any>>) {
  const results = msgs
    .filter((m) => m.type === 'result')
    .map((m) => ({
      subtype: m.subtype,
      result: m.result,
      num_turns: m.num_turns,
      usage: m.usage,
      // The two subagents' costs are added in the order they finish, which a replay need not
      // keep: the same to the last cent-billionth, not the last bit.
      cost: Number(m.total_cost_usd.toFixed(9)),
    }));
  const said = msgs
    .filter((m) => m.type === 'assistant')
    .map((m) => JSON.stringify([m.parent_tool_use_id, m.message.content]))
    .sort();
  const files = Object.fromEntries(
    FILES.map((f) => [f, existsSync(join(cwd, f)) ? readFileSync(join(cwd, f), 'utf8') : null]),
  );
  return { results, said, files };
}

describe.concurrent('record and replay', () => {
  it('replays a recorded session offline (fake stopped, no key): same results, same files; a changed system prompt is refused naming what changed', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const rec = join(tempDir('agent-rec-'), 'session.jsonl');
    const api = await startTestApi({ onTestFinished }, script(cwd));
    const recorded = await runAgent({ api, cwd, args: [...ARGS, '--record', rec], input: INPUT, timeoutMs: 30_000 });
    expect(recorded.stderr).not.toContain('internal error');
    expect(recorded.code).toBe(0);
    const before = observed(cwd, recorded.json());
    expect(before.results.map((r) => r.result)).toEqual(['built: A done + B done', 'a says: alpha']);
    expect(before.files).toEqual({ 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma', 'd.txt': 'delta' });
    // One line per model call: 5 of the main agent, 2 of each subagent.
    const lines = readFileSync(rec, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'recording', version: 1 });
    const callers = lines.slice(1).map((l) => l.caller);
    expect(callers.filter((c) => c === null)).toHaveLength(5);
    expect(callers.filter((c) => c === 'task1')).toHaveLength(2);
    expect(callers.filter((c) => c === 'task2')).toHaveLength(2);
    expect(lines[1].events.at(-1).event.type).toBe('message');
    expect(lines[1].events.at(-1).t).toBeGreaterThan(lines[1].events[0].t);
    await api.close();
    const requestsMade = api.requests.length;

    for (const f of FILES) rmSync(join(cwd, f));
    const replayEnv = {
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    };
    const replayed = await runAgent({
      cwd,
      args: [...ARGS, '--replay', rec],
      env: replayEnv,
      input: INPUT,
      timeoutMs: 30_000,
    });
    expect(replayed.stderr).not.toContain('internal error');
    expect(replayed.code).toBe(0);
    expect(observed(cwd, replayed.json())).toEqual(before);
    expect(api.requests.length).toBe(requestsMade);

    const changed = await runAgent({
      cwd,
      args: [...ARGS, '--replay', rec, '--append-system-prompt', 'Be terse.'],
      env: replayEnv,
      input: INPUT,
      timeoutMs: 30_000,
    });
    expect(changed.code).toBe(1);
    const first = changed.json().find((m) => m.type === 'result')!;
    expect(first).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
    expect(first.result).toBe('Replay mismatch at model request 1 of the main agent: the system prompt changed');
    // Reported by the result line; in stream-json mode stderr does not repeat it.
    expect(changed.stderr).not.toContain('Replay mismatch');
  }, 90_000);

  it('--replay-speed 1 keeps the recorded timing; 0 does not wait', async ({ onTestFinished }) => {
    const cwd = tempDir();
    const rec = join(tempDir('agent-rec-'), 'slow.jsonl');
    const api = await startTestApi({ onTestFinished }, [
      { content: [{ type: 'text', text: 'slow answer' }], delayMs: 1500 },
    ]);
    const recorded = await runAgent({ api, cwd, args: [...ARGS, '--record', rec], input: userLine('hi') });
    expect(recorded.code).toBe(0);
    await api.close();
    const env = { ANTHROPIC_API_KEY: undefined };
    // The run's own duration_ms (from the prompt to the result), not the process's start-up.
    const runMs = async (speed: string) => {
      const r = await runAgent({
        cwd,
        args: [...ARGS, '--replay', rec, '--replay-speed', speed],
        env,
        input: userLine('hi'),
      });
      expect(r.code).toBe(0);
      const result = r.json().find((m) => m.type === 'result')!;
      expect(result.result).toBe('slow answer');
      return result.duration_ms as number;
    };
    // 1.5 s recorded: wide enough apart that a loaded machine cannot blur the two. Both replays
    // run side by side.
    const [paced, instant] = await Promise.all([runMs('1'), runMs('0')]);
    expect(paced).toBeGreaterThanOrEqual(1480);
    expect(instant).toBeLessThan(1000);
  }, 60_000);

  it('bad uses are refused at start (exit 2) with a message naming the problem', async () => {
    const cwd = tempDir();
    // The three runs go side by side.
    const [missing, both, speed] = await Promise.all([
      runAgent({ cwd, args: [...ARGS, '--replay', join(cwd, 'nope.jsonl')], input: userLine('hi') }),
      runAgent({ cwd, args: [...ARGS, '--replay', 'x', '--record', 'y'], input: userLine('hi') }),
      runAgent({ cwd, args: [...ARGS, '--replay', 'x', '--replay-speed', '2'], input: userLine('hi') }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--replay: cannot read ${join(cwd, 'nope.jsonl')}`);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--record and --replay cannot be used together');
    expect(speed.code).toBe(2);
    expect(speed.stderr).toContain('--replay-speed must be 0 (instant) or 1 (the recorded timing)');
  });
});
