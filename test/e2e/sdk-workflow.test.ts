// The Workflow tool with the official SDK as host: the user opts in through the settings the SDK
// passes, the run's task lines reach the host as typed SDK messages (task_started with
// workflow_name, task_progress with the run's rows, task_notification), the model gets the result
// in a turn of its own, and the host's stop_task control ends a running workflow.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, systemText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { resultsById, startTestApi, tempDir } from './harness.js';
import { collectUntilResults, interruptWhileTaskWorks, promptStream, sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent): each has its own API, closed when it ends.

const optedIn = { settings: JSON.stringify({ enableWorkflows: true }), allowedTools: ['Workflow'] };

describe.concurrent('official SDK as host: Workflow', () => {
  it('a run started by the model reports to the host and brings its result back as a second turn', async ({
    onTestFinished,
  }) => {
    const script = `export const meta = { name: 'pair', description: 'Two answers' }
const [x, y] = await parallel([() => agent('one'), () => agent('two')])
return x + ' & ' + y`;
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      if (systemText(req).startsWith('You are one step of a workflow'))
        return text(firstUserText(req).includes('  one') ? 'first' : 'second');
      if (resultsById(req).wf) return text('launched');
      if (lastUserText(req).includes('<task-notification>')) return text('all done');
      return toolUse('Workflow', { script }, 'wf');
    });
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, tempDir(), optedIn) as never });
    prompts.push('run the pair workflow');
    const messages = (await collectUntilResults(q, prompts, 2)) as Array<Record<string, any>>;
    expect(messages.filter((m) => m.type === 'result').map((m) => m.result)).toEqual(['launched', 'all done']);
    const started = messages.find((m) => m.subtype === 'task_started');
    expect(started).toMatchObject({ task_type: 'local_workflow', workflow_name: 'pair', description: 'Two answers' });
    const progress = messages.filter((m) => m.subtype === 'task_progress' && m.task_id === started!.task_id);
    const rows = progress.at(-1)!.workflow_progress;
    expect(rows.map((r: { state: string }) => r.state)).toEqual(['done', 'done']);
    expect(messages.find((m) => m.subtype === 'task_notification')).toMatchObject({
      task_id: started!.task_id,
      status: 'completed',
      summary: 'Dynamic workflow "Two answers" completed',
    });
    const notice = api.requests.find((r) => lastUserText(r).includes('<task-notification>'));
    expect(lastUserText(notice!)).toMatch(/<result>(first & second|second & first)/);
  }, 60_000);

  it("the host's stop_task ends a running workflow", async ({ onTestFinished }) => {
    const script = `export const meta = { name: 'slow', description: 'Waits on a slow agent' }
return await agent('take your time')`;
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      if (systemText(req).startsWith('You are one step of a workflow')) return { hang: true };
      if (resultsById(req).wf) return text('launched');
      if (lastUserText(req).includes('<task-notification>')) return text('it was stopped');
      return toolUse('Workflow', { script }, 'wf');
    });
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, tempDir(), optedIn) as never });
    prompts.push('run the slow workflow');
    const messages: Array<Record<string, any>> = [];
    let results = 0;
    for await (const m of q as AsyncIterable<SDKMessage>) {
      const msg = m as Record<string, any>;
      messages.push(msg);
      // Stop once its agent is running (its row says so).
      if (msg.subtype === 'task_progress' && msg.workflow_progress?.some((r: { state: string }) => r.state === 'start'))
        await q.stopTask(msg.task_id);
      if (msg.type === 'result' && ++results === 2) prompts.end();
    }
    expect(messages.find((m) => m.subtype === 'task_notification')).toMatchObject({
      status: 'stopped',
      summary: 'Dynamic workflow "Waits on a slow agent" was stopped',
    });
    expect(messages.filter((m) => m.type === 'result').map((m) => m.result)).toEqual(['launched', 'it was stopped']);
  }, 60_000);

  it('perTaskStopAffordance: an interrupt of a later turn spares a running workflow, which completes', async ({
    onTestFinished,
  }) => {
    const script = `export const meta = { name: 'slow', description: 'One slow agent' }
return await agent('count slowly')`;
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      if (systemText(req).startsWith('You are one step of a workflow')) return { ...text('counted 3'), delayMs: 2500 };
      const last = JSON.stringify(req.body.messages[req.body.messages.length - 1]);
      // The prompt that is interrupted (the notification's turn repeats it, unanswered: that one is quick).
      if (last.includes('think long') && !last.includes('<task-notification>'))
        return { ...text('long thought'), delayMs: 5000 };
      if (resultsById(req).wf) return text('launched');
      if (lastUserText(req).includes('<task-notification>')) return text('noted');
      return toolUse('Workflow', { script }, 'wf');
    });
    const status = await interruptWhileTaskWorks(
      'run the slow workflow',
      sdkOptions(api.url, tempDir(), { ...optedIn, perTaskStopAffordance: true }),
    );
    expect(status).toBe('completed');
  }, 60_000);
});
