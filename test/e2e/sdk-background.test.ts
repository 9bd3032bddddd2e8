// The official SDK as host, with a streaming-input prompt: a background subagent's notification
// arrives after the first result and the session goes on to a second result, as a host sees it.
import { query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { AGENT_BIN, startFakeApi, tempDir, type FakeApi } from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function promptStream() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  return {
    push(t: string) {
      queue.push({ type: 'user', session_id: '', parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'text', text: t }] } });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (done) return;
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}

function turns(req: RecordedRequest): number {
  return (req.body.messages ?? []).filter((m: any) => m.role === 'assistant').length;
}

describe('official SDK as host: background work', () => {
  it('streaming input: a background subagent reports through task_notification between two results', async () => {
    let notified = '';
    api = await startFakeApi((req): ScriptedReply => {
      if (firstUserText(req).startsWith('SUBBG:')) return { ...text('the answer is 7'), delayMs: 600 };
      const n = turns(req);
      if (n === 0)
        return toolUse('Agent', { description: 'Find the answer', prompt: 'SUBBG: find it', subagent_type: 'general-purpose', run_in_background: true }, 'toolu_sdk_bg');
      if (n === 1) return text('working on it in the background');
      notified = lastUserText(req);
      return text('the background agent says 7');
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: {
        pathToClaudeCodeExecutable: AGENT_BIN,
        cwd,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test', CLAUDE_CONFIG_DIR: tempDir('agent-sdk-config-') },
        stderr: (s: string) => process.stderr.write(`[agent stderr] ${s}`),
      } as never,
    });
    prompts.push('find the answer in the background');
    const messages: SDKMessage[] = [];
    let results = 0;
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result' && ++results === 2) prompts.end();
    }
    const kinds = messages.map((m) => (m.type === 'system' ? `system/${m.subtype}` : m.type));
    const firstResult = kinds.indexOf('result');
    const lastResult = kinds.lastIndexOf('result');
    const noteAt = kinds.indexOf('system/task_notification');
    expect(firstResult).toBeGreaterThan(-1);
    expect(lastResult).toBeGreaterThan(firstResult);
    expect(noteAt).toBeGreaterThan(firstResult);
    expect(noteAt).toBeLessThan(lastResult);
    expect(kinds.indexOf('system/task_started')).toBeLessThan(firstResult);

    const note = messages[noteAt] as Extract<SDKMessage, { subtype: 'task_notification' }>;
    expect(note).toMatchObject({ tool_use_id: 'toolu_sdk_bg', status: 'completed', summary: 'the answer is 7' });
    expect(typeof note.output_file).toBe('string');
    const sub = messages.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_sdk_bg');
    expect(sub).toHaveLength(1);
    expect(messages[firstResult]).toMatchObject({ subtype: 'success', result: 'working on it in the background' });
    expect(messages[lastResult]).toMatchObject({ subtype: 'success', result: 'the background agent says 7' });
    expect(notified).toContain(`<task-id>${note.task_id}</task-id>`);
  });

  it('string prompt (the SDK closes stdin after the first result): the background task still finishes and is reported', async () => {
    api = await startFakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (n === 0) return toolUse('Bash', { command: 'sleep 0.5; echo bg-out', description: 'Late echo', run_in_background: true }, 'toolu_sdk_sh');
      if (n === 1) return text('launched');
      return text('noted');
    });
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'launch it',
      options: {
        pathToClaudeCodeExecutable: AGENT_BIN,
        cwd: tempDir(),
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        env: { ...process.env, ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test', CLAUDE_CONFIG_DIR: tempDir('agent-sdk-config-') },
      } as never,
    });
    for await (const m of q) messages.push(m);
    const note = messages.find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({ tool_use_id: 'toolu_sdk_sh', status: 'completed', summary: 'Background command "Late echo" completed (exit code 0)' });
    expect(messages.filter((m) => m.type === 'result').length).toBeGreaterThanOrEqual(1);
  });
});
