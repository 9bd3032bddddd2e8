// The official Claude Agent SDK as a permission host: canUseTool answers and callback hooks in
// options.hooks, exchanged with bin/agent as can_use_tool / hook_callback control requests.
import type { CanUseTool, HookCallback } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastUserText, text, type RecordedRequest } from '../fake-api/server.js';
import { calls, resultsById, startFakeApi, tempDir, type FakeApi, once } from './harness.js';
import { runQuery as run, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

/**
 * The three canUseTool checks share one session (one host; its prompts one after another), each
 * with its own prompt and tool_use ids (t, i, a/u): the answers, then the interrupting deny and the
 * prompt after it, then the remembered suggestions last (the rule they add would answer a later
 * ask). The host answers by the call's id; each check reads its own asks, requests (by the prompt
 * they answer) and results. Made once, by the first check that reads it.
 */
const PROMPTS = { answers: 'go: answers', interrupt: 'go: interrupt', after: 'again', remember: 'go: remember' };
type Turn = keyof typeof PROMPTS;
type Ask = { toolName: string; input: Record<string, unknown>; suggestions?: unknown; toolUseID?: string };
const shared = once(sharedSession);

async function sharedSession() {
  const cwd = tempDir();
  const own = await startFakeApi([
    calls([
      ['Bash', { command: 'touch first' }],
      ['Bash', { command: 'touch second' }],
      ['Write', { file_path: join(cwd, 'w.txt'), content: 'w' }],
      ['Read', { file_path: join(cwd, 'first') }],
    ]),
    text('done'),
    calls([['Bash', { command: 'touch one' }]], 'i'),
    text('after'),
    calls([['Bash', { command: 'touch a' }]], 'a'),
    calls([['Bash', { command: 'touch b' }]], 'u'),
    text('done'),
  ]);
  try {
    const asked: Record<Turn, Ask[]> = { answers: [], interrupt: [], after: [], remember: [] };
    const canUseTool: CanUseTool = async (toolName, input, options) => {
      const toolUseID = (options as { toolUseID?: string }).toolUseID;
      const turn: Turn = toolUseID?.startsWith('i')
        ? 'interrupt'
        : /^[au]/.test(toolUseID ?? '')
          ? 'remember'
          : 'answers';
      asked[turn].push({ toolName, input, suggestions: options.suggestions, toolUseID });
      expect(options.signal).toBeInstanceOf(AbortSignal);
      if (turn === 'interrupt') return { behavior: 'deny', message: 'halt right there', interrupt: true };
      if (turn === 'remember')
        return { behavior: 'allow', updatedInput: input, updatedPermissions: options.suggestions };
      if (input.command === 'touch first') return { behavior: 'allow', updatedInput: input };
      if (input.command === 'touch second') return { behavior: 'allow', updatedInput: { command: 'touch rewritten' } };
      return { behavior: 'deny', message: `no ${toolName} for you` };
    };
    const names = Object.keys(PROMPTS) as Turn[];
    const r = await run(Object.values(PROMPTS), sdkOptions(own.url, cwd, { canUseTool }));
    const turnOf = (q: RecordedRequest) => names.find((n) => lastUserText(q).startsWith(PROMPTS[n]));
    expect(r.results, 'the shared canUseTool session: one result per prompt').toHaveLength(names.length);
    expect(own.requests.map(turnOf), 'the prompt each request of the shared canUseTool session answers').not.toContain(
      undefined,
    );
    const turns = Object.fromEntries(
      names.map((n, i) => [
        n,
        { asked: asked[n], requests: own.requests.filter((q) => turnOf(q) === n), result: r.results[i]! },
      ]),
    ) as Record<Turn, { asked: Ask[]; requests: RecordedRequest[]; result: Record<string, any> }>;
    return { cwd, error: r.error, turns };
  } finally {
    await own.close();
  }
}

describe('official SDK canUseTool', () => {
  it('allow, allow with updatedInput, deny with message: asked in order, answers honoured', async () => {
    const { cwd, error, turns } = await shared();
    const { asked, requests } = turns.answers;
    expect(error).toBeUndefined();
    expect(asked.map((a) => [a.toolName, a.toolUseID])).toEqual([
      ['Bash', 't1'],
      ['Bash', 't2'],
      ['Write', 't3'],
    ]);
    expect(asked[0].suggestions).toEqual([
      {
        type: 'addRules',
        rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(existsSync(join(cwd, 'first'))).toBe(true);
    expect(existsSync(join(cwd, 'second'))).toBe(false);
    expect(existsSync(join(cwd, 'rewritten'))).toBe(true);
    expect(existsSync(join(cwd, 'w.txt'))).toBe(false);
    expect(requests).toHaveLength(2);
    const s = resultsById(requests[1]);
    expect(s.t3).toEqual({ text: 'no Write for you', isError: true });
    expect(s.t4.isError).toBe(false);
    expect(turns.answers.result).toMatchObject({ subtype: 'success', result: 'done' });
    expect(turns.answers.result.permission_denials).toEqual([
      { tool_name: 'Write', tool_use_id: 't3', tool_input: { file_path: join(cwd, 'w.txt'), content: 'w' } },
    ]);
  });

  it('deny with interrupt ends the run; the next prompt is answered', async () => {
    const { cwd, turns } = await shared();
    expect(turns.interrupt.asked).toHaveLength(1);
    expect(existsSync(join(cwd, 'one'))).toBe(false);
    expect(turns.interrupt.result.is_error).toBe(true);
    expect(JSON.stringify(turns.interrupt.result)).toContain('halt right there');
    expect(turns.after.result).toMatchObject({ subtype: 'success', result: 'after' });
    expect(turns.interrupt.requests).toHaveLength(1);
    expect(turns.after.requests).toHaveLength(1);
    expect(lastUserText(turns.after.requests[0])).toBe('again');
  });

  it('updatedPermissions from the suggestions: the same command is not asked about again', async () => {
    const { cwd, error, turns } = await shared();
    expect(error).toBeUndefined();
    expect(turns.remember.result).toMatchObject({ subtype: 'success', result: 'done' });
    expect(turns.remember.asked.map((a) => a.input.command)).toEqual(['touch a']);
    expect(existsSync(join(cwd, 'a')) && existsSync(join(cwd, 'b'))).toBe(true);
  });
});

describe('system/permission_denied through the official SDK', () => {
  it('a deny rule and plan mode with nobody to ask each send one; a canUseTool deny sends none', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'mkdir ruled' }],
        ['Bash', { command: 'touch asked' }],
      ]),
      text('done'),
    ]);
    const canUseTool: CanUseTool = async () => ({ behavior: 'deny', message: 'host says no' });
    const r = await run(['go'], sdkOptions(api.url, cwd, { canUseTool, disallowedTools: ['Bash(mkdir:*)'] }));
    expect(r.error).toBeUndefined();
    const denied = r.messages.filter((m) => m.type === 'system' && m.subtype === 'permission_denied');
    expect(denied).toEqual([
      expect.objectContaining({
        tool_name: 'Bash',
        tool_use_id: 't1',
        decision_reason_type: 'subcommandResults',
        message: resultsById(api.requests[1]).t1.text,
      }),
    ]);
    expect(resultsById(api.requests[1]).t2.text).toBe('host says no');
    // Each line comes right after the assistant line holding its call, before the call's result.
    const order = r.messages.map((m) =>
      m.type === 'system' && m.subtype === 'permission_denied' ? 'denied' : m.type === 'user' ? 'result' : m.type,
    );
    expect(order.indexOf('denied')).toBeLessThan(order.indexOf('result'));

    const plan = tempDir();
    await api.close();
    api = await startFakeApi([calls([['Write', { file_path: join(plan, 'p.txt'), content: 'x' }]]), text('planned')]);
    const p = await run(['plan'], sdkOptions(api.url, plan, { permissionMode: 'plan' }));
    expect(p.messages.filter((m) => m.type === 'system' && m.subtype === 'permission_denied')).toEqual([
      expect.objectContaining({
        tool_name: 'Write',
        decision_reason_type: 'mode',
        message: expect.stringMatching(/plan mode/),
      }),
    ]);
    expect(existsSync(join(plan, 'p.txt'))).toBe(false);
  });
});

describe('official SDK callback hooks', () => {
  it('PreToolUse: deny stops the tool with its reason; updatedInput replaces the input', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'touch forbidden' }],
        ['Bash', { command: 'touch original' }],
      ]),
      text('done'),
    ]);
    const inputs: Array<Record<string, any>> = [];
    const pre: HookCallback = async (input, toolUseID) => {
      const i = input as Record<string, any>;
      inputs.push({ ...i, toolUseID });
      if (i.tool_input.command === 'touch forbidden')
        return {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: 'hook says no',
          },
        };
      return {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          updatedInput: { command: 'touch replaced' },
        },
      };
    };
    const r = await run(
      ['go'],
      sdkOptions(api.url, cwd, { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [pre] }] } }),
    );
    expect(r.error).toBeUndefined();
    expect(existsSync(join(cwd, 'forbidden')) || existsSync(join(cwd, 'original'))).toBe(false);
    expect(existsSync(join(cwd, 'replaced'))).toBe(true);
    const s = resultsById(api.requests[1]);
    expect(s.t1).toEqual({ text: 'hook says no', isError: true });
    expect(s.t2.isError).toBe(false);
    const init = r.messages.find((m) => m.type === 'system') as Record<string, any>;
    expect(inputs[0]).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: init.session_id,
      cwd,
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'touch forbidden' },
      tool_use_id: 't1',
      toolUseID: 't1',
    });
    expect(typeof inputs[0].transcript_path).toBe('string');
  });

  it('PostToolUse additionalContext reaches the model; PostToolUseFailure fires for a failing tool', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'echo fine' }],
        ['Bash', { command: 'exit 4' }],
      ]),
      text('done'),
    ]);
    const post: Array<Record<string, any>> = [];
    const failed: Array<Record<string, any>> = [];
    const r = await run(
      ['go'],
      sdkOptions(api.url, cwd, {
        allowedTools: ['Bash'],
        hooks: {
          PostToolUse: [
            {
              hooks: [
                async (input: Record<string, any>) => {
                  post.push(input);
                  return {
                    hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'the output was checked' },
                  };
                },
              ],
            },
          ],
          PostToolUseFailure: [
            {
              hooks: [
                async (input: Record<string, any>) => {
                  failed.push(input);
                  return {};
                },
              ],
            },
          ],
        },
      }),
    );
    expect(r.error).toBeUndefined();
    expect(post.map((p) => p.tool_input.command)).toEqual(['echo fine']);
    expect(failed.map((p) => p.tool_input.command)).toEqual(['exit 4']);
    expect(failed[0].error).toMatch(/Exit code 4/);
    expect(JSON.stringify(api.requests[1].body.messages.at(-1))).toContain('the output was checked');
  });

  it('UserPromptSubmit: a block keeps the prompt from the model; additionalContext is added', async () => {
    const cwd = tempDir();
    api = await startFakeApi([text('answered')]);
    const prompts: string[] = [];
    const gate: HookCallback = async (input) => {
      const p = (input as { prompt: string }).prompt;
      prompts.push(p);
      if (p.includes('secret')) return { decision: 'block', reason: 'no secrets in prompts' };
      return { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'the user is in Paris' } };
    };
    const r = await run(
      ['tell me the secret', 'hello'],
      sdkOptions(api.url, cwd, { hooks: { UserPromptSubmit: [{ hooks: [gate] }] } }),
    );
    expect(prompts).toEqual(['tell me the secret', 'hello']);
    expect(api.requests).toHaveLength(1);
    expect(JSON.stringify(api.requests[0].body.messages)).not.toContain('tell me the secret');
    expect(JSON.stringify(api.requests[0].body.messages)).toContain('the user is in Paris');
    expect(r.results[0].is_error).toBe(true);
    expect(r.results[0].result).toContain('no secrets in prompts');
    expect(r.results[1]).toMatchObject({ subtype: 'success', result: 'answered' });
  });

  it('Stop with block: the feedback goes to the model once, then stop_hook_active is true', async () => {
    const cwd = tempDir();
    api = await startFakeApi([text('finished'), text('really finished')]);
    const actives: boolean[] = [];
    const stop: HookCallback = async (input) => {
      const active = (input as { stop_hook_active: boolean }).stop_hook_active;
      actives.push(active);
      return active ? {} : { decision: 'block', reason: 'double-check your work' };
    };
    const r = await run(['work'], sdkOptions(api.url, cwd, { hooks: { Stop: [{ hooks: [stop] }] } }));
    expect(r.error).toBeUndefined();
    expect(actives).toEqual([false, true]);
    expect(lastUserText(api.requests[1])).toBe('Stop hook feedback:\ndouble-check your work');
    expect(r.results[0]).toMatchObject({ subtype: 'success', result: 'really finished' });
  });

  it('a hook and canUseTool together: the hook allows, so the host is never asked', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'touch by-hook' }],
        ['Bash', { command: 'touch by-host' }],
      ]),
      text('done'),
    ]);
    const asked: string[] = [];
    const r = await run(
      ['go'],
      sdkOptions(api.url, cwd, {
        canUseTool: (async (_n, input) => {
          asked.push(String(input.command));
          return { behavior: 'allow', updatedInput: input };
        }) satisfies CanUseTool,
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                async (input: Record<string, any>) =>
                  input.tool_input.command === 'touch by-hook'
                    ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }
                    : {},
              ],
            },
          ],
        },
      }),
    );
    expect(r.error).toBeUndefined();
    expect(asked).toEqual(['touch by-host']);
    expect(existsSync(join(cwd, 'by-hook')) && existsSync(join(cwd, 'by-host'))).toBe(true);
    expect(readFileSync(join(cwd, 'by-hook'), 'utf8')).toBe('');
  });
});

describe('permissionPrompts through the SDK', () => {
  it("'none': canUseTool is never called; what would prompt is denied at once with the reason, rules and modes still allow", async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'touch asked' }],
        ['Bash', { command: 'echo allowed-by-rule' }],
        ['Read', { file_path: join(cwd, 'nothing-here') }],
      ]),
      text('done'),
    ]);
    let asked = 0;
    const canUseTool: CanUseTool = async () => {
      asked++;
      return { behavior: 'allow' };
    };
    const r = await run(
      ['go'],
      sdkOptions(api.url, cwd, { canUseTool, permissionPrompts: 'none', allowedTools: ['Bash(echo:*)'] }),
    );
    expect(r.error).toBeUndefined();
    expect(asked).toBe(0);
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toMatch(/no approval surface \(--permission-prompts none\)/);
    expect(existsSync(join(cwd, 'asked'))).toBe(false);
    expect(seen.t2).toMatchObject({ isError: false });
    expect(seen.t2.text).toContain('allowed-by-rule');
    // A read in the working directory needs no prompt: it runs (and fails only because the file is absent).
    expect(seen.t3.text).not.toMatch(/approval surface/);
    expect(r.results[0]).toMatchObject({ subtype: 'success' });
    expect((r.results[0].permission_denials as Array<{ tool_use_id: string }>).map((d) => d.tool_use_id)).toEqual([
      't1',
    ]);
  });

  it("'host' is the default: canUseTool is asked", async () => {
    const cwd = tempDir();
    api = await startFakeApi([calls([['Bash', { command: 'touch asked' }]]), text('done')]);
    let asked = 0;
    const canUseTool: CanUseTool = async (_n, input) => {
      asked++;
      return { behavior: 'allow', updatedInput: input };
    };
    const r = await run(['go'], sdkOptions(api.url, cwd, { canUseTool, permissionPrompts: 'host' }));
    expect(r.error).toBeUndefined();
    expect(asked).toBe(1);
    expect(existsSync(join(cwd, 'asked'))).toBe(true);
  });
});
