// Foreground subagents as task rows, with the official SDK as host: a Task/Agent call without
// run_in_background announces its task (task_started, is_backgrounded false), reports progress
// while it runs, and closes its row (task_updated, task_notification) before the call's result;
// it never joins background_tasks_changed. stopTask() stops one from its row while the turn goes
// on, and agentProgressSummaries reach foreground agents too.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { alive, hasText, waitUntil } from '../processes.js';
import { calls, resultsById, resultText, startTestApi, tempDir, turns } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent), each with its own API.

const bypass = { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true };
type Msg = Record<string, any>;
const isTask = (m: Msg) => m.type === 'system' && typeof m.subtype === 'string' && m.subtype.startsWith('task_');

/** One prompt through query() until its result; every message, plus the query for control calls. */
async function runOne(
  url: string,
  cwd: string,
  prompt: string,
  extra: { options?: Record<string, unknown>; env?: Record<string, string> },
  onMessage?: (m: Msg, q: ReturnType<typeof query>) => Promise<void>,
) {
  const prompts = promptStream();
  const opts = sdkOptions(url, cwd, { ...bypass, ...extra.options });
  const q = query({ prompt: prompts as never, options: { ...opts, env: { ...opts.env, ...extra.env } } as never });
  prompts.push(prompt);
  const messages: Msg[] = [];
  for await (const m of q as AsyncIterable<SDKMessage>) {
    const msg = m as Msg;
    messages.push(msg);
    await onMessage?.(msg, q);
    if (msg.type === 'result') prompts.end();
  }
  return messages;
}

describe.concurrent('foreground subagents as tasks through the SDK', () => {
  it('two Agent calls in one turn: two rows open together, each with its lines in order and its own id, closed before its call result; none in background_tasks_changed', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req: RecordedRequest): ScriptedReply => {
      const n = turns(req);
      const first = firstUserText(req);
      if (first.startsWith('SUBA:') || first.startsWith('SUBB:')) {
        const me = first.slice(3, 4);
        if (n === 0) return toolUse('Bash', { command: `sleep 0.3; echo ${me}-done` }, `bash${me}`);
        return text(
          `${me} reports ${resultText(lastToolResults(req)[0]?.content).includes(`${me}-done`) ? 'ok' : 'nothing'}`,
        );
      }
      if (n === 0)
        return calls([
          ['Agent', { description: 'Part A', prompt: 'SUBA: do a', subagent_type: 'general-purpose' }, 'callA'],
          ['Task', { description: 'Part B', prompt: 'SUBB: do b', subagent_type: 'Explore' }, 'callB'],
        ]);
      return text('both done');
    });
    const messages = await runOne(api.url, tempDir(), 'split the work', {});
    expect(messages.filter((m) => m.type === 'result').map((m) => m.result)).toEqual(['both done']);
    expect(messages.filter((m) => m.type === 'system' && m.subtype === 'background_tasks_changed')).toEqual([]);
    const rows = messages.filter(isTask);
    // Both open before either closes: they run at the same time.
    const lastStart = Math.max(...rows.filter((m) => m.subtype === 'task_started').map((m) => messages.indexOf(m)));
    const firstEnd = Math.min(...rows.filter((m) => m.subtype === 'task_updated').map((m) => messages.indexOf(m)));
    expect(lastStart).toBeLessThan(firstEnd);
    const ids = new Set<string>();
    for (const [call, desc, type, prompt, answer] of [
      ['callA', 'Part A', 'general-purpose', 'SUBA: do a', 'A reports ok'],
      ['callB', 'Part B', 'Explore', 'SUBB: do b', 'B reports ok'],
    ]) {
      const started = rows.find((m) => m.subtype === 'task_started' && m.tool_use_id === call)!;
      expect(started).toMatchObject({
        task_type: 'local_agent',
        description: desc,
        subagent_type: type,
        is_backgrounded: false,
        spawn_depth: 1,
        prompt,
      });
      const id = started.task_id;
      ids.add(id);
      const mine = rows.filter((m) => m.task_id === id);
      expect(mine.map((m) => m.subtype)).toEqual([
        'task_started',
        'task_progress',
        'task_progress',
        'task_updated',
        'task_notification',
      ]);
      expect(mine[1]).toMatchObject({ tool_use_id: call, last_tool_name: 'Bash', usage: { tool_uses: 1 } });
      expect(mine[3].patch).toEqual({ status: 'completed', end_time: expect.any(Number) });
      expect(mine[4]).toMatchObject({
        tool_use_id: call,
        status: 'completed',
        summary: answer,
        usage: { tool_uses: 1 },
      });
      expect(readFileSync(mine[4].output_file, 'utf8')).toContain(answer);
      const sub = messages.filter((m) => m.parent_tool_use_id === call);
      const callResult = messages.find(
        (m) => m.type === 'user' && m.parent_tool_use_id === null && m.message.content[0].tool_use_id === call,
      )!;
      expect(messages.indexOf(started)).toBeLessThan(messages.indexOf(sub[0]));
      expect(messages.indexOf(mine[4])).toBeGreaterThan(messages.indexOf(sub.at(-1)!));
      expect(messages.indexOf(mine[4])).toBeLessThan(messages.indexOf(callResult));
      expect(callResult.tool_use_result).toMatchObject({ status: 'completed', agentId: id });
    }
    expect(ids.size).toBe(2);
  });

  it('stopTask() on a foreground agent stops it from its row: its Bash group dies, the call returns "was stopped", the turn goes on; the row ends stopped', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const api = await startTestApi({ onTestFinished }, (req: RecordedRequest): ScriptedReply => {
      if (firstUserText(req).startsWith('SUBSLEEP:'))
        return toolUse('Bash', { command: 'sleep 30 & echo $! > sub.pid; wait' }, 'sleepy');
      return turns(req) === 0
        ? toolUse(
            'Agent',
            { description: 'Sleeper', prompt: 'SUBSLEEP: sleep', subagent_type: 'general-purpose' },
            'call1',
          )
        : text('went on without it');
    });
    let pid = 0;
    let stopped = false;
    const messages = await runOne(api.url, cwd, 'sleep in an agent', {}, async (m, q) => {
      if (m.type === 'system' && m.subtype === 'task_started' && !stopped) {
        stopped = true;
        expect(await waitUntil(() => hasText(join(cwd, 'sub.pid')), 10_000)).toBe(true);
        pid = Number(readFileSync(join(cwd, 'sub.pid'), 'utf8'));
        expect(alive(pid)).toBe(true);
        await q.stopTask(m.task_id);
        // A stopped task cannot be stopped again.
        await expect(q.stopTask(m.task_id)).rejects.toThrow(/is not running/);
      }
    });
    expect(stopped).toBe(true);
    expect(await waitUntil(() => !alive(pid))).toBe(true);
    const call = resultsById(
      api.requests.find((r) => !firstUserText(r).startsWith('SUBSLEEP:') && turns(r) === 1)!,
    ).call1;
    expect(call).toMatchObject({ isError: true });
    expect(call.text).toContain('Agent "Sleeper" was stopped');
    const result = messages.find((m) => m.type === 'result')!;
    expect(result).toMatchObject({ subtype: 'success', result: 'went on without it' });
    const rows = messages.filter(isTask);
    expect(rows.find((m) => m.subtype === 'task_updated')!.patch).toMatchObject({ status: 'killed' });
    expect(rows.find((m) => m.subtype === 'task_notification')).toMatchObject({
      tool_use_id: 'call1',
      status: 'stopped',
      summary: 'Agent "Sleeper" was stopped',
    });
  });

  it("agentProgressSummaries: a foreground agent's task_progress carries the model-written line before its row closes; its cost is in the turn's result", async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req: RecordedRequest): ScriptedReply => {
      if (lastUserText(req).includes('present-tense line'))
        return text('Sleeping in the foreground', { usage: { output_tokens: 555 } });
      const n = turns(req);
      if (firstUserText(req).startsWith('SUBFG:'))
        return n < 2 ? toolUse('Bash', { command: 'sleep 0.8' }, `s${n}`) : text('fg finished');
      return n === 0
        ? toolUse('Agent', { description: 'Slow fg', prompt: 'SUBFG: work', subagent_type: 'general-purpose' }, 'fg1')
        : text('all done');
    });
    const messages = await runOne(api.url, tempDir(), 'work', {
      options: { agentProgressSummaries: true },
      env: { AGENT_PROGRESS_SUMMARY_INTERVAL_MS: '300' },
    });
    const rows = messages.filter(isTask);
    expect(rows[0]).toMatchObject({ subtype: 'task_started', is_backgrounded: false, tool_use_id: 'fg1' });
    const summaries = rows.filter((m) => m.subtype === 'task_progress' && m.summary);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries[0]).toMatchObject({
      task_id: rows[0].task_id,
      summary: 'Sleeping in the foreground',
      description: 'Slow fg',
    });
    expect(messages.indexOf(summaries[0])).toBeLessThan(
      messages.indexOf(rows.find((m) => m.subtype === 'task_notification')!),
    );
    const results = messages.filter((m) => m.type === 'result');
    expect(results.map((r) => r.result)).toEqual(['all done']);
    expect(results[0].usage.output_tokens).toBeGreaterThanOrEqual(555);
  });
});
