// Command hooks end to end: real shell scripts in a temp dir, configured in .claude/settings.json,
// run by bin/agent against the fake Messages API.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastToolResults, lastUserText, text, toolUse, type RecordedRequest } from '../fake-api/server.js';
import {
  calls,
  DEFERRED_REMINDER,
  runAgent,
  startAgent,
  startTestApi,
  STREAM_ARGS,
  tempDir,
  userLine,
} from './harness.js';

interface HookSpec {
  event: string;
  matcher?: string;
  /** The script body (sh); `$LOG` is a file in the scripts' folder named after the hook. */
  body: string;
  timeout?: number;
}

/**
 * A project whose .claude/settings.json runs each spec as a real script. Every script first saves
 * its stdin (the hook input) as one line of `<name>.jsonl` and exposes it as `$INPUT`.
 */
function project(specs: Array<HookSpec & { name: string }>, extra: Record<string, unknown> = {}) {
  const cwd = tempDir();
  const scripts = tempDir('agent-hooks-');
  const hooks: Record<string, unknown[]> = {};
  for (const s of specs) {
    const file = join(scripts, `${s.name}.sh`);
    const log = join(scripts, `${s.name}.jsonl`);
    writeFileSync(file, `#!/bin/sh\nLOG='${log}'\nINPUT=$(cat)\nprintf '%s\\n' "$INPUT" >> "$LOG"\n${s.body}\n`);
    chmodSync(file, 0o755);
    (hooks[s.event] ??= []).push({
      ...(s.matcher !== undefined ? { matcher: s.matcher } : {}),
      hooks: [{ type: 'command', command: file, ...(s.timeout !== undefined ? { timeout: s.timeout } : {}) }],
    });
  }
  mkdirSync(join(cwd, '.claude'));
  writeFileSync(join(cwd, '.claude', 'settings.json'), JSON.stringify({ hooks, ...extra }, null, 2));
  /** The hook inputs a script received, in order. */
  const inputs = (name: string): Array<Record<string, any>> => {
    const log = join(scripts, `${name}.jsonl`);
    if (!existsSync(log)) return [];
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  };
  return { cwd, scripts, inputs };
}

function results(req: RecordedRequest) {
  return lastToolResults(req).map((r) => ({
    id: r.tool_use_id,
    text: typeof r.content === 'string' ? r.content : JSON.stringify(r.content),
    isError: r.is_error === true,
  }));
}

/** A shell command printing the value as JSON (single-quoted: the values here hold no quote). */
const json = (value: unknown) => `printf '%s\\n' '${JSON.stringify(value)}'`;

/** Running, as opposed to gone or a zombie waiting for a reaper (containers' PID 1 may not reap). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe.concurrent('PreToolUse command hooks', () => {
  it('exit 2 blocks the tool and its stderr reaches the model; other tools are not matched', async (ctx) => {
    const { cwd, inputs } = project([
      { name: 'guard', event: 'PreToolUse', matcher: 'Bash', body: `echo "no touching today" >&2\nexit 2` },
    ]);
    writeFileSync(join(cwd, 'f.txt'), 'hello\n');
    const api = await startTestApi(ctx, [
      toolUse('Bash', { command: 'touch X' }, 'b1'),
      toolUse('Read', { file_path: join(cwd, 'f.txt') }, 'r1'),
      text('done'),
    ]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'X'))).toBe(false);
    const [blocked] = results(api.requests[1]);
    expect(blocked.isError).toBe(true);
    expect(blocked.text).toContain('no touching today');
    expect(results(api.requests[2])[0]).toMatchObject({ isError: false, text: expect.stringContaining('hello') });
    expect(inputs('guard').map((i) => i.tool_name)).toEqual(['Bash']);
    expect(r.json().find((m) => m.type === 'result')!.permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'b1', tool_input: { command: 'touch X' } },
    ]);
  });

  it('the subagent tool goes by Agent: a Task or an Agent matcher runs for a call by either name, with tool_name Agent', async (ctx) => {
    const { cwd, inputs } = project([
      { name: 'task', event: 'PreToolUse', matcher: 'Task', body: 'exit 0' },
      { name: 'agent', event: 'PreToolUse', matcher: 'Agent', body: 'exit 0' },
      { name: 'after', event: 'PostToolUse', matcher: 'Task', body: 'exit 0' },
    ]);
    const api = await startTestApi(ctx, (req) => {
      const first = req.body.messages[0].content;
      if (JSON.stringify(first).includes('SUBHOOK')) return text('sub done');
      const seen = lastToolResults(req).map((r) => r.tool_use_id);
      if (seen.includes('a1')) return text('done');
      if (seen.includes('t1')) return toolUse('Agent', { description: 'b', prompt: 'SUBHOOK b' }, 'a1');
      return toolUse('Task', { description: 'a', prompt: 'SUBHOOK a' }, 't1');
    });
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('go') });
    expect(r.code).toBe(0);
    for (const name of ['task', 'agent', 'after'])
      expect(inputs(name).map((i) => [i.tool_name, i.tool_use_id])).toEqual([
        ['Agent', 't1'],
        ['Agent', 'a1'],
      ]);
  });

  it('JSON permissionDecision allow + updatedInput replaces the input and needs no rule', async (ctx) => {
    const { cwd, inputs } = project([
      {
        name: 'rewrite',
        event: 'PreToolUse',
        matcher: 'Bash',
        body: json({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'allow',
            permissionDecisionReason: 'rewritten',
            updatedInput: { command: 'touch replaced' },
          },
        }),
      },
    ]);
    const api = await startTestApi(ctx, [toolUse('Bash', { command: 'touch original' }), text('done')]);
    // Default mode, no allow rule, no host: only the hook's allow lets it run.
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('go') });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'replaced'))).toBe(true);
    expect(existsSync(join(cwd, 'original'))).toBe(false);
    expect(results(api.requests[1])[0].isError).toBe(false);
    expect(inputs('rewrite')[0].tool_input).toEqual({ command: 'touch original' });
  });

  it('a deny rule still beats a hook allow; a hook deny beats an allow rule', async (ctx) => {
    const { cwd } = project([
      {
        name: 'decide',
        event: 'PreToolUse',
        matcher: 'Bash',
        body: `case "$INPUT" in\n  *touch*) ${json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })} ;;\n  *) ${json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'mkdir is not for you' } })} ;;\nesac`,
      },
    ]);
    const api = await startTestApi(ctx, [
      {
        content: [
          { type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'touch T' } },
          { type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'mkdir M' } },
        ],
      },
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--disallowedTools', 'Bash(touch:*)', '--allowedTools', 'Bash(mkdir:*)'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    const [a, b] = results(api.requests[1]);
    expect(a.isError).toBe(true);
    expect(a.text).toContain('Bash(touch:*)');
    expect(b).toMatchObject({ isError: true, text: 'mkdir is not for you' });
    expect(existsSync(join(cwd, 'T')) || existsSync(join(cwd, 'M'))).toBe(false);
  });

  it('hooks of one event run in parallel and merge: deny > allow', async (ctx) => {
    // Each hook stamps when it starts and ends; run in parallel, each starts before the other ends
    // (an overlap, not a wall-clock bound, so a loaded machine cannot decide the test).
    const stamp = (what: string) => `date +%s%N >> "$LOG.${what}"`;
    const { cwd, scripts } = project([
      {
        name: 'slowallow',
        event: 'PreToolUse',
        body: `${stamp('start')}\nsleep 0.6\n${stamp('end')}\n${json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })}`,
      },
      {
        name: 'slowdeny',
        event: 'PreToolUse',
        body: `${stamp('start')}\nsleep 0.6\n${stamp('end')}\n${json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'two heads say no' } })}`,
      },
    ]);
    const api = await startTestApi(ctx, [toolUse('Bash', { command: 'touch P' }), text('done')]);
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('go') });
    expect(r.code).toBe(0);
    const at = (name: string, what: string) =>
      BigInt(readFileSync(join(scripts, `${name}.jsonl.${what}`), 'utf8').trim());
    expect(at('slowallow', 'start') < at('slowdeny', 'end')).toBe(true);
    expect(at('slowdeny', 'start') < at('slowallow', 'end')).toBe(true);
    expect(results(api.requests[1])[0]).toMatchObject({ isError: true, text: 'two heads say no' });
    expect(existsSync(join(cwd, 'P'))).toBe(false);
  });
});

describe.concurrent('hook input', () => {
  it('carries session_id, transcript_path (a file holding the conversation), cwd, permission_mode, event and tool fields', async (ctx) => {
    const { cwd, scripts, inputs } = project([
      {
        name: 'pre',
        event: 'PreToolUse',
        // Copy the transcript as it is while the tool call waits on us.
        body: `T=$(printf '%s' "$INPUT" | sed -n 's/.*"transcript_path":"\\([^"]*\\)".*/\\1/p')\ncp "$T" '${'COPY'}'`,
      },
    ]);
    const copy = join(scripts, 'transcript-copy.jsonl');
    writeFileSync(join(scripts, 'pre.sh'), readFileSync(join(scripts, 'pre.sh'), 'utf8').replace('COPY', copy));
    const api = await startTestApi(ctx, [
      toolUse('Bash', { command: 'echo hi', description: 'say hi' }, 'tu1'),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
      input: userLine('the magic words'),
    });
    expect(r.code).toBe(0);
    const init = r.json()[0];
    const [input] = inputs('pre');
    expect(input).toMatchObject({
      session_id: init.session_id,
      cwd,
      permission_mode: 'acceptEdits',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi', description: 'say hi' },
      tool_use_id: 'tu1',
    });
    expect(input.transcript_path).toMatch(/\.jsonl$/);
    expect(existsSync(input.transcript_path)).toBe(true);
    const seen = readFileSync(copy, 'utf8');
    expect(seen).toContain('the magic words');
    expect(seen).toContain('tu1'); // the assistant's tool call is in it before the tool runs
    expect(readFileSync(input.transcript_path, 'utf8')).toContain('done');
  });
});

describe.concurrent('PostToolUse and PostToolUseFailure', () => {
  it('PostToolUse additionalContext reaches the next request and its decision:block is fed back; a failing tool fires PostToolUseFailure (with error) and not PostToolUse, a succeeding one the reverse', async (ctx) => {
    const { cwd, inputs } = project([
      {
        name: 'post',
        event: 'PostToolUse',
        matcher: 'Bash',
        body: `case "$INPUT" in\n  *baked*) ${json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'remember the cake' } })} ;;\n  *'"echo x"'*) ${json({ decision: 'block', reason: 'lint failed: fix it' })} ;;\nesac`,
      },
      { name: 'fail', event: 'PostToolUseFailure', matcher: 'Bash', body: 'true' },
    ]);
    const api = await startTestApi(ctx, [
      toolUse('Bash', { command: 'echo baked' }, 'p1'),
      toolUse('Bash', { command: 'echo oops >&2; exit 3' }, 'f1'),
      toolUse('Bash', { command: 'echo x' }, 'x1'),
      text('done'),
    ]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(4);
    // additionalContext: with the request after the tool, not before.
    expect(JSON.stringify(api.requests[1].body.messages.at(-1))).toContain('remember the cake');
    expect(JSON.stringify(api.requests[0].body)).not.toContain('remember the cake');
    // decision:block: its reason is what the model reads next.
    expect(JSON.stringify(api.requests[3].body.messages.at(-1))).toContain('lint failed: fix it');
    // PostToolUse for the two that succeeded only, PostToolUseFailure for the failed one only.
    expect(inputs('post').map((i) => i.tool_input.command)).toEqual(['echo baked', 'echo x']);
    const [post] = inputs('post');
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo baked' },
    });
    expect(JSON.stringify(post.tool_response)).toContain('baked');
    expect(inputs('fail')).toHaveLength(1);
    const [fail] = inputs('fail');
    expect(fail).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_use_id: 'f1',
      is_interrupt: false,
    });
    expect(fail.error).toMatch(/Exit code 3/);
    expect(fail.error).toContain('oops');
  });
});

describe.concurrent('UserPromptSubmit', () => {
  it('exit 2 keeps the prompt from the model, the host sees the reason, the next prompt is answered', async (ctx) => {
    const { cwd, inputs } = project([
      {
        name: 'gate',
        event: 'UserPromptSubmit',
        body: `case "$INPUT" in\n  *forbidden*) echo "that word is not allowed" >&2; exit 2 ;;\nesac`,
      },
    ]);
    const api = await startTestApi(ctx, [text('hello back')]);
    const r = await runAgent({
      api,
      cwd,
      args: STREAM_ARGS,
      input: userLine('say the forbidden word') + userLine('hello'),
    });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(1);
    expect(JSON.stringify(api.requests[0].body)).not.toContain('forbidden');
    // The prompt that was answered, with the deferred-tools reminder of the session's first request.
    expect(lastUserText(api.requests[0])).toBe(`hello\n${DEFERRED_REMINDER}`);
    const msgs = r.json();
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'prompt_blocked')).toMatchObject({
      reason: 'that word is not allowed',
    });
    const results = msgs.filter((m) => m.type === 'result');
    expect(results).toHaveLength(2);
    expect(results[0].is_error).toBe(true);
    expect(results[0].result).toContain('that word is not allowed');
    expect(results[1]).toMatchObject({ subtype: 'success', result: 'hello back' });
    expect(inputs('gate').map((i) => i.prompt)).toEqual(['say the forbidden word', 'hello']);
    expect(inputs('gate')[0]).toMatchObject({ hook_event_name: 'UserPromptSubmit', cwd });
  });

  it('plain stdout (exit 0) and SessionStart output are added as context', async (ctx) => {
    const { cwd, inputs } = project([
      { name: 'ctx', event: 'UserPromptSubmit', body: 'echo "today is a holiday"' },
      {
        name: 'start',
        event: 'SessionStart',
        body: json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'repo uses tabs' } }),
      },
    ]);
    const api = await startTestApi(ctx, [text('one'), text('two')]);
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('first') + userLine('second') });
    expect(r.code).toBe(0);
    const first = JSON.stringify(api.requests[0].body.messages);
    expect(first).toContain('today is a holiday');
    expect(first).toContain('repo uses tabs');
    expect(inputs('start')).toHaveLength(1);
    expect(inputs('start')[0]).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(inputs('ctx')).toHaveLength(2);
  });
});

describe.concurrent('Stop, SessionEnd and continue:false', () => {
  it('a Stop hook blocking once: the next request carries the feedback; the second Stop input has stop_hook_active', async (ctx) => {
    const { cwd, inputs } = project([
      {
        name: 'stop',
        event: 'Stop',
        body: `case "$INPUT" in\n  *'"stop_hook_active":true'*) exit 0 ;;\n  *) ${json({ decision: 'block', reason: 'you forgot the tests' })} ;;\nesac`,
      },
    ]);
    const api = await startTestApi(ctx, [text('all done'), text('tests written too')]);
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('work') });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(2);
    expect(lastUserText(api.requests[1])).toBe('Stop hook feedback:\nyou forgot the tests');
    expect(inputs('stop').map((i) => i.stop_hook_active)).toEqual([false, true]);
    expect(inputs('stop')[0]).toMatchObject({ hook_event_name: 'Stop' });
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({
      subtype: 'success',
      result: 'tests written too',
    });
  });

  it("a Stop hook's input lists what will still wake the session: background_tasks and session_crons (sdk.d.ts)", async (ctx) => {
    const { cwd, inputs } = project([{ name: 'stop', event: 'Stop', body: 'exit 0' }]);
    const api = await startTestApi(ctx, [
      calls([
        ['CronCreate', { cron: '0 0 1 1 *', prompt: 'wish a happy new year', recurring: false }],
        ['Bash', { command: 'sleep 3', description: 'nap', run_in_background: true }],
      ]),
      text('scheduled'),
      text('the nap is over'),
    ]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    expect(r.code).toBe(0);
    const created = r.json().find((m) => m.type === 'user' && m.tool_use_result?.humanSchedule)!.tool_use_result;
    const shell = r.json().find((m) => m.subtype === 'task_started')!;
    const [first, second] = inputs('stop');
    // The first turn ends with the shell running and the job pending.
    expect(first.background_tasks).toEqual([
      { id: shell.task_id, type: 'shell', status: 'running', description: 'nap', command: 'sleep 3' },
    ]);
    expect(first.session_crons).toEqual([
      { id: created.id, schedule: '0 0 1 1 *', recurring: false, prompt: 'wish a happy new year' },
    ]);
    // The turn its notification brings: nothing in flight any more.
    expect(lastUserText(api.requests[2])).toContain('<task-notification>');
    expect(second.background_tasks).toEqual([]);
  });

  it('a Stop hook that always blocks cannot loop forever', async (ctx) => {
    const { cwd, inputs } = project([{ name: 'stop', event: 'Stop', body: `echo "never satisfied" >&2\nexit 2` }]);
    const api = await startTestApi(ctx, () => text('again'));
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('work'), timeoutMs: 15_000 });
    expect(r.signal).toBeNull();
    expect(api.requests.length).toBeGreaterThan(1);
    expect(api.requests.length).toBeLessThan(12);
    expect(inputs('stop').length).toBe(api.requests.length);
  });

  it('continue:false from PostToolUse stops the run: no further request, the reason in the result', async (ctx) => {
    const { cwd } = project([
      { name: 'halt', event: 'PostToolUse', body: json({ continue: false, stopReason: 'enough for today' }) },
    ]);
    const api = await startTestApi(ctx, [
      toolUse('Bash', { command: 'touch first' }),
      toolUse('Bash', { command: 'touch second' }),
      text('never'),
    ]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    expect(api.requests).toHaveLength(1);
    expect(existsSync(join(cwd, 'first'))).toBe(true);
    expect(existsSync(join(cwd, 'second'))).toBe(false);
    const result = r.json().find((m) => m.type === 'result');
    expect(JSON.stringify(result)).toContain('enough for today');
  });

  it('continue:false from PreToolUse stops the run before the tool', async (ctx) => {
    const { cwd } = project([
      { name: 'halt', event: 'PreToolUse', body: json({ continue: false, stopReason: 'not now' }) },
    ]);
    const api = await startTestApi(ctx, [toolUse('Bash', { command: 'touch first' }), text('never')]);
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    expect(api.requests).toHaveLength(1);
    expect(existsSync(join(cwd, 'first'))).toBe(false);
    expect(JSON.stringify(r.json().find((m) => m.type === 'result'))).toContain('not now');
  });

  it('another exit code is a non-blocking error shown on stderr and the tool runs; systemMessage reaches the host; SessionEnd runs when the session ends', async (ctx) => {
    // Two PreToolUse hooks that do not interact: one fails (exit 1), one says something.
    const { cwd, inputs } = project([
      { name: 'broken', event: 'PreToolUse', body: `echo "hook went wrong" >&2\nexit 1` },
      { name: 'note', event: 'PreToolUse', body: json({ systemMessage: 'careful with that axe' }) },
      { name: 'end', event: 'SessionEnd', body: 'true' },
    ]);
    const api = await startTestApi(ctx, [toolUse('Bash', { command: 'touch ran' }), text('done')]);
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'] });
    p.sendRaw(userLine('go'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(existsSync(join(cwd, 'ran'))).toBe(true);
    expect(p.stderr()).toMatch(/failed with exit code 1: hook went wrong \(non-blocking\)/);
    expect(p.json().find((m) => m.type === 'system' && m.subtype === 'hook_system_message')).toMatchObject({
      message: 'careful with that axe',
    });
    expect(inputs('end')).toHaveLength(1);
    expect(inputs('end')[0]).toMatchObject({ hook_event_name: 'SessionEnd' });
  });
});

// Not beside the tests above: its elapsed time is bounded. A suite that is not concurrent runs after the
// concurrent ones have ended (vitest runs a file's consecutive concurrent suites together).
describe('PreToolUse command hooks, timed alone', () => {
  it('a hook past its timeout is killed and the tool goes on', async (ctx) => {
    const { cwd, scripts } = project([
      {
        name: 'slow',
        event: 'PreToolUse',
        matcher: 'Bash',
        timeout: 1,
        body: `sleep 30 &\necho $! > '${'PIDFILE'}'\nwait`,
      },
    ]);
    const pidFile = join(scripts, 'sleep.pid');
    writeFileSync(join(scripts, 'slow.sh'), readFileSync(join(scripts, 'slow.sh'), 'utf8').replace('PIDFILE', pidFile));
    const api = await startTestApi(ctx, [toolUse('Bash', { command: 'echo went-on' }), text('done')]);
    const started = Date.now();
    const r = await runAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], input: userLine('go') });
    const elapsed = Date.now() - started;
    expect(r.code).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(6000);
    expect(results(api.requests[1])[0]).toMatchObject({ isError: false, text: expect.stringContaining('went-on') });
    expect(r.stderr).toMatch(/timed out after 1s/);
    // The hook's own child was killed with it.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(running(pid)).toBe(false);
  });
});
