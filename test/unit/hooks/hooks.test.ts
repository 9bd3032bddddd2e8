import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { alive, waitUntil } from '../../processes.js';
import { HookRunner, type CallHost, type CommandHooksConfig } from '../../../src/hooks/index.js';
import { makeTempDir } from '../../tempDirs.js';

let dir: string;
const base = () => ({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: dir, permission_mode: 'default' });

function script(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return file;
}

function runner(commandHooks: CommandHooksConfig, extra: Partial<ConstructorParameters<typeof HookRunner>[0]> = {}) {
  const warnings: string[] = [];
  const r = new HookRunner({ commandHooks, base, onWarning: (m) => warnings.push(m), ...extra });
  return { r, warnings };
}
const signal = () => new AbortController().signal;
const pre = (command: string, matcher = 'Bash', timeout?: number): CommandHooksConfig => ({
  PreToolUse: [{ matcher, hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] }],
});

beforeAll(() => {
  dir = makeTempDir('hooks-');
});

describe('command hooks', () => {
  it('get the input JSON on stdin with the base fields, and exit 0 JSON output is honoured', async () => {
    const seen = path.join(dir, 'seen.json');
    const s = script(
      'allow.sh',
      `cat > ${seen}\necho '{"systemMessage":"hi","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok by script","updatedInput":{"command":"echo safe"}}}'`,
    );
    const { r } = runner(pre(s));
    expect(r.has('PreToolUse')).toBe(true);
    expect(r.has('PostToolUse')).toBe(false);
    const out = await r.run(
      'PreToolUse',
      { tool_name: 'Bash', tool_input: { command: 'rm x' }, tool_use_id: 'tu1' },
      { matchValue: 'Bash', signal: signal() },
    );
    expect(JSON.parse(fs.readFileSync(seen, 'utf8'))).toEqual({
      session_id: 's1',
      transcript_path: '/tmp/t.jsonl',
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm x' },
      tool_use_id: 'tu1',
    });
    expect(out.permissionDecision).toBe('allow');
    expect(out.permissionDecisionReason).toBe('ok by script');
    expect(out.updatedInput).toEqual({ command: 'echo safe' });
    expect(out.systemMessages).toEqual(['hi']);
  });

  it('matchers are regexes against the tool name', async () => {
    const s = script('block-any.sh', 'echo nope >&2; exit 2');
    const { r } = runner(pre(s, 'Edit|Write'));
    expect((await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() })).blockReason).toBeUndefined();
    expect((await r.run('PreToolUse', {}, { matchValue: 'Write', signal: signal() })).blockReason).toBe('nope');
    const { r: r2 } = runner(pre(s, 'mcp__.*'));
    expect((await r2.run('PreToolUse', {}, { matchValue: 'mcp__x__y', signal: signal() })).blockReason).toBe('nope');
    expect((await r2.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() })).blockReason).toBeUndefined();
  });

  it('exit 2 blocks with stderr as the reason', async () => {
    const s = script('block.sh', 'echo "rm is forbidden here" >&2; exit 2');
    const { r } = runner(pre(s));
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(out.blockReason).toBe('rm is forbidden here');
  });

  it('other exit codes are a non-blocking warning', async () => {
    const s = script('fail.sh', 'echo "something broke" >&2; exit 1');
    const { r, warnings } = runner(pre(s));
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(out.blockReason).toBeUndefined();
    expect(out.permissionDecision).toBeUndefined();
    expect(warnings).toEqual([`PreToolUse hook \`${s}\` failed with exit code 1: something broke (non-blocking)`]);
  });

  it('a hook past its timeout is killed with its children and does not hang', async () => {
    const kidFile = path.join(dir, 'kid.pid');
    const s = script(
      'slow.sh',
      `sleep 60 &\necho $! > ${kidFile}\nsleep 30\necho '{"decision":"block","reason":"late"}'`,
    );
    // 2 s, not 1: on a loaded machine the shell may not have written the child's pid within 1 s.
    const { r, warnings } = runner(pre(s, 'Bash', 2));
    const t0 = Date.now();
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(out.blockReason).toBeUndefined();
    expect(warnings[0]).toMatch(/timed out after 2s and was killed/);
    // The hook's own child went with it (2 s was time enough for the hook to name it).
    const kid = Number(fs.readFileSync(kidFile, 'utf8'));
    expect(kid).toBeGreaterThan(0);
    expect(await waitUntil(() => !alive(kid), 3000)).toBe(true);
  });

  it('plain stdout is additional context for UserPromptSubmit, ignored for PreToolUse', async () => {
    const s = script('ctx.sh', 'echo "today is a holiday"');
    const { r } = runner({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: s }] }], ...pre(s) });
    expect((await r.run('UserPromptSubmit', { prompt: 'hi' }, { signal: signal() })).additionalContext).toEqual([
      'today is a holiday',
    ]);
    expect((await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() })).additionalContext).toEqual([]);
  });

  it('parallel hooks merge: deny > ask > allow, any block blocks, continue:false stops', async () => {
    // Each of allow and deny stamps its start and end: run at once, each starts before the other ends.
    const stamped = (n: string) =>
      `date +%s%N > ${path.join(dir, n)}.start; sleep 0.3; date +%s%N > ${path.join(dir, n)}.end;`;
    const at = (n: string, what: string) => BigInt(fs.readFileSync(path.join(dir, `${n}.${what}`), 'utf8').trim());
    const allow = script(
      'm-allow.sh',
      stamped('m-allow') +
        ' echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\'',
    );
    const deny = script(
      'm-deny.sh',
      stamped('m-deny') +
        ' echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}\'',
    );
    const ask = script(
      'm-ask.sh',
      'sleep 0.3; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}\'',
    );
    const stop = script(
      'm-stop.sh',
      'sleep 0.3; echo \'{"continue":false,"stopReason":"budget exhausted","systemMessage":"stopping"}\'',
    );
    const cfg: CommandHooksConfig = {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: allow },
            { type: 'command', command: ask },
          ],
        },
        { hooks: [{ type: 'command', command: deny }] },
      ],
    };
    const { r } = runner(cfg);
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(at('m-allow', 'start') < at('m-deny', 'end') && at('m-deny', 'start') < at('m-allow', 'end')).toBe(true);
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toBe('policy says no');
    const { r: r2 } = runner({
      PreToolUse: [
        {
          hooks: [
            { type: 'command', command: allow },
            { type: 'command', command: ask },
          ],
        },
      ],
    });
    expect((await r2.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() })).permissionDecision).toBe('ask');
    const { r: r3 } = runner({ Stop: [{ hooks: [{ type: 'command', command: stop }] }] });
    const st = await r3.run('Stop', { stop_hook_active: false }, { signal: signal() });
    expect(st.stop).toEqual({ reason: 'budget exhausted' });
    expect(st.systemMessages).toEqual(['stopping']);
  });

  it('an async command hook is not waited for', async () => {
    const s = script('async.sh', 'sleep 10');
    const { r } = runner({ PostToolUse: [{ hooks: [{ type: 'command', command: s, async: true }] }] });
    const t0 = Date.now();
    await r.run('PostToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('unsupported hook types and unknown events warn, they do not break the run', () => {
    const { r, warnings } = runner({
      PreToolUse: [{ hooks: [{ type: 'prompt' }] }],
      Bogus: [{ hooks: [{ type: 'command', command: 'true' }] }],
    });
    expect(r.has('PreToolUse')).toBe(false);
    expect(warnings.join('\n')).toMatch(/type "prompt" is not supported/);
    expect(warnings.join('\n')).toMatch(/unknown event "Bogus"/);
  });
});

describe('callback hooks', () => {
  it('are registered after construction and called through callHost with input and tool_use_id', async () => {
    const calls: unknown[] = [];
    const callHost: CallHost = async (id, input, toolUseId) => {
      calls.push({ id, input, toolUseId });
      return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `from ${id}` } };
    };
    const { r } = runner({}, { callHost });
    expect(r.has('PostToolUse')).toBe(false);
    r.setCallbackHooks({ PostToolUse: [{ matcher: 'Read', hookCallbackIds: ['hook_0', 'hook_1'] }] });
    expect(r.has('PostToolUse')).toBe(true);
    const out = await r.run(
      'PostToolUse',
      { tool_name: 'Read' },
      { matchValue: 'Read', toolUseId: 'tu9', signal: signal() },
    );
    expect(out.additionalContext).toEqual(['from hook_0', 'from hook_1']);
    expect(calls[0]).toMatchObject({
      id: 'hook_0',
      toolUseId: 'tu9',
      input: { hook_event_name: 'PostToolUse', tool_name: 'Read', session_id: 's1' },
    });
    expect((await r.run('PostToolUse', {}, { matchValue: 'Bash', signal: signal() })).additionalContext).toEqual([]);
  });

  it('a host that never answers times out with a clear message', async () => {
    let sawAbort = false;
    const callHost: CallHost = (_id, _input, _tu, s) =>
      new Promise(() => {
        s.addEventListener('abort', () => (sawAbort = true));
      });
    const { r, warnings } = runner(
      {},
      { callHost, callbackHooks: { PreToolUse: [{ hookCallbackIds: ['hook_7'], timeout: 0.2 }] } },
    );
    const t0 = Date.now();
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(out.permissionDecision).toBeUndefined();
    expect(warnings).toEqual(['PreToolUse hook callback hook_7 did not answer within 0.2s; going on without it']);
    expect(sawAbort).toBe(true);
  });

  it('default timeout applies to callbacks without one; {async:true} and errors are non-blocking', async () => {
    const callHost: CallHost = async (id) => {
      if (id === 'a') return { async: true };
      if (id === 'b') throw new Error('host exploded');
      return new Promise(() => {});
    };
    const { r, warnings } = runner(
      {},
      { callHost, defaultTimeoutMs: 100, callbackHooks: { Stop: [{ hookCallbackIds: ['a', 'b', 'c'] }] } },
    );
    const out = await r.run('Stop', {}, { signal: signal() });
    expect(out.blockReason).toBeUndefined();
    expect(warnings.sort()).toEqual([
      'Stop hook callback b failed: host exploded (non-blocking)',
      'Stop hook callback c did not answer within 0.1s; going on without it',
    ]);
  });

  it('command and callback hooks of one event merge; a callback block and a PermissionRequest answer', async () => {
    const s = script(
      'cb-allow.sh',
      'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\'',
    );
    const callHost: CallHost = async (id) =>
      id === 'blk'
        ? { decision: 'block', reason: 'host blocks' }
        : {
            hookSpecificOutput: {
              hookEventName: 'PermissionRequest',
              decision: { behavior: 'deny', message: 'no', interrupt: true },
            },
          };
    const { r } = runner(pre(s), {
      callHost,
      callbackHooks: { PreToolUse: [{ hookCallbackIds: ['blk'] }], PermissionRequest: [{ hookCallbackIds: ['pr'] }] },
    });
    const out = await r.run('PreToolUse', {}, { matchValue: 'Bash', signal: signal() });
    expect(out.permissionDecision).toBe('allow');
    expect(out.blockReason).toBe('host blocks');
    const pr = await r.run('PermissionRequest', {}, { matchValue: 'Bash', signal: signal() });
    expect(pr.permissionRequest).toEqual({ behavior: 'deny', message: 'no', interrupt: true });
  });

  it('an aborted run stops waiting at once', async () => {
    const callHost: CallHost = () => new Promise(() => {});
    const { r, warnings } = runner({}, { callHost, callbackHooks: { Stop: [{ hookCallbackIds: ['x'] }] } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const t0 = Date.now();
    await r.run('Stop', {}, { signal: ac.signal });
    expect(Date.now() - t0).toBeLessThan(5000); // the host never answers
    expect(warnings).toEqual([]);
  });
});
