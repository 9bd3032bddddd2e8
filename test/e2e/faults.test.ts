// Faults and hostile input, end to end: bin/agent against the fake Messages API.
import { describe, expect, it } from 'vitest';
import { startFakeApi as startOwnFakeApi, text } from '../fake-api/server.js';
import {
  DEFERRED_REMINDER,
  resultsById,
  runAgent,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  userLine,
  type FakeApi,
  sharedSession,
} from './harness.js';
import { alive, waitUntil } from '../processes.js';

let api: FakeApi | undefined;

/**
 * The two model-error checks share one STREAM_ARGS session with AGENT_MAX_RETRIES=10, in two rounds,
 * each sent once the one before has its results: a prompt whose stream comes malformed, then the
 * prompt nested 100,000 deep and a normal one. Each check reads its own round's stdout lines and
 * requests; each round's elapsed time is counted from the session's start (its start-up and any
 * round before it included). Made once, by the first check that reads it, with a fake API of its own.
 */

async function modelErrorSession() {
  const own = await startOwnFakeApi([
    { malformed: { afterText: 'Hel' } },
    text('Hello, answered without streaming'),
    text('the session still works'),
  ]);
  try {
    const started = Date.now();
    const p = startAgent({ api: own, args: STREAM_ARGS, env: { AGENT_MAX_RETRIES: '10' } });
    const rounds: Array<{ lines: string[]; requests: typeof own.requests; ms: number }> = [];
    const round = async (name: string, input: string, results: number) => {
      const [line0, req0] = [p.lines.length, own.requests.length];
      p.sendRaw(input);
      let n = 0;
      await p
        .waitFor((m) => m.type === 'result' && ++n === results)
        .catch((e: Error) => {
          p.child.kill('SIGKILL');
          throw new Error(`the shared model-error session, round "${name}": ${e.message}`);
        });
      rounds.push({ lines: p.lines.slice(line0), requests: own.requests.slice(req0), ms: Date.now() - started });
    };
    await round('malformed stream', userLine('hi'), 1);
    let deep = '"bottom"';
    for (let i = 0; i < 100_000; i++) deep = `{"d":${deep}}`;
    const line = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"deep","extra":${deep}}]},"parent_tool_use_id":null}\n`;
    await round('nested prompt', line + userLine('and now a normal one'), 3);
    p.endInput();
    const { code } = await p.exited;
    expect(own.requests, 'requests of the shared model-error session').toHaveLength(3);
    const [malformed, nested] = rounds.map((r) => ({ ...r, json: () => r.lines.map((l) => JSON.parse(l)) }));
    return { code, stderr: p.stderr(), malformed: malformed!, nested: nested! };
  } finally {
    await own.close();
  }
}
const modelErrorRounds = sharedSession('model-error', modelErrorSession);

describe('model errors that a retry cannot cure', () => {
  it('a malformed stream gets one non-streaming attempt and the answer comes at once', async () => {
    const r = (await modelErrorRounds()).malformed;
    const result = r.json().find((m) => m.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'Hello, answered without streaming' });
    expect(r.json().filter((m) => m.type === 'system' && m.subtype === 'api_retry')).toEqual([]);
    expect(r.requests.map((q) => q.body.stream)).toEqual([true, false]);
    expect(r.ms).toBeLessThan(5000);
  });

  it('a prompt nested 100,000 deep is an immediate error result; it is not kept, and the next prompt works', async () => {
    const s = await modelErrorRounds();
    const r = { ...s.nested, stderr: s.stderr };
    expect(r.ms).toBeLessThan(8000);
    const results = r.json().filter((m) => m.type === 'result');
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
    expect(results[0].result).toMatch(
      /^The prompt could not be sent: it cannot be serialised as JSON \(.+\); it was left out of the conversation/,
    );
    expect(results[1]).toMatchObject({ is_error: false, result: 'the session still works' });
    expect(r.requests).toHaveLength(1);
    expect(JSON.stringify(r.requests[0].body.messages)).not.toContain('deep');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('prompts that queue up while a turn runs', () => {
  it('1,000 prompts written at once: a few merged turns, every prompt sent once and in order, one result per turn', async () => {
    api = await startFakeApi(() => ({ content: [{ type: 'text', text: 'answered' }], delayMs: 100 }));
    const input = Array.from({ length: 1000 }, (_, i) => userLine(`prompt ${i}`)).join('');
    const started = Date.now();
    const r = await runAgent({ api, args: STREAM_ARGS, input });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    const results = r.json().filter((m) => m.type === 'result');
    expect(api.requests.length).toBeLessThanOrEqual(10);
    expect(results).toHaveLength(api.requests.length);
    for (const res of results) expect(res).toMatchObject({ is_error: false, result: 'answered' });
    // The last request holds the whole conversation: every prompt once, in the order written.
    const sent = api.requests[api.requests.length - 1].body.messages
      .filter((m: any) => m.role === 'user')
      .flatMap((m: any) => (typeof m.content === 'string' ? [m.content] : m.content.map((b: any) => b.text)));
    // The deferred-tools reminder once, after the first turn's prompts (the first request's last block).
    const firstTurn = api.requests[0].body.messages[0].content;
    expect(firstTurn.at(-1).text).toBe(DEFERRED_REMINDER);
    expect(sent.filter((t: string) => t === DEFERRED_REMINDER)).toHaveLength(1);
    expect(sent.indexOf(DEFERRED_REMINDER)).toBe(firstTurn.length - 1);
    expect(sent.filter((t: string) => t !== DEFERRED_REMINDER)).toEqual(
      Array.from({ length: 1000 }, (_, i) => `prompt ${i}`),
    );
  });
});

describe('environment faults', () => {
  it('an unusable TMPDIR: Bash still answers (preview of head and tail, the file that could not be written named); no crash, no stack trace', async () => {
    api = await startFakeApi([
      { content: [{ type: 'tool_use', id: 'small', name: 'Bash', input: { command: 'echo small' } }] },
      { content: [{ type: 'tool_use', id: 'big', name: 'Bash', input: { command: 'seq 1 20000' } }] },
      {
        content: [
          { type: 'tool_use', id: 'bg', name: 'Bash', input: { command: 'echo later', run_in_background: true } },
        ],
      },
      // A foreground subagent needs no task output folder: its row's output file is its transcript.
      {
        content: [
          {
            type: 'tool_use',
            id: 'fg',
            name: 'Task',
            input: { description: 'd', prompt: 'p', subagent_type: 'general-purpose' },
          },
        ],
      },
      text('sub ok'),
      text('survived'),
    ]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash,Task'],
      input: userLine('go'),
      env: { TMPDIR: '/proc/no-such-dir' },
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({ is_error: false, result: 'survived' });
    const small = resultsById(api.requests[1]).small;
    expect(small).toEqual({ text: 'small', isError: false });
    const big = resultsById(api.requests[2]).big;
    expect(big.text).toMatch(
      /^Output too large \(108894 characters\)\. The full output could not be saved \(.*ENOENT.*\/proc\/no-such-dir.*\)/,
    );
    expect(big.text).toContain('\n1\n2\n3\n');
    expect(big.text).toMatch(/19999\n20000$/);
    const bg = resultsById(api.requests[3]).bg;
    expect(bg.isError).toBe(true);
    expect(bg.text).toMatch(
      /cannot create the directory for task output files \/proc\/no-such-dir\/.*ENOENT.*set TMPDIR to a writable directory/,
    );
    expect(resultsById(api.requests[5]).fg).toEqual({ text: 'sub ok', isError: false });
    expect(r.json().find((m) => m.subtype === 'task_notification' && m.tool_use_id === 'fg')).toMatchObject({
      status: 'completed',
      output_file: expect.stringMatching(/\.jsonl$/),
    });
  });
});

describe('processes a command leaves behind', () => {
  it('a daemonizing command (setsid … &) is reported in its tool result and killed when the session ends', async () => {
    api = await startFakeApi([
      {
        content: [
          { type: 'tool_use', id: 'd', name: 'Bash', input: { command: 'setsid sleep 300 >/dev/null 2>&1 & echo $!' } },
        ],
      },
      text('left it running'),
    ]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
      input: userLine('start a daemon'),
    });
    expect(r.code).toBe(0);
    const d = resultsById(api.requests[1]).d;
    const pid = Number(d.text.split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    expect(d.text).toContain(`The command left 1 process running (pid ${pid}); they are killed when the session ends.`);
    // The agent has exited: the daemon went with it.
    expect(await waitUntil(() => !alive(pid), 2000)).toBe(true);
  });
});
