// Query.backgroundTasks() (the background_tasks control request) with the official SDK as host:
// a running foreground Bash call or subagent moves to the background — its blocking call returns
// at once with a "moved to the background" result, the turn goes on, and the work keeps running
// until its task_notification, which brings the model back for another result.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { resultsById, startTestApi, tempDir, turns } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent), each with its own API.

const bypass = { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true };

/** Ask until the call is in the foreground (it starts a moment after its tool_use is seen). */
async function backgroundWhenRunning(q: ReturnType<typeof query>, toolUseId?: string): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    if (await q.backgroundTasks(toolUseId)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe.concurrent('background_tasks through the SDK', () => {
  it('a foreground Bash call: moved by tool_use id, the turn answers before it ends, then its notification brings a second result', async ({
    onTestFinished,
  }) => {
    let notified = '';
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (n === 0)
        return toolUse('Bash', { command: 'echo before; sleep 1.5; echo after', description: 'Slow echo' }, 'b1');
      if (n === 1) return text('it runs in the background');
      notified = lastUserText(req);
      return text('it finished');
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd, bypass) as never });
    prompts.push('run it');
    const messages: Array<Record<string, any>> = [];
    let results = 0;
    let outputAtFirstResult = '';
    let started: Record<string, any> | undefined;
    for await (const m of q as AsyncIterable<SDKMessage>) {
      const msg = m as Record<string, any>;
      messages.push(msg);
      if (msg.type === 'assistant' && msg.message.content.some((b: any) => b.type === 'tool_use' && b.id === 'b1')) {
        // Asked by an id no call has: false, nothing moves.
        expect(await q.backgroundTasks('toolu_nothing')).toBe(false);
        expect(await backgroundWhenRunning(q, 'b1')).toBe(true);
      }
      if (msg.type === 'system' && msg.subtype === 'task_started') started = msg;
      if (msg.type === 'result' && ++results === 1) {
        const file = /output is being written to: (\S+)\./.exec(resultsById(api.requests[1]).b1.text)?.[1];
        outputAtFirstResult = readFileSync(file!, 'utf8');
      }
      if (msg.type === 'result' && results === 2) prompts.end();
    }
    expect(started).toMatchObject({ tool_use_id: 'b1', task_type: 'local_bash', description: 'Slow echo' });
    const moved = resultsById(api.requests[1]).b1;
    expect(moved.isError).toBe(false);
    expect(moved.text).toMatch(/moved to the background with ID: b[0-9a-f]{8}/);
    const note = messages.find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({ tool_use_id: 'b1', status: 'completed', task_id: started!.task_id });
    const file = readFileSync(note!.output_file, 'utf8');
    expect(file).toContain('before\n');
    expect(file).toContain('after\n');
    expect(file).toContain('[exited with code 0]');
    // The first answer came while the command still ran.
    expect(outputAtFirstResult).not.toContain('after');
    const res = messages.filter((m) => m.type === 'result');
    expect(res.map((r) => r.result)).toEqual(['it runs in the background', 'it finished']);
    expect(notified).toContain(`<task-id>${started!.task_id}</task-id>`);
    // The live set: the task joins it, then leaves it empty.
    const levels = messages
      .filter((m) => m.type === 'system' && m.subtype === 'background_tasks_changed')
      .map((m) => m.tasks.map((t: any) => t.task_id));
    expect(levels).toEqual([[started!.task_id], []]);
  });

  it('a foreground subagent: backgroundTasks() with no id moves it; its work goes on and its answer arrives as a notification', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (firstUserText(req).startsWith('SUB:')) {
        if (n === 0) return toolUse('Bash', { command: 'sleep 1.2; echo sub-work' }, 's1');
        return text('the sub agent found 42');
      }
      if (n === 0)
        return toolUse(
          'Agent',
          { description: 'Find it', prompt: 'SUB: find it', subagent_type: 'general-purpose' },
          'task1',
        );
      if (n === 1) return text('the agent works in the background');
      return text(`heard: ${lastUserText(req).includes('the sub agent found 42') ? 'yes' : 'no'}`);
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd, bypass) as never });
    prompts.push('find it');
    const messages: Array<Record<string, any>> = [];
    let results = 0;
    let asked = false;
    for await (const m of q as AsyncIterable<SDKMessage>) {
      const msg = m as Record<string, any>;
      messages.push(msg);
      // The subagent's own Bash call is under way: move the whole agent.
      if (!asked && msg.type === 'assistant' && msg.parent_tool_use_id === 'task1') {
        asked = true;
        expect(await q.backgroundTasks()).toBe(true);
      }
      if (msg.type === 'result' && ++results === 2) prompts.end();
    }
    const moved = resultsById(api.requests.find((r) => !firstUserText(r).startsWith('SUB:') && turns(r) === 1)!).task1;
    expect(moved.text).toMatch(/moved to the background/);
    // One task from start to end: announced in the foreground, then moved (same id, no second
    // task_started), and only from the move on in the live set.
    const starts = messages.filter((m) => m.type === 'system' && m.subtype === 'task_started');
    expect(starts).toHaveLength(1);
    const started = starts[0];
    expect(started).toMatchObject({
      tool_use_id: 'task1',
      task_type: 'local_agent',
      subagent_type: 'general-purpose',
      is_backgrounded: false,
      prompt: 'SUB: find it',
    });
    const id = started.task_id;
    const updates = messages.filter((m) => m.type === 'system' && m.subtype === 'task_updated');
    expect(updates.map((m) => [m.task_id, m.patch])).toEqual([
      [id, { is_backgrounded: true }],
      [id, { status: 'completed', end_time: expect.any(Number) }],
    ]);
    const note = messages.find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({
      task_id: id,
      tool_use_id: 'task1',
      status: 'completed',
      summary: 'the sub agent found 42',
    });
    expect(moved.text).toContain(`agentId: ${id} (task id)`);
    const levels = messages.filter((m) => m.type === 'system' && m.subtype === 'background_tasks_changed');
    expect(levels.map((m) => m.tasks.map((t: any) => t.task_id))).toEqual([[id], []]);
    expect(messages.indexOf(levels[0])).toBeGreaterThan(messages.indexOf(started));
    expect(messages.indexOf(updates[0])).toBeLessThan(messages.indexOf(note!));
    // Progress while it ran, in the foreground and after the move, under the one id.
    expect(
      messages.filter((m) => m.type === 'system' && m.subtype === 'task_progress').every((m) => m.task_id === id),
    ).toBe(true);
    const res = messages.filter((m) => m.type === 'result');
    expect(res.map((r) => r.result)).toEqual(['the agent works in the background', 'heard: yes']);
    // The first result came before the subagent's end; its later messages still carry the Task id.
    expect(messages.indexOf(res[0])).toBeLessThan(messages.indexOf(note!));
    // Its Bash call; its final text is not sent (forwardSubagentText is off by default).
    expect(messages.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'task1').length).toBe(1);
    // Its cost counts once, in the later result.
    expect(res[1].total_cost_usd).toBeGreaterThan(0);
  });

  it('CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: backgroundTasks() is an error naming it, and run_in_background is refused', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (n === 0) return toolUse('Bash', { command: 'echo hi', run_in_background: true }, 'b1');
      return text('done');
    });
    const cwd = tempDir();
    const prompts = promptStream();
    const opts = sdkOptions(api.url, cwd, bypass);
    const q = query({
      prompt: prompts as never,
      options: { ...opts, env: { ...opts.env, CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' } } as never,
    });
    await expect(q.backgroundTasks()).rejects.toThrow(
      /background tasks are disabled in this session \(CLAUDE_CODE_DISABLE_BACKGROUND_TASKS\)/,
    );
    prompts.push('go');
    for await (const m of q as AsyncIterable<SDKMessage>) if (m.type === 'result') prompts.end();
    const r = resultsById(api.requests[1]).b1;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/run_in_background: background tasks are disabled/);
  });
});
