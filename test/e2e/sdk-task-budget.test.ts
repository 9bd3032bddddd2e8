// The SDK's taskBudget option (--task-budget): every main-thread request carries
// output_config.task_budget under the task-budgets beta header, which the fake API checks as the
// real one does; a subagent's requests do not (it is a task of its own).
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('task budget', () => {
  it("taskBudget through the SDK: each main request has output_config.task_budget and the beta header; the subagent's have neither", async () => {
    api = await startFakeApi((req) => {
      const sys = JSON.stringify(req.body.system ?? '');
      const last = JSON.stringify(req.body.messages.at(-1));
      if (sys.includes('Count files')) return text('sub done');
      if (last.includes('tool_result')) return text('all done');
      return toolUse(
        'Task',
        { description: 'count', prompt: 'Count files', subagent_type: 'general-purpose' },
        'task1',
      );
    });
    const cwd = tempDir();
    const msgs: Array<Record<string, any>> = [];
    for await (const m of query({
      prompt: 'go',
      options: sdkOptions(api.url, cwd, {
        taskBudget: { total: 64000 },
        agents: { 'general-purpose': { description: 'any task', prompt: 'Count files when asked.' } },
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    }))
      msgs.push(m as never);
    expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'all done' });
    const main = api.requests.filter((r) => !JSON.stringify(r.body.system ?? '').includes('Count files'));
    const sub = api.requests.filter((r) => JSON.stringify(r.body.system ?? '').includes('Count files'));
    expect(main.length).toBe(2);
    expect(sub.length).toBe(1);
    for (const r of main) {
      expect(r.body.output_config.task_budget).toEqual({ type: 'tokens', total: 64000 });
      expect(String(r.headers['anthropic-beta'])).toContain('task-budgets-2026-03-13');
    }
    expect(sub[0].body.output_config?.task_budget).toBeUndefined();
  });

  it('--task-budget keeps the other betas; a bad value exits 2 naming the flag', async () => {
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({ api, args: ['-p', 'q', '--task-budget', '20000', '--betas', 'other-beta-2025-01-01'] });
    expect(r.code).toBe(0);
    expect(String(api.requests[0].headers['anthropic-beta']).split(',')).toEqual([
      'other-beta-2025-01-01',
      'task-budgets-2026-03-13',
    ]);
    const bad = await runAgent({ args: ['-p', 'q', '--task-budget', '0'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--task-budget must be at least 1/);
  });
});
