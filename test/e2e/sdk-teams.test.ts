// The official SDK as host with a string prompt: it closes our stdin after the first result
// (isSingleUserTurn). A teammate still at work must not be lost: its message reaches the lead, the
// consumer sees the lead's second result before the iterator ends.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { startFakeApi, tempDir, turns, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('official SDK as host: agent teams', () => {
  it('string prompt: the teammate works on after the first result, its message reaches the lead, and the second result comes before the iterator ends', async () => {
    api = await startFakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (firstUserText(req).startsWith('<teammate-message teammate_id="team-lead"')) {
        if (n === 0) return toolUse('Bash', { command: 'sleep 1; echo measured' });
        if (n === 1)
          return toolUse('SendMessage', { to: 'team-lead', message: 'the build takes 41 s', summary: 'timing' });
        return text('reported');
      }
      if (n === 0)
        return toolUse(
          'Agent',
          { name: 'timer', description: 'Time the build', prompt: 'time the build', subagent_type: 'general-purpose' },
          'toolu_sdk_team',
        );
      if (n === 1) return text('the timer is on it');
      if (lastUserText(req).includes('You MUST shut down your team')) return text('the team is wound up');
      if (lastUserText(req).includes('the build takes 41 s')) return text('the build takes 41 s, says the timer');
      return text('noted');
    });
    const q = query({
      prompt: 'time the build with a teammate',
      options: sdkOptions(api.url, tempDir(), {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    const messages: SDKMessage[] = [];
    for await (const m of q) messages.push(m);
    const results = messages.filter((m): m is Extract<SDKMessage, { type: 'result' }> => m.type === 'result');
    expect(results[0]).toMatchObject({ subtype: 'success', result: 'the timer is on it' });
    const texts = results.map((r) => (r.subtype === 'success' ? r.result : r.subtype));
    expect(texts).toContain('the build takes 41 s, says the timer');
    // The order on stdin EOF: the teammate finishes, its message reaches the lead, and only then
    // the lead's one shutdown turn, whose prompt carries nothing else.
    expect(texts.filter((t) => t === 'the team is wound up')).toHaveLength(1);
    expect(texts.indexOf('the build takes 41 s, says the timer')).toBeLessThan(texts.indexOf('the team is wound up'));
    const leadPrompts = api.requests.filter((r) => !firstUserText(r).startsWith('<teammate-message')).map(lastUserText);
    const wrapUp = leadPrompts.findIndex((t) => t.includes('You MUST shut down your team'));
    expect(leadPrompts.findIndex((t) => t.includes('the build takes 41 s'))).toBeLessThan(wrapUp);
    expect(leadPrompts[wrapUp]).not.toContain('<teammate-message');
    expect(new Set(results.map((r) => r.session_id)).size).toBe(1);
    // The teammate's messages came through, tagged with the Agent call that spawned it.
    const mate = messages.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_sdk_team');
    expect(mate.length).toBeGreaterThanOrEqual(3);
    const note = messages.find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({ tool_use_id: 'toolu_sdk_team', status: 'completed' });
  });
});
