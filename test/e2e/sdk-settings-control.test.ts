// apply_flag_settings and update_settings driven by the official SDK (applyFlagSettings,
// updateSettings) against bin/agent and the fake Messages API.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { resultsById, startFakeApi, tempDir, writeJson, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

/** Each prompt makes the model run `mkdir -v run<n>` in Bash (not read-only: it is asked about), then answer. */
function echoEachPrompt() {
  return startFakeApi((_req, n) =>
    n % 2 === 0 ? toolUse('Bash', { command: `mkdir -v run${n / 2}` }, `b${n / 2}`) : text('ok'),
  );
}

describe('apply_flag_settings', () => {
  it('re-applies permission rules to the live session; null removes them; managed deny still wins; unknown keys are refused by name', async () => {
    api = await echoEachPrompt();
    const cwd = tempDir();
    const managed = join(tempDir(), 'managed.json');
    writeJson(managed, { permissions: { deny: ['Bash(mkdir -v run2)'] } });
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, { extraArgs: { 'managed-settings': managed } }) as never,
    });
    const results: Array<Record<string, any>> = [];
    const next = async (prompt: string) => {
      prompts.push(prompt);
      for (;;) {
        const { value } = await q.next();
        if ((value as any)?.type === 'result') return results.push(value as never);
      }
    };
    // No rule yet: Bash would need to ask, and no one can answer → denied.
    await next('zero');
    await q.applyFlagSettings({ permissions: { allow: ['Bash(mkdir:*)'] } });
    await next('one');
    // The managed deny rule beats the flag layer's allow.
    await next('two');
    await q.applyFlagSettings({ permissions: null } as never);
    await next('three');
    await expect(q.applyFlagSettings({ fastMode: true } as never)).rejects.toThrow(
      /fastMode cannot be applied to a running session/,
    );
    await expect(q.applyFlagSettings({ permissions: { allow: ['Bash(('] } })).rejects.toThrow();
    prompts.end();
    for await (const _ of q) void _;
    const byPrompt = (i: number) => resultsById(api!.requests[i * 2 + 1]!)[`b${i}`]!;
    expect(byPrompt(0).isError).toBe(true);
    expect(byPrompt(1)).toMatchObject({ text: expect.stringContaining('run1'), isError: false });
    expect(byPrompt(2).isError).toBe(true);
    expect(byPrompt(2).text).toContain('Bash(mkdir -v run2)');
    expect(byPrompt(3).isError).toBe(true);
  });

  it('model and permissions.defaultMode take effect for the next turn', async () => {
    api = await startFakeApi((_req, n) =>
      n === 1 ? toolUse('Write', { file_path: join(cwd, 'a.txt'), content: 'hi' }, 'w1') : text('ok'),
    );
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd) as never });
    prompts.push('first');
    for await (const m of q) {
      if (m.type !== 'result') continue;
      if (api.requests.length === 1) {
        await q.applyFlagSettings({ model: 'haiku', permissions: { defaultMode: 'acceptEdits' } });
        prompts.push('second');
      } else prompts.end();
    }
    expect(api.requests[0]!.body.model).toBe('claude-opus-5-5');
    expect(api.requests[1]!.body.model).toMatch(/^claude-haiku/);
    expect(resultsById(api.requests[2]!).w1).toMatchObject({ isError: false });
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('hi');
  });
});

describe('update_settings', () => {
  it('merges allowlisted keys into the named file atomically; a saved effort is what the next session uses; the rest is refused', async () => {
    api = await startFakeApi([text('ok'), text('ok')]);
    const cwd = tempDir();
    const config = tempDir('agent-config-');
    writeJson(join(cwd, '.claude', 'settings.local.json'), { permissions: { allow: ['Read'] } });
    const opts = (extra: Record<string, unknown> = {}) => {
      const base = sdkOptions(api!.url, cwd, extra) as Record<string, any>;
      return { ...base, env: { ...base.env, CLAUDE_CONFIG_DIR: config } };
    };
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: opts() as never });
    await q.updateSettings('localSettings', { outputStyle: 'default' });
    await q.updateSettings('userSettings', { effortLevel: 'high' });
    await expect(q.updateSettings('localSettings', { permissions: { allow: ['Bash'] } })).rejects.toThrow(
      /permissions cannot be written to localSettings \(allowed: outputStyle\)/,
    );
    await expect(q.updateSettings('userSettings', { effortLevel: 'max' })).rejects.toThrow(/session-only/);
    await expect(q.updateSettings('localSettings', { outputStyle: 'Pirate' })).rejects.toThrow(
      /no output style "Pirate"/,
    );
    prompts.push('hi');
    prompts.end();
    for await (const _ of q) void _;
    expect(JSON.parse(readFileSync(join(cwd, '.claude', 'settings.local.json'), 'utf8'))).toEqual({
      permissions: { allow: ['Read'] },
      outputStyle: 'default',
    });
    const user = JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8'));
    expect(user).toEqual({ modelSettings: { [api.requests[0]!.body.model]: { effortLevel: 'high' } } });
    expect(readdirSync(join(cwd, '.claude')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // The next session without --effort takes the saved default.
    const again = query({ prompt: 'again', options: opts() as never });
    for await (const _ of again) void _;
    expect(api.requests[1]!.body.output_config).toEqual({ effort: 'high' });
  });

  it('is refused for a file the session does not load', async () => {
    api = await startFakeApi([text('ok')]);
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, tempDir(), { settingSources: ['project'] }) as never,
    });
    await expect(q.updateSettings('localSettings', { outputStyle: 'default' })).rejects.toThrow(
      /--setting-sources excludes local/,
    );
    prompts.end();
    for await (const _ of q) void _;
  });
});
