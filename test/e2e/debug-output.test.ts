// --debug / --debug-file / --debug-to-stderr: tagged debug lines go to stderr or a file, never stdout.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

const hookSettings = JSON.stringify({
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] },
});

describe('debug output', () => {
  it('--debug writes api, hooks and permissions lines to stderr while stdout stays protocol JSON', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo hi' }), text('done')]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--debug', '--settings', hookSettings, '--allowedTools', 'Bash(echo:*)'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    for (const line of r.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.stdout).not.toContain('[DEBUG]');
    expect(r.stderr).toMatch(/\[DEBUG\] \[api\] request: model \S+, 1 message/);
    expect(r.stderr).toMatch(/\[DEBUG\] \[api\] reply: stop_reason tool_use/);
    expect(r.stderr).toMatch(/\[DEBUG\] \[hooks\] PreToolUse \(Bash\): running matching hooks/);
    expect(r.stderr).toMatch(/\[DEBUG\] \[permissions\] Bash: allow \(allow rule Bash\(echo:\*\)\)/);
  });

  it('a filter picks categories: "api" shows only api lines, "!api" everything else', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'echo hi' }),
      text('done'),
      toolUse('Bash', { command: 'echo hi' }),
      text('done'),
    ]);
    const only = await runAgent({ api, args: ['-p', 'go', '--debug=api', '--allowedTools', 'Bash(echo:*)'] });
    expect(only.stderr).toContain('[api]');
    expect(only.stderr).not.toContain('[permissions]');
    const not = await runAgent({ api, args: ['-p', 'go', '--debug', '!api', '--allowedTools', 'Bash(echo:*)'] });
    expect(not.stderr).toContain('[permissions]');
    expect(not.stderr).not.toContain('[api]');
  });

  it('a mixed filter or an unwritable --debug-file is refused at start with exit 2', async () => {
    const mixed = await runAgent({ args: ['-p', 'go', '--debug=api,!mcp'] });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('mixes included and excluded');
    const bad = await runAgent({ args: ['-p', 'go', '--debug-file', join(tempDir(), 'no', 'such', 'dir', 'log.txt')] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/agent: --debug-file: .*ENOENT/);
  });

  it('the official SDK’s debugFile option sends the lines to that file and none to stderr or stdout', async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    const file = join(tempDir(), 'debug.log');
    writeFileSync(file, '');
    let stderr = '';
    const seen: string[] = [];
    const q = query({
      prompt: 'hello',
      options: sdkOptions(api.url, cwd, { debugFile: file, stderr: (s: string) => (stderr += s) }) as never,
    });
    for await (const m of q) seen.push(JSON.stringify(m));
    expect(seen.some((m) => m.includes('"type":"result"'))).toBe(true);
    expect(seen.join('\n')).not.toContain('[DEBUG]');
    expect(readFileSync(file, 'utf8')).toMatch(/\[DEBUG\] \[api\] request: model/);
    expect(stderr).not.toContain('[DEBUG]');
  });
});
