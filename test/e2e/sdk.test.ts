// The official Claude Agent SDK as the host: if its query() works against bin/agent, real hosts will.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { alive, waitForFile, waitUntil } from '../processes.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('official SDK as host', () => {
  it('string prompt: a tool call and an answer come through query()', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      toolUse('Write', { file_path: join(cwd, 'hello.txt'), content: 'hi there\n' }),
      text('Wrote it.'),
    ]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'write hello.txt',
      options: sdkOptions(api.url, cwd, { permissionMode: 'acceptEdits' }) as never,
    });
    for await (const m of q) messages.push(m);
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init).toMatchObject({ cwd, permissionMode: 'acceptEdits' });
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'Wrote it.', is_error: false });
    expect(messages.filter((m) => m.type === 'assistant')).toHaveLength(2);
    expect(readFileSync(join(cwd, 'hello.txt'), 'utf8')).toBe('hi there\n');
    expect(api.requests).toHaveLength(2);
  });

  it('streaming input: two prompts, two results, one session', async () => {
    api = await startFakeApi([text('first'), text('second')]);
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd) as never });
    prompts.push('one');
    const results: string[] = [];
    const sessions = new Set<string>();
    for await (const m of q) {
      if (m.type === 'result') {
        results.push((m as { result: string }).result);
        sessions.add(m.session_id);
        if (results.length === 1) prompts.push('two');
        else prompts.end();
      }
    }
    expect(results).toEqual(['first', 'second']);
    expect(sessions.size).toBe(1);
  });

  it('interrupt() stops a running tool and yields an error result; the session answers again', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'sleep 30 & echo $! > sleeper.pid; wait' }),
      text('after the interrupt'),
    ]);
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    prompts.push('sleep');
    const results: Array<Record<string, unknown>> = [];
    let interruptedAt = 0;
    const pidFile = join(cwd, 'sleeper.pid');
    const watcher = (async () => {
      await waitForFile(pidFile, 30_000);
      interruptedAt = Date.now();
      await q.interrupt();
    })();
    for await (const m of q) {
      if (m.type === 'result') {
        results.push(m as never);
        if (results.length === 1) {
          expect(Date.now() - interruptedAt).toBeLessThan(2000);
          prompts.push('still there?');
        } else prompts.end();
      }
    }
    await watcher;
    expect(results[0]).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(results[1]).toMatchObject({ subtype: 'success', result: 'after the interrupt' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitUntil(() => !alive(pid), 2000, 20);
    expect(alive(pid)).toBe(false);
  });
});
