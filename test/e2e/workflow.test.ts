// The Workflow tool through bin/agent against the fake API: offered only to a user who opted in
// (a call without it says how), a script run in the background whose agents are real subagent
// loops, progress lines with the run's phases and agents, the end as a task notification carrying
// the script's return value; a failing script, an agent that fails, and a stop in a busy loop.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastUserText,
  systemText,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { resultsById, runAgent, startAgent, startFakeApi, STREAM_ARGS, userLine, once } from './harness.js';

const P = ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'];
const ON = { CLAUDE_CODE_WORKFLOWS: '1' };
const isWorkflowAgent = (req: RecordedRequest) => systemText(req).startsWith('You are one step of a workflow');
const toolNames = (req: RecordedRequest) => (req.body.tools ?? []).map((t: { name: string }) => t.name);

const FLOW = `export const meta = {
  name: 'join-two',
  description: 'Ask two helpers and join',
  phases: [{ title: 'Ask' }, { title: 'Shape' }],
}
phase('Ask')
log('asking', args.n)
const said = await parallel([() => agent('say ALPHA', { label: 'a' }), () => agent('say BETA', { label: 'b' })])
phase('Shape')
const shaped = await agent('shape it', { label: 'shape', schema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] } })
return { joined: said.join('+'), size: shaped.size, n: args.n }`;

/**
 * One -p run for two tests, made by whichever asks first: the model's first two Workflow calls are
 * refused at the call (no meta, w1; Date.now() inline, w2), its third (wf) starts a script whose
 * agent fails and which then throws.
 */
const badScripts = once(runBadScripts);

async function runBadScripts() {
  const script = `export const meta = { name: 'bad', description: 'Fails on purpose' }
const a = await agent('say GAMMA', { label: 'gamma' })
log('gamma gave ' + a)
throw new Error('broken on purpose')`;
  const api = await startFakeApi((req): ScriptedReply => {
    if (isWorkflowAgent(req)) return { error: { status: 400, type: 'invalid_request_error', message: 'boom' } };
    if (lastUserText(req).includes('<task-notification>')) return text('saw the failure');
    const seen = resultsById(req);
    if (seen.wf) return text('started');
    if (seen.w2) return toolUse('Workflow', { script }, 'wf');
    if (seen.w1)
      return toolUse(
        'Workflow',
        { script: "export const meta = { name: 'x', description: 'y' }\nreturn Date.now()" },
        'w2',
      );
    return toolUse('Workflow', { script: "const x = await agent('hi')" }, 'w1');
  });
  try {
    const r = await runAgent({
      api,
      args: ['-p', 'run it', '--allowedTools', 'Workflow', ...P],
      env: ON,
      timeoutMs: 40_000,
    });
    return { r, requests: api.requests };
  } finally {
    await api.close();
  }
}

describe('Workflow', () => {
  it('is not offered without the opt-in, and a call says how to opt in', async () => {
    const api = await startFakeApi((req): ScriptedReply => {
      if (resultsById(req).wf) return text(`refused: ${resultsById(req).wf.text}`);
      return toolUse('Workflow', { script: FLOW }, 'wf');
    });
    try {
      const r = await runAgent({ api, args: ['-p', 'run a workflow', '--allowedTools', 'Workflow', ...P] });
      expect(r.code).toBe(0);
      expect(toolNames(api.requests[0])).not.toContain('Workflow');
      const refusal = resultsById(api.requests[1]).wf;
      expect(refusal.isError).toBe(true);
      expect(refusal.text).toContain('No such tool available: Workflow.');
      expect(refusal.text).toContain('"enableWorkflows": true');
      expect(refusal.text).toContain('CLAUDE_CODE_WORKFLOWS=1');
      expect(api.requests).toHaveLength(2);
    } finally {
      await api.close();
    }
  });

  it('runs the script in the background: agents, progress, and the return value in the notification', async () => {
    const api = await startFakeApi((req): ScriptedReply => {
      if (isWorkflowAgent(req)) {
        const task = firstUserText(req);
        if (task.includes('say ALPHA')) return text('alpha-out');
        if (task.includes('say BETA')) return text('beta-out');
        if (task.includes('shape it')) return toolUse('StructuredOutput', { size: 2 });
        return text('unexpected');
      }
      if (resultsById(req).wf) return text('started it');
      if (lastUserText(req).includes('<task-notification>')) return text('workflow finished');
      return toolUse('Workflow', { script: FLOW, args: { n: 7 } }, 'wf');
    });
    try {
      const r = await runAgent({
        api,
        args: ['-p', 'run a workflow', '--allowedTools', 'Workflow', ...P],
        env: ON,
        timeoutMs: 40_000,
      });
      expect(r.code).toBe(0);
      const msgs = r.json();
      expect(toolNames(api.requests[0])).toContain('Workflow');
      // The call's result: launched, with the task, run and files.
      const launched = msgs.find((m) => m.type === 'user' && m.tool_use_result?.status === 'async_launched');
      const out = launched!.tool_use_result;
      expect(out).toMatchObject({
        status: 'async_launched',
        taskType: 'local_workflow',
        workflowName: 'join-two',
        summary: 'Ask two helpers and join',
      });
      expect(out.taskId).toMatch(/^w[0-9a-f]{8}$/);
      expect(out.runId).toMatch(/^wf_[0-9a-f]{8}-[0-9a-f]{3}$/);
      expect(readFileSync(out.scriptPath, 'utf8')).toBe(FLOW);
      // The task's lines, in the reference's shapes.
      const started = msgs.find((m) => m.subtype === 'task_started');
      expect(started).toMatchObject({
        task_id: out.taskId,
        task_type: 'local_workflow',
        workflow_name: 'join-two',
        description: 'Ask two helpers and join',
        tool_use_id: 'wf',
        prompt: FLOW,
      });
      const progress = msgs.filter((m) => m.subtype === 'task_progress');
      expect(progress.map((m) => m.description)).toContain('Ask: a');
      expect(progress.map((m) => m.description)).toContain('Shape: shape');
      expect(progress.map((m) => m.description)).toContain('asking 7');
      const last = progress.at(-1)!.workflow_progress;
      expect(
        last.filter((x: { type: string }) => x.type === 'workflow_phase').map((x: { title: string }) => x.title),
      ).toEqual(['Ask', 'Shape']);
      const agents = last.filter((x: { type: string }) => x.type === 'workflow_agent');
      expect(
        agents.map((a: { label: string; state: string; phaseTitle: string }) => [a.label, a.state, a.phaseTitle]),
      ).toEqual([
        ['a', 'done', 'Ask'],
        ['b', 'done', 'Ask'],
        ['shape', 'done', 'Shape'],
      ]);
      const note = msgs.find((m) => m.subtype === 'task_notification');
      expect(note).toMatchObject({
        task_id: out.taskId,
        status: 'completed',
        summary: 'Dynamic workflow "Ask two helpers and join" completed',
      });
      expect(note!.usage.total_tokens).toBeGreaterThan(0);
      // The model reads the script's return value in its notice, then answers; -p waited for it.
      const notice = api.requests.find((q) => !isWorkflowAgent(q) && lastUserText(q).includes('<task-notification>'));
      expect(lastUserText(notice!)).toContain('<result>{"joined":"alpha-out+beta-out","size":2,"n":7}');
      expect(msgs.filter((m) => m.type === 'result').map((m) => m.result)).toEqual(['started it', 'workflow finished']);
      // The agents: our workflow agent, the task framed as the script's, no Task/Workflow of their own.
      const agentReqs = api.requests.filter(isWorkflowAgent);
      expect(agentReqs).toHaveLength(3);
      expect(firstUserText(agentReqs[0])).toContain('[Task from a workflow script]');
      expect(toolNames(agentReqs[0])).not.toContain('Workflow');
      expect(toolNames(agentReqs[0])).not.toContain('Task');
      expect(agentReqs.map(toolNames).filter((n: string[]) => n.includes('StructuredOutput'))).toHaveLength(1);
      // The journal: one result line per agent, with its value.
      const journal = readFileSync(`${out.transcriptDir}/journal.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(journal.filter((j) => j.type === 'result').map((j) => j.result)).toEqual(
        expect.arrayContaining(['alpha-out', 'beta-out', { size: 2 }]),
      );
      expect(existsSync(note!.output_file)).toBe(true);
      expect(readFileSync(note!.output_file, 'utf8')).toContain('"agentCount": 3');
    } finally {
      await api.close();
    }
  }, 60_000);

  it('a script that throws fails with its line; an agent that fails gives null and is listed', async () => {
    const { r, requests } = await badScripts();
    expect(r.code).toBe(0);
    const msgs = r.json();
    const note = msgs.find((m) => m.subtype === 'task_notification');
    expect(note!.status).toBe('failed');
    expect(note!.summary).toMatch(
      /^Dynamic workflow "Fails on purpose" failed: Error: broken on purpose\n.*workflow\.js:4:7/,
    );
    const ended = msgs.find((m) => m.subtype === 'task_updated' && m.patch.status === 'failed');
    expect(ended!.patch.error).toContain('broken on purpose');
    const notice = lastUserText(requests.at(-1)!);
    expect(notice).toContain('<status>failed</status>');
    expect(notice).toContain('[gamma] failed:');
    expect(notice).toContain('boom');
    expect(readFileSync(note!.output_file, 'utf8')).toContain('gamma gave null');
  }, 60_000);

  it('refuses a bad script at the call: no meta, or Date.now() in a script written inline', async () => {
    const { r, requests } = await badScripts();
    expect(r.code).toBe(0);
    expect(resultsById(requests[1]!).w1).toMatchObject({
      isError: true,
      text: expect.stringContaining('Invalid workflow script: the script must begin with `export const meta'),
    });
    expect(resultsById(requests[2]!).w2.text).toContain('it calls Date.now()');
    // The one task the run started is the valid script's (wf), after both refusals.
    const started = r.json().filter((m) => m.subtype === 'task_started');
    expect(started.map((m) => m.tool_use_id)).toEqual(['wf']);
  });

  it('CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: a call is refused with the reason, and no task starts', async () => {
    const api = await startFakeApi((req): ScriptedReply => {
      if (resultsById(req).wf) return text('understood');
      return toolUse('Workflow', { script: FLOW, args: { n: 1 } }, 'wf');
    });
    try {
      const r = await runAgent({
        api,
        args: ['-p', 'go', '--allowedTools', 'Workflow', ...P],
        env: { ...ON, CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' },
      });
      expect(r.code).toBe(0);
      expect(resultsById(api.requests[1]).wf).toMatchObject({
        isError: true,
        text: expect.stringContaining(
          'background tasks are disabled in this session (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS)',
        ),
      });
      expect(r.json().some((m) => m.subtype === 'task_started')).toBe(false);
      expect(api.requests.some(isWorkflowAgent)).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('TaskStop ends a run stuck in a busy loop; the notice says it was stopped', async () => {
    const script = `export const meta = { name: 'spin', description: 'Spins forever' }
while (true) {}`;
    const api = await startFakeApi((req): ScriptedReply => {
      const seen = resultsById(req);
      if (seen.stop) return text(`stopped: ${seen.stop.text}`);
      if (seen.wf) {
        const taskId = /task (w[0-9a-f]{8})/.exec(seen.wf.text)![1];
        return toolUse('TaskStop', { task_id: taskId }, 'stop');
      }
      if (lastUserText(req).includes('<task-notification>')) return text('unexpected notice');
      return toolUse('Workflow', { script }, 'wf');
    });
    const agent = startAgent({ api, args: [...STREAM_ARGS, '--allowedTools', 'Workflow,TaskStop'], env: ON });
    try {
      agent.sendRaw(userLine('spin'));
      await agent.waitFor(
        (m) => m.type === 'assistant' && m.message.content.some((b: { id?: string }) => b.id === 'stop'),
      );
      const asked = Date.now();
      const note = await agent.waitFor((m) => m.subtype === 'task_notification');
      // The worker is terminated at once, busy loop or not (the registry's grace would be 5 s).
      expect(Date.now() - asked).toBeLessThan(2500);
      const result = await agent.waitFor((m) => m.type === 'result', 30_000);
      expect(result.result).toMatch(/^stopped: Successfully stopped task: w[0-9a-f]{8} \(Spins forever\)/);
      expect(note).toMatchObject({ status: 'stopped', summary: 'Dynamic workflow "Spins forever" was stopped' });
      agent.endInput();
      expect((await agent.exited).code).toBe(0);
    } finally {
      agent.child.kill('SIGKILL');
      await api.close();
    }
  }, 60_000);

  it('the run ends with its session: SIGTERM stops a running workflow and the process exits', async () => {
    const script = `export const meta = { name: 'spin', description: 'Spins forever' }
while (true) {}`;
    const api = await startFakeApi((req): ScriptedReply => {
      if (resultsById(req).wf) return text('started');
      return toolUse('Workflow', { script }, 'wf');
    });
    const agent = startAgent({ api, args: [...STREAM_ARGS, '--allowedTools', 'Workflow'], env: ON });
    try {
      agent.sendRaw(userLine('spin'));
      await agent.waitFor((m) => m.type === 'result', 30_000);
      const t0 = Date.now();
      agent.child.kill('SIGTERM');
      await agent.exited;
      expect(Date.now() - t0).toBeLessThan(5000);
      // On its way out the session stopped the run, and said so.
      const note = agent.json().find((m) => m.subtype === 'task_notification');
      expect(note).toMatchObject({ status: 'stopped', summary: 'Dynamic workflow "Spins forever" was stopped' });
    } finally {
      agent.child.kill('SIGKILL');
      await api.close();
    }
  }, 60_000);
});
