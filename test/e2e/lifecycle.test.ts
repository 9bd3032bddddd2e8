// Interrupts, signals, a vanished host, print mode and usage errors.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { alive, waitForFile, waitUntil } from '../processes.js';
import { runAgent, startAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

// A command whose grandchild writes its pid, then everything sleeps.
const SLEEPER = 'sleep 30 & echo $! > sleeper.pid; wait';

describe('interrupt and signals', () => {
  it('interrupt ends the run within a second, kills the process group, and the session goes on', async () => {
    api = await startFakeApi([toolUse('Bash', { command: SLEEPER }), text('next prompt answered')]);
    const cwd = tempDir();
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'] });
    p.sendRaw(userLine('sleep please'));
    const pid = Number(await waitForFile(join(cwd, 'sleeper.pid')));
    expect(alive(pid)).toBe(true);
    const asked = Date.now();
    p.send({ type: 'control_request', request_id: 'int-1', request: { subtype: 'interrupt' } });
    const result = await p.waitFor((m) => m.type === 'result');
    expect(Date.now() - asked).toBeLessThan(1500);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
    expect(p.json().find((m) => m.type === 'control_response')?.response).toMatchObject({
      subtype: 'success',
      request_id: 'int-1',
    });
    p.sendRaw(userLine('are you there?'));
    p.endInput();
    const { code } = await p.exited;
    expect(code).toBe(0);
    const results = p.json().filter((m) => m.type === 'result');
    expect(results[1]).toMatchObject({ subtype: 'success', result: 'next prompt answered' });
    // The model learns that its tool call was interrupted.
    const toolResults = api.requests[1].body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
    expect(toolResults.find((b: any) => b.type === 'tool_result')?.is_error).toBe(true);
  });

  it('interrupt during a Glob over / that matches nothing (a walk of the whole disk): the result within a second', async () => {
    api = await startFakeApi([
      toolUse('Glob', { pattern: '**/no-such-file-anywhere-7f3a9*', path: '/' }),
      text('after the glob'),
    ]);
    // Reading outside the working directory is allowed here: the walk itself is what is tested.
    const p = startAgent({ api, args: [...STREAM_ARGS, '--dangerously-skip-permissions'] });
    p.sendRaw(userLine('find it'));
    await p.waitFor((m) => m.type === 'assistant' && JSON.stringify(m.message.content).includes('"Glob"'));
    await new Promise((r) => setTimeout(r, 1000)); // the walk is under way
    const asked = Date.now();
    p.send({ type: 'control_request', request_id: 'int-glob', request: { subtype: 'interrupt' } });
    const result = await p.waitFor((m) => m.type === 'result');
    const tookMs = Date.now() - asked;
    expect(tookMs).toBeLessThan(1000);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    const out = p.json().find((m) => m.type === 'user' && JSON.stringify(m.message.content).includes('tool_result'));
    expect(JSON.stringify(out?.message.content)).toContain('Glob was interrupted.');
    p.endInput();
    expect((await p.exited).code).toBe(1); // the last result was the interrupted one
  });

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} while a tool runs: the group is killed, a final result is written, exit ${code}`, async () => {
      api = await startFakeApi([toolUse('Bash', { command: SLEEPER })]);
      const cwd = tempDir();
      const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'] });
      p.sendRaw(userLine('sleep'));
      const pid = Number(await waitForFile(join(cwd, 'sleeper.pid')));
      p.child.kill(signal);
      const exit = await p.exited;
      expect(exit.code).toBe(code);
      expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
      expect(p.json().pop()).toMatchObject({ type: 'result', is_error: true });
    });
  }

  it('shuts down within seconds when the host closes our stdout, and kills its children', async () => {
    api = await startFakeApi(() => toolUse('Bash', { command: 'sleep 0.2; echo tick' }));
    const cwd = tempDir();
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--include-partial-messages'] });
    p.sendRaw(userLine('loop'));
    await p.waitFor((m) => m.type === 'assistant');
    p.child.stdout!.destroy();
    const started = Date.now();
    const exit = await p.exited;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(exit.code).not.toBe(0);
  });
});

describe('print mode and usage', () => {
  it('-p with text output prints the answer only', async () => {
    api = await startFakeApi([text('The answer is 42.')]);
    const r = await runAgent({ api, args: ['-p', 'what is the answer?'] });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('The answer is 42.');
    // The prompt, then the reminder naming the deferred built-ins (the cache mark on the last block).
    expect(api.requests[0].body.messages[0].content).toEqual([
      { type: 'text', text: 'what is the answer?' },
      { type: 'text', text: expect.stringContaining('\nCronList\n'), cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('-p takes the prompt from stdin when no argument is given', async () => {
    api = await startFakeApi([text('piped ok')]);
    const r = await runAgent({ api, args: ['-p'], input: 'prompt from a pipe\n' });
    expect(r.stdout).toBe('piped ok');
    // The prompt, then the reminder naming the deferred built-ins (the cache mark on the last block).
    expect(api.requests[0].body.messages[0].content).toEqual([
      { type: 'text', text: 'prompt from a pipe\n' },
      { type: 'text', text: expect.stringContaining('\nCronList\n'), cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('--output-format json prints one result object', async () => {
    api = await startFakeApi([text('json answer')]);
    const r = await runAgent({ api, args: ['-p', 'q', '--output-format=json'] });
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    expect(JSON.parse(r.lines[0])).toMatchObject({ type: 'result', subtype: 'success', result: 'json answer' });
  });

  it('an error result exits 1 with the reason on stderr and nothing on stdout', async () => {
    api = await startFakeApi(() => toolUse('Bash', { command: 'true' }));
    const r = await runAgent({ api, args: ['-p', 'q', '--max-turns=1'] });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/maximum number of turns/);
  });

  it('a flag that is not built yet fails loudly with exit 2', async () => {
    const r = await runAgent({ args: ['-p', 'q', '--channels=x'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agent: --channels is not supported yet');
  });

  it('bad flag values and unknown flags exit 2 with a message', async () => {
    const bad = await runAgent({ args: ['-p', 'q', '--max-turns', 'many'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-turns must be a number/);
    const unknown = await runAgent({ args: ['-p', 'q', '--frobnicate'] });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option/);
  });

  it('--version and --help exit 0', async () => {
    const v = await runAgent({ args: ['--version'] });
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/\d+\.\d+\.\d+/);
    const h = await runAgent({ args: ['--help'] });
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/--output-format/);
  });
});
