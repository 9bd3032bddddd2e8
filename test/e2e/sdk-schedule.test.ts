// The official SDK as host, with a streaming-input prompt: a cron job the model scheduled fires as
// a turn of its own, with its own result, while the host keeps the input open; after the host ends
// the input, nothing more fires. Cron counts in minutes: the test waits up to about a minute.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { resultsById, startFakeApi, tempDir } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

describe('official SDK as host: scheduled prompts', () => {
  it('a CronCreate job fires into the session as a turn with its own result; ending the input ends it', async () => {
    const api = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (resultsById(req).cron) return text('scheduled');
      if (resultsById(req).del) return text('tick handled, job deleted');
      if (resultsById(req).list) {
        const id = /^([0-9a-f]{8}) — /.exec(resultsById(req).list.text)![1];
        return toolUse('CronDelete', { id }, 'del');
      }
      if (said.includes('SDK TICK')) return toolUse('CronList', {}, 'list');
      return toolUse('CronCreate', { cron: '* * * * *', prompt: 'SDK TICK' }, 'cron');
    });
    try {
      const prompts = promptStream();
      const q = query({ prompt: prompts as never, options: sdkOptions(api.url, tempDir()) as never });
      prompts.push('check something every minute');
      const messages: SDKMessage[] = [];
      let results = 0;
      for await (const m of q) {
        messages.push(m);
        if (m.type === 'result' && ++results === 2) prompts.end();
      }
      const results2 = messages.filter((m) => m.type === 'result') as Array<SDKMessage & { result?: string }>;
      expect(results2.map((r) => r.result)).toEqual(['scheduled', 'tick handled, job deleted']);
      const created = messages.find(
        (m) =>
          m.type === 'user' && (m as { tool_use_result?: { humanSchedule?: string } }).tool_use_result?.humanSchedule,
      ) as { tool_use_result: Record<string, unknown> } | undefined;
      expect(created?.tool_use_result).toMatchObject({ humanSchedule: 'Every minute', recurring: true });
      const fired = api.requests.filter((r) => r.body?.tools && lastUserText(r) === 'SDK TICK');
      expect(fired.length).toBeGreaterThanOrEqual(1);
    } finally {
      await api.close();
    }
  }, 120_000);
});
