import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { resultsById, runAgent, startFakeApi, tempDir, writeJson, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

describe('settings env', () => {
  it('sets the variables of the user settings `env` key for the session and its children', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'echo "teams=$CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS x=$FROM_PROJECT"' }, 'b1'),
      text('done'),
    ]);
    const config = tempDir('agent-config-');
    const cwd = tempDir();
    writeJson(join(config, 'settings.json'), {
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', FROM_PROJECT: 'user' },
    });
    writeJson(join(cwd, '.claude', 'settings.json'), {
      env: { FROM_PROJECT: 'project' },
      permissions: { allow: ['Bash'] },
    });
    const r = await runAgent({ api, cwd, args: ['-p', 'go'], env: { CLAUDE_CONFIG_DIR: config } });
    expect(r.code).toBe(0);
    // The project file wins over the user file for the same name.
    expect(resultsById(api.requests[1]).b1.text).toContain('teams=1 x=project');
  });

  it('refuses an env value that is not a string, naming the file and key', async () => {
    const cwd = tempDir();
    writeJson(join(cwd, '.claude', 'settings.json'), { env: { N: 3 } });
    const r = await runAgent({ cwd, args: ['-p', 'go'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/settings\.json: env\.N must be a string/);
  });
});

describe('managed settings', () => {
  it('--managed-settings wins over every other source', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'echo "who=$WHO"' }, 'b1'),
      toolUse('Bash', { command: 'rm -rf nothing' }, 'b2'),
      text('done'),
    ]);
    const cwd = tempDir();
    writeJson(join(cwd, '.claude', 'settings.json'), { permissions: { allow: ['Bash'] }, env: { WHO: 'project' } });
    const managed = JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] }, env: { WHO: 'policy' } });
    const r = await runAgent({
      api,
      cwd,
      args: ['-p', 'go', '--managed-settings', managed, '--settings', '{"env":{"WHO":"flag"}}'],
    });
    expect(r.code).toBe(0);
    expect(resultsById(api.requests[1]).b1.text).toContain('who=policy');
    expect(resultsById(api.requests[2]).b2.isError).toBe(true);
  });

  it('the managed settings file can forbid bypassPermissions', async () => {
    const dir = tempDir();
    const file = join(dir, 'managed-settings.json');
    writeJson(file, { permissions: { disableBypassPermissionsMode: 'disable' } });
    const r = await runAgent({
      args: ['-p', 'go', '--dangerously-skip-permissions'],
      env: { AGENT_MANAGED_SETTINGS_FILE: file },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bypassPermissions is disabled by the managed settings/);
  });
});

describe('--project-config-root', () => {
  it('reads the project settings from that directory, not the working directory', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo "where=$WHERE"' }, 'b1'), text('done')]);
    const cwd = tempDir();
    const root = tempDir('agent-root-');
    writeJson(join(cwd, '.claude', 'settings.json'), { env: { WHERE: 'cwd' } });
    writeJson(join(root, '.claude', 'settings.json'), { env: { WHERE: 'root' }, permissions: { allow: ['Bash'] } });
    const r = await runAgent({ api, cwd, args: ['-p', 'go', '--project-config-root', root] });
    expect(r.code).toBe(0);
    expect(resultsById(api.requests[1]).b1.text).toContain('where=root');
  });
});

describe('--include-hook-events', () => {
  it('emits hook_started and hook_response for each command hook run, and nothing without the flag', async () => {
    const cwd = tempDir();
    writeJson(join(cwd, '.claude', 'settings.json'), {
      permissions: { allow: ['Bash'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo checked; echo note >&2' }] }],
      },
    });
    for (const flag of [true, false]) {
      api = await startFakeApi([toolUse('Bash', { command: 'echo hi' }, 'b1'), text('done')]);
      const r = await runAgent({
        api,
        cwd,
        args: ['-p', 'go', '--output-format', 'stream-json', '--verbose', ...(flag ? ['--include-hook-events'] : [])],
      });
      expect(r.code).toBe(0);
      const lines = r.json().filter((m) => m.type === 'system' && String(m.subtype).startsWith('hook_'));
      if (!flag) {
        expect(lines).toEqual([]);
        break;
      }
      const started = lines.find((m) => m.subtype === 'hook_started');
      expect(started).toMatchObject({
        hook_event: 'PreToolUse',
        hook_name: 'PreToolUse:Bash',
        hook_id: expect.any(String),
      });
      expect(lines.find((m) => m.subtype === 'hook_response')).toMatchObject({
        hook_id: started!.hook_id,
        hook_event: 'PreToolUse',
        stdout: 'checked\n',
        stderr: 'note\n',
        exit_code: 0,
        outcome: 'success',
      });
      await api.close();
    }
  });
});
