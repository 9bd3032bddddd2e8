import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tool, ToolContext } from '../../../tools/tool.js';
import { ToolError } from '../../../tools/tool.js';
import { HookRunner, type CallHost } from '../../../src/hooks/index.js';
import { createPermissionState } from '../../../src/permissions/index.js';
import {
  runToolUse,
  type AskHostAnswer,
  type AskHostRequest,
  type PermissionDenial,
  type PipelineDeps,
  type PipelineOutcome,
} from '../../../src/loop/toolPipeline.js';
import { makeTempDir } from '../../tempDirs.js';

let dir: string;
const ran: unknown[] = [];

// A tiny Bash-like tool: records what it ran, fails on `fail`.
const Shell: Tool = {
  name: 'Bash',
  description: 'fake shell',
  inputSchema: z.object({ command: z.string() }),
  isReadOnly: (i: { command: string }) => i.command.startsWith('echo '),
  isConcurrencySafe: () => false,
  kind: 'execute',
  access: (i: { command: string }) => ({ command: i.command }),
  async *call(input: { command: string }) {
    ran.push(input.command);
    yield { type: 'progress' };
    if (input.command === 'fail') throw new ToolError('it failed');
    return { content: `ran ${input.command}`, data: { stdout: input.command } };
  },
};

function ctx(signal = new AbortController().signal): ToolContext {
  return { cwd: dir, signal, sessionId: 's', readFiles: new Map(), scratchDir: dir, toolUseId: 'tu1' };
}

async function run(
  input: unknown,
  deps: PipelineDeps,
  signal?: AbortSignal,
): Promise<{ out: PipelineOutcome; progress: number }> {
  const gen = runToolUse({ id: 'tu1', name: 'Bash', input }, ctx(signal), deps);
  let progress = 0;
  for (;;) {
    const step = await gen.next();
    if (step.done) return { out: step.value, progress };
    progress++;
  }
}

function perms(opts: { mode?: 'default' | 'dontAsk' | 'acceptEdits'; allow?: string[] } = {}) {
  return createPermissionState({
    mode: opts.mode ?? 'default',
    allow: opts.allow ?? [],
    deny: [],
    ask: [],
    additionalDirectories: [],
    cwd: dir,
    allowBypass: false,
  });
}
const base = () => ({ session_id: 's', transcript_path: '', cwd: dir, permission_mode: 'default' });

function script(name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return file;
}

beforeAll(() => {
  dir = makeTempDir('pipe-');
});

describe('tool pipeline', () => {
  it('no hooks, no permission state: the tool just runs, progress passes through', async () => {
    const { out, progress } = await run({ command: 'make' }, { tools: [Shell] });
    expect(out.toolResult).toEqual({ type: 'tool_result', tool_use_id: 'tu1', content: 'ran make' });
    expect(out.data).toEqual({ stdout: 'make' });
    expect(progress).toBe(1);
  });

  it('an allow rule lets it run; a read-only call runs by default', async () => {
    expect(
      (await run({ command: 'npm test' }, { tools: [Shell], permissions: perms({ allow: ['Bash(npm test:*)'] }) })).out
        .toolResult.is_error,
    ).toBeUndefined();
    expect((await run({ command: 'echo hi' }, { tools: [Shell], permissions: perms() })).out.toolResult.content).toBe(
      'ran echo hi',
    );
  });

  it('no askHost: an ask is denied at once with a hint naming the rule and the prompt flag', async () => {
    const denials: PermissionDenial[] = [];
    ran.length = 0;
    const { out } = await run(
      { command: 'npm test' },
      { tools: [Shell], permissions: perms(), onDenial: (d) => denials.push(d) },
    );
    expect(out.toolResult.is_error).toBe(true);
    expect(out.toolResult.content).toContain('--allowedTools "Bash(npm test:*)"');
    expect(out.toolResult.content).toContain('--permission-prompt-tool stdio');
    expect(denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'tu1', tool_input: { command: 'npm test' } }]);
    expect(ran).toEqual([]);
  });

  it('askHost allow with updatedInput runs the new input and remembers updatedPermissions', async () => {
    const asks: AskHostRequest[] = [];
    const state = perms();
    const askHost = async (req: AskHostRequest): Promise<AskHostAnswer> => {
      asks.push(req);
      return {
        behavior: 'allow',
        updatedInput: { command: 'npm test -- --ci' },
        updatedPermissions: [
          {
            type: 'addRules',
            rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
            behavior: 'allow',
            destination: 'session',
          },
        ],
      };
    };
    const { out } = await run({ command: 'npm test' }, { tools: [Shell], permissions: state, askHost });
    expect(out.toolResult.content).toBe('ran npm test -- --ci');
    expect(asks[0]).toMatchObject({
      tool_name: 'Bash',
      input: { command: 'npm test' },
      tool_use_id: 'tu1',
      decision_reason: 'no rule allows it',
      permission_suggestions: [
        {
          type: 'addRules',
          rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
          behavior: 'allow',
          destination: 'session',
        },
      ],
    });
    // Remembered: the next call does not ask.
    await run({ command: 'npm test' }, { tools: [Shell], permissions: state, askHost });
    expect(asks.length).toBe(1);
  });

  it('askHost deny gives an is_error result with the message; interrupt stops the run', async () => {
    const denials: PermissionDenial[] = [];
    const deny = await run(
      { command: 'rm x' },
      {
        tools: [Shell],
        permissions: perms(),
        askHost: async () => ({ behavior: 'deny', message: 'not on my machine' }),
        onDenial: (d) => denials.push(d),
      },
    );
    expect(deny.out.toolResult).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu1',
      content: 'not on my machine',
      is_error: true,
    });
    expect(deny.out.stopRun).toBeUndefined();
    const intr = await run(
      { command: 'rm x' },
      {
        tools: [Shell],
        permissions: perms(),
        askHost: async () => ({ behavior: 'deny', message: 'stop everything', interrupt: true }),
      },
    );
    expect(intr.out.stopRun).toEqual({ reason: 'Interrupted: stop everything' });
    expect(denials.length).toBe(1);
  });

  it('askHost failing (e.g. its timeout) denies with the reason', async () => {
    const { out } = await run(
      { command: 'rm x' },
      {
        tools: [Shell],
        permissions: perms(),
        askHost: async () => {
          throw new Error('can_use_tool timed out after 1s');
        },
      },
    );
    expect(out.toolResult.is_error).toBe(true);
    expect(out.toolResult.content).toMatch(/timed out after 1s/);
  });

  it('dontAsk denies without asking the host', async () => {
    let asked = false;
    const { out } = await run(
      { command: 'rm x' },
      {
        tools: [Shell],
        permissions: perms({ mode: 'dontAsk' }),
        askHost: async () => ((asked = true), { behavior: 'allow' }),
      },
    );
    expect(out.toolResult.is_error).toBe(true);
    expect(asked).toBe(false);
  });

  it('PreToolUse command hook exit 2 blocks with its reason; the tool does not run', async () => {
    ran.length = 0;
    const s = script('block.sh', 'echo "no rm please" >&2; exit 2');
    const hooks = new HookRunner({
      commandHooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: s }] }] },
      base,
    });
    const denials: PermissionDenial[] = [];
    const { out } = await run(
      { command: 'rm x' },
      { tools: [Shell], hooks, permissions: perms({ allow: ['Bash'] }), onDenial: (d) => denials.push(d) },
    );
    expect(out.toolResult.is_error).toBe(true);
    expect(out.toolResult.content).toContain('no rm please');
    expect(ran).toEqual([]);
    expect(denials.length).toBe(1);
  });

  it('PreToolUse deny decision beats an allow rule; allow + updatedInput replaces the input and skips the ask', async () => {
    const callHost: CallHost = async (id) =>
      id === 'deny'
        ? {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'hook policy',
            },
          }
        : {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'allow',
              updatedInput: { command: 'echo rewritten' },
            },
          };
    const denyHooks = new HookRunner({
      base,
      callHost,
      callbackHooks: { PreToolUse: [{ matcher: 'Bash', hookCallbackIds: ['deny'] }] },
    });
    const d = await run(
      { command: 'ls' },
      { tools: [Shell], hooks: denyHooks, permissions: perms({ allow: ['Bash'] }) },
    );
    expect(d.out.toolResult).toMatchObject({ is_error: true, content: 'hook policy' });
    const allowHooks = new HookRunner({
      base,
      callHost,
      callbackHooks: { PreToolUse: [{ hookCallbackIds: ['allow'] }] },
    });
    const a = await run({ command: 'make' }, { tools: [Shell], hooks: allowHooks, permissions: perms() });
    expect(a.out.toolResult.content).toBe('ran echo rewritten');
  });

  it('a Notification hook fires (permission_prompt) when a question waits for the host, and only then', async () => {
    const heard: Array<Record<string, unknown>> = [];
    const callHost: CallHost = async (_id, input) => (heard.push(input as Record<string, unknown>), {});
    const hooks = new HookRunner({
      base,
      callHost,
      callbackHooks: { Notification: [{ matcher: 'permission_prompt', hookCallbackIds: ['n'] }] },
    });
    await run(
      { command: 'make' },
      { tools: [Shell], hooks, permissions: perms(), askHost: async () => ({ behavior: 'allow' }) },
    );
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual([
      expect.objectContaining({
        hook_event_name: 'Notification',
        notification_type: 'permission_prompt',
        message: 'Claude needs your permission to use Bash',
      }),
    ]);
    await run(
      { command: 'ls' },
      { tools: [Shell], hooks, permissions: perms({ allow: ['Bash'] }), askHost: async () => ({ behavior: 'allow' }) },
    );
    await new Promise((r) => setImmediate(r));
    expect(heard).toHaveLength(1);
  });

  it('a PermissionRequest hook answers the ask before the host is asked', async () => {
    let asked = false;
    const callHost: CallHost = async () => ({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    const hooks = new HookRunner({
      base,
      callHost,
      callbackHooks: { PermissionRequest: [{ hookCallbackIds: ['pr'] }] },
    });
    const { out } = await run(
      { command: 'make' },
      {
        tools: [Shell],
        hooks,
        permissions: perms(),
        askHost: async () => ((asked = true), { behavior: 'deny', message: 'no' }),
      },
    );
    expect(out.toolResult.content).toBe('ran make');
    expect(asked).toBe(false);
  });

  it('PostToolUse gets tool_response and adds context; PostToolUseFailure fires on an error result', async () => {
    const inputs: Array<Record<string, unknown>> = [];
    const callHost: CallHost = async (_id, input) => {
      inputs.push(input as Record<string, unknown>);
      const ev = (input as { hook_event_name: string }).hook_event_name;
      return { hookSpecificOutput: { hookEventName: ev, additionalContext: `${ev} saw it` } };
    };
    const hooks = new HookRunner({
      base,
      callHost,
      callbackHooks: {
        PostToolUse: [{ hookCallbackIds: ['post'] }],
        PostToolUseFailure: [{ hookCallbackIds: ['fail'] }],
      },
    });
    const ok = await run({ command: 'make' }, { tools: [Shell], hooks });
    expect(ok.out.additionalContext).toEqual(['PostToolUse saw it']);
    expect(inputs[0]).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'make' },
      tool_response: { stdout: 'make' },
      tool_use_id: 'tu1',
    });
    const bad = await run({ command: 'fail' }, { tools: [Shell], hooks });
    expect(bad.out.toolResult.is_error).toBe(true);
    expect(bad.out.additionalContext).toEqual(['PostToolUseFailure saw it']);
    expect(inputs[1]).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', is_interrupt: false });
    expect(String(inputs[1].error)).toContain('it failed');
    expect(inputs.length).toBe(2);
  });

  it('a PostToolUse hook with continue:false stops the run after the tool', async () => {
    const s = script('stop.sh', 'echo \'{"continue":false,"stopReason":"enough","systemMessage":"halting"}\'');
    const hooks = new HookRunner({
      base,
      commandHooks: { PostToolUse: [{ hooks: [{ type: 'command', command: s }] }] },
    });
    const messages: string[] = [];
    const { out } = await run({ command: 'make' }, { tools: [Shell], hooks, onSystemMessage: (m) => messages.push(m) });
    expect(out.toolResult.content).toBe('ran make');
    expect(out.stopRun).toEqual({ reason: 'enough' });
    expect(messages).toEqual(['halting']);
  });

  it('invalid input is answered by validation without hooks or asking', async () => {
    let called = false;
    const callHost: CallHost = async () => ((called = true), {});
    const hooks = new HookRunner({ base, callHost, callbackHooks: { PreToolUse: [{ hookCallbackIds: ['x'] }] } });
    const { out } = await run({ cmd: 1 }, { tools: [Shell], hooks, permissions: perms() });
    expect(out.toolResult.is_error).toBe(true);
    expect(called).toBe(false);
  });

  it('an unknown tool is an error result', async () => {
    const gen = runToolUse({ id: 't', name: 'Nope', input: {} }, ctx(), { tools: [Shell] });
    const step = await gen.next();
    expect(step.done && step.value.toolResult.is_error).toBe(true);
  });
});
