// The official SDK as host, with a streaming-input prompt: a background subagent's notification
// arrives after the first result and the session goes on to a second result, as a host sees it.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { startFakeApi, tempDir, turns, type FakeApi } from './harness.js';
import { collectUntilResults, promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('official SDK as host: background work', () => {
  it('streaming input: a background subagent reports through task_notification between two results', async () => {
    let notified = '';
    api = await startFakeApi((req): ScriptedReply => {
      if (firstUserText(req).startsWith('SUBBG:')) return { ...text('the answer is 7'), delayMs: 600 };
      const n = turns(req);
      if (n === 0)
        return toolUse(
          'Agent',
          {
            description: 'Find the answer',
            prompt: 'SUBBG: find it',
            subagent_type: 'general-purpose',
            run_in_background: true,
          },
          'toolu_sdk_bg',
        );
      if (n === 1) return text('working on it in the background');
      notified = lastUserText(req);
      return text('the background agent says 7');
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        // Its one text reply is sent only when asked for (the SDK's default is off).
        forwardSubagentText: true,
      }) as never,
    });
    prompts.push('find the answer in the background');
    const messages = await collectUntilResults(q, prompts, 2);
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
      if (n === 0)
        return toolUse(
          'Bash',
          { command: 'sleep 0.5; echo bg-out', description: 'Late echo', run_in_background: true },
          'toolu_sdk_sh',
        );
      if (n === 1) return text('launched');
      return text('noted');
    });
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'launch it',
      options: sdkOptions(api.url, tempDir(), {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    for await (const m of q) messages.push(m);
    const note = messages.find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({
      tool_use_id: 'toolu_sdk_sh',
      status: 'completed',
      summary: 'Background command "Late echo" completed (exit code 0)',
    });
    expect(messages.filter((m) => m.type === 'result').length).toBeGreaterThanOrEqual(1);
  });
});
