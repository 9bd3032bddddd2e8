// agentProgressSummaries with the official SDK as host: while a background agent works, a small
// side call forks its conversation and asks for a one-line summary, which arrives as
// task_progress.summary; the call is priced into the session's usage. Without the option, no
// summary call is made.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { startTestApi, tempDir, turns } from './harness.js';
import { collectUntilResults, promptStream, sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent), each with its own API.

const isSummaryAsk = (req: Parameters<typeof firstUserText>[0]) => lastUserText(req).includes('present-tense line');

function script(req: Parameters<typeof firstUserText>[0]): ScriptedReply {
  if (isSummaryAsk(req)) return text('Sleeping through the test', { usage: { output_tokens: 777 } });
  const n = turns(req);
  if (firstUserText(req).startsWith('SUBSUM:')) {
    if (n < 2) return toolUse('Bash', { command: 'sleep 0.8' }, `s${n}`);
    return text('sub finished');
  }
  if (n === 0)
    return toolUse(
      'Agent',
      {
        description: 'Slow work',
        prompt: 'SUBSUM: work slowly',
        subagent_type: 'general-purpose',
        run_in_background: true,
      },
      'task1',
    );
  if (n === 1) return text('started');
  return text('done');
}

async function run(url: string, extra: Record<string, unknown>) {
  const cwd = tempDir();
  const prompts = promptStream();
  const opts = sdkOptions(url, cwd, {
    permissionMode: 'bypassPermissions',
    allowDangerouslySkipPermissions: true,
    ...extra,
  });
  const q = query({
    prompt: prompts as never,
    options: { ...opts, env: { ...opts.env, AGENT_PROGRESS_SUMMARY_INTERVAL_MS: '300' } } as never,
  });
  prompts.push('work');
  return (await collectUntilResults(q, prompts, 2)) as Array<Record<string, any>>;
}

describe.concurrent('agentProgressSummaries through the SDK', () => {
  it('on: task_progress carries the model-written summary before the task ends; the call forks the agent and is priced', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, script);
    const messages = await run(api.url, { agentProgressSummaries: true });
    const progress = messages.filter((m) => m.type === 'system' && m.subtype === 'task_progress' && m.summary);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({
      tool_use_id: 'task1',
      summary: 'Sleeping through the test',
      description: 'Slow work',
    });
    const note = messages.findIndex((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(messages.indexOf(progress[0])).toBeLessThan(note);
    // The fork: the agent's own system prompt and conversation, tools offered but none callable.
    const ask = api.requests.find(isSummaryAsk)!;
    const agentCall = api.requests.find((r) => firstUserText(r).startsWith('SUBSUM:') && !isSummaryAsk(r))!;
    expect(ask.body.system).toEqual(agentCall.body.system);
    expect(ask.body.tool_choice).toEqual({ type: 'none' });
    expect(firstUserText(ask)).toContain('SUBSUM: work slowly');
    // Its 777 output tokens count in the session's usage (the later result carries the agent's usage).
    const results = messages.filter((m) => m.type === 'result');
    expect(results.map((r) => r.result)).toEqual(['started', 'done']);
    expect(results[1].usage.output_tokens).toBeGreaterThanOrEqual(777);
  });

  it('off (the default): no summary call, no summary field', async ({ onTestFinished }) => {
    const api = await startTestApi({ onTestFinished }, script);
    const messages = await run(api.url, {});
    expect(api.requests.filter(isSummaryAsk)).toEqual([]);
    expect(messages.filter((m) => m.type === 'system' && m.subtype === 'task_progress' && m.summary)).toEqual([]);
    expect(messages.some((m) => m.type === 'system' && m.subtype === 'task_notification')).toBe(true);
  });
});
