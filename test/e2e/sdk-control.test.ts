// The host control surface driven by the official SDK: the lists a host shows its user, task
// control, settings control. bin/agent runs for real against the fake Messages API.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('lists a host shows its user', () => {
  it('supportedAgents and supportedModels come from what the session has', async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'agents', 'linter.md'),
      '---\nname: linter\ndescription: Lints files\nmodel: haiku\n---\nYou lint.\n',
    );
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, {
        agents: { reviewer: { description: 'Reviews code', prompt: 'You review.' } },
      }) as never,
    });
    const agents = await q.supportedAgents();
    expect(agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'general-purpose' }),
        { name: 'linter', description: 'Lints files', model: 'haiku' },
        { name: 'reviewer', description: 'Reviews code' },
      ]),
    );
    const models = await q.supportedModels();
    // The reference's list and order (measured with its supportedModels()).
    expect(models.map((m) => m.value)).toEqual(['default', 'opus', 'fable', 'sonnet', 'haiku']);
    expect(models.find((m) => m.value === 'default')).toMatchObject({
      resolvedModel: 'claude-opus-5-5',
      supportsEffort: true,
      supportedEffortLevels: ['low', 'medium', 'high', 'xhigh', 'max'],
      supportsAdaptiveThinking: true,
    });
    expect(models.find((m) => m.value === 'sonnet')?.description).toContain('$2/$10');
    expect(models.find((m) => m.value === 'opus')?.resolvedModel).toMatch(/^claude-opus/);
    prompts.end();
    for await (const _ of q) void _;
  });
});

describe('task control', () => {
  it('stopTask stops a background shell: task_updated (killed) and task_notification (stopped) follow; an unknown id is an error', async () => {
    api = await startFakeApi((_req, n) => {
      if (n === 0)
        return toolUse('Bash', { command: 'sleep 30', description: 'Long sleep', run_in_background: true }, 'toolu_bg');
      return text(n === 1 ? 'started' : 'noted');
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    prompts.push('run it');
    const seen: Array<Record<string, any>> = [];
    let stopped = false;
    for await (const m of q) {
      seen.push(m as never);
      if (m.type === 'system' && m.subtype === 'task_started' && !stopped) {
        stopped = true;
        await expect(q.stopTask('no-such-task')).rejects.toThrow(/no task with id no-such-task/);
        await q.stopTask((m as { task_id: string }).task_id);
      }
      if (m.type === 'system' && m.subtype === 'task_notification') prompts.end();
    }
    const updated = seen.find((m) => m.type === 'system' && m.subtype === 'task_updated');
    expect(updated).toMatchObject({ patch: { status: 'killed', end_time: expect.any(Number) } });
    expect(seen.find((m) => m.type === 'system' && m.subtype === 'task_notification')).toMatchObject({
      status: 'stopped',
    });
  });
});
