// Hook lifecycle events as the official SDK sees them (includeHookEvents): hook_started, then
// hook_progress with a running command hook's output so far, then hook_response. SessionStart
// hook runs are reported even without the option, as the SDK documents.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

function projectWithHooks(hooks: Record<string, unknown>): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  writeFileSync(join(cwd, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash'] }, hooks }));
  return cwd;
}

async function collect(q: AsyncIterable<unknown>): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  for await (const m of q) out.push(m as Record<string, any>);
  return out;
}

describe('hook events through the SDK', () => {
  it('includeHookEvents: a slow command hook reports its output while it runs (hook_progress), then its end', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo hi' }, 'b1'), text('done')]);
    const cwd = projectWithHooks({
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo step1; echo warn1 >&2; sleep 1.5; echo step2' }] },
      ],
    });
    const msgs = await collect(
      query({ prompt: 'go', options: sdkOptions(api.url, cwd, { includeHookEvents: true }) as never }),
    );
    const hookLines = msgs.filter((m) => m.type === 'system' && String(m.subtype).startsWith('hook_'));
    const started = hookLines.find((m) => m.subtype === 'hook_started' && m.hook_event === 'PreToolUse');
    expect(started).toBeDefined();
    const progress = hookLines.filter((m) => m.subtype === 'hook_progress' && m.hook_id === started!.hook_id);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // Before the hook ended: the first line, not yet the second.
    expect(progress[0]).toMatchObject({
      hook_name: 'PreToolUse:Bash',
      hook_event: 'PreToolUse',
      stdout: 'step1\n',
      stderr: 'warn1\n',
      output: 'step1\nwarn1\n',
    });
    const response = hookLines.find((m) => m.subtype === 'hook_response' && m.hook_id === started!.hook_id);
    expect(response).toMatchObject({ stdout: 'step1\nstep2\n', outcome: 'success', exit_code: 0 });
    // Order on the wire: started, progress…, response.
    const order = hookLines.filter((m) => m.hook_id === started!.hook_id).map((m) => m.subtype);
    expect(order[0]).toBe('hook_started');
    expect(order.at(-1)).toBe('hook_response');
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('without includeHookEvents: SessionStart hook runs are still reported, other hooks are not', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo hi' }, 'b1'), text('done')]);
    const cwd = projectWithHooks({
      SessionStart: [{ hooks: [{ type: 'command', command: 'echo started-context' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo checked' }] }],
    });
    const msgs = await collect(query({ prompt: 'go', options: sdkOptions(api.url, cwd) as never }));
    const hookLines = msgs.filter((m) => m.type === 'system' && String(m.subtype).startsWith('hook_'));
    expect(hookLines.map((m) => `${m.subtype}:${m.hook_event}`)).toEqual([
      'hook_started:SessionStart',
      'hook_response:SessionStart',
    ]);
    expect(hookLines[1]).toMatchObject({ stdout: 'started-context\n', outcome: 'success' });
  });
});
