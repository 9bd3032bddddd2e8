// Background work: subagents and shells that outlive their tool call, their notifications, the
// post-result re-entry into the loop, TaskOutput / TaskStop, exit with tasks still running,
// tool_progress for long foreground tools, and TodoWrite.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  startFakeApi,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { alive, hasText, waitUntil } from '../processes.js';
import {
  resultText,
  runTurns,
  startAgent,
  startTestApi,
  STREAM_ARGS,
  tempDir,
  turns,
  userLine,
  once,
} from './harness.js';

// Every test has its own API and agent: they run side by side (describe.concurrent).

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];

/** Pids in a process group, from the process table. */
function groupMembers(pgid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

function pgidOf(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
}

function taskIdIn(req: RecordedRequest): string {
  const t = resultText(lastToolResults(req)[0]?.content);
  const m = /(?:ID|agentId): ([ab][0-9a-f]{8})/.exec(t);
  if (!m) throw new Error(`no task id in: ${t}`);
  return m[1];
}

const isMain = (req: RecordedRequest) => !firstUserText(req).startsWith('SUB');

describe.concurrent('background subagents', () => {
  it('returns at once; its messages are tagged; its notification comes after the first result and re-enters the loop for a second result', async ({
    onTestFinished,
  }) => {
    let notified = '';
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      if (!isMain(req))
        return { ...text('background findings: 42'), delayMs: 700, usage: { input_tokens: 500, output_tokens: 50 } };
      const n = turns(req);
      if (n === 0)
        return toolUse(
          'Task',
          {
            description: 'Research',
            prompt: 'SUBBG: research',
            subagent_type: 'general-purpose',
            run_in_background: true,
          },
          'toolu_bgtask',
        );
      if (n === 1) return text('started it');
      notified = lastUserText(req);
      return text('acted on the notification');
    });
    const p = startAgent({ api, args: ARGS });
    // The host asks for the subagent's text too (off by default), so its one text reply is sent.
    p.send({
      type: 'control_request',
      request_id: 'i1',
      request: { subtype: 'initialize', forwardSubagentText: true },
    });
    p.sendRaw(userLine('research in the background'));
    const first = await p.waitFor((m) => m.type === 'result');
    expect(first).toMatchObject({ subtype: 'success', result: 'started it' });
    const second = await p.waitFor((m) => m.type === 'result' && m.uuid !== first.uuid, 10_000);
    expect(second).toMatchObject({ subtype: 'success', result: 'acted on the notification' });
    p.endInput();
    expect((await p.exited).code).toBe(0);

    const msgs = p.json();
    const idx = (pred: (m: any) => boolean) => msgs.findIndex(pred);
    const started = msgs.find((m) => m.type === 'system' && m.subtype === 'task_started')!;
    expect(started).toMatchObject({
      tool_use_id: 'toolu_bgtask',
      task_type: 'local_agent',
      subagent_type: 'general-purpose',
      description: 'Research',
      is_backgrounded: true,
      spawn_depth: 1,
      prompt: 'SUBBG: research',
    });
    const note = msgs.find((m) => m.type === 'system' && m.subtype === 'task_notification')!;
    expect(note).toMatchObject({
      task_id: started.task_id,
      tool_use_id: 'toolu_bgtask',
      status: 'completed',
      summary: 'background findings: 42',
    });
    expect(note.usage).toMatchObject({ total_tokens: 550, tool_uses: 0 });
    expect(existsSync(note.output_file)).toBe(true);
    const resultIdx = msgs.filter((m) => m.type === 'result').map((r) => msgs.indexOf(r));
    expect(idx((m) => m.subtype === 'task_started')).toBeLessThan(resultIdx[0]);
    expect(idx((m) => m.subtype === 'task_notification')).toBeGreaterThan(resultIdx[0]);
    expect(idx((m) => m.subtype === 'task_notification')).toBeLessThan(resultIdx[1]);
    // The launch result names the task and its output file; the subagent's own messages are tagged.
    const launch = msgs.find((m) => m.type === 'user' && m.message.content[0].tool_use_id === 'toolu_bgtask')!;
    expect(launch.message.content[0].content).toContain(started.task_id);
    expect(launch.message.content[0].content).toContain(note.output_file);
    expect(launch.tool_use_result).toMatchObject({
      status: 'async_launched',
      agentId: started.task_id,
      outputFile: note.output_file,
    });
    const tagged = msgs.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_bgtask');
    expect(tagged).toHaveLength(1);
    // The model got the notification as a new user turn.
    expect(notified).toContain('<task-notification>');
    expect(notified).toContain(`<task-id>${started.task_id}</task-id>`);
    expect(notified).toContain('<status>completed</status>');
    expect(notified).toContain('<summary>background findings: 42</summary>');
    // The background agent's cost counts in the result of the run it re-entered.
    expect(second.modelUsage['claude-sonnet-4-5'].inputTokens).toBeGreaterThanOrEqual(500);
  });

  it('--max-budget-usd counts each call once: a background agent that outlives the turn that started it is not charged that turn again', async ({
    onTestFinished,
  }) => {
    // claude-sonnet-4-5: $3 per million input tokens. The main turn spends $0.60 (two calls of
    // 100k), the agent $0.003 before the turn's result and $0.003 after it, the notification turn
    // $0.003: $0.609 in all, under a $0.70 budget. Charged the main turn twice, the agent's second
    // call would see $1.20 and stop with the budget error.
    const big = { input_tokens: 100_000, output_tokens: 0 };
    const small = { input_tokens: 1_000, output_tokens: 0 };
    let agentAsked!: () => void;
    const agentCalled = new Promise<void>((r) => {
      agentAsked = r;
    });
    const api = await startTestApi({ onTestFinished }, async (req): Promise<ScriptedReply> => {
      if (!isMain(req)) {
        // Its first call asks for a 1 s command, so its second call comes after the main turn's result.
        if (turns(req) === 0) {
          agentAsked();
          return { ...toolUse('Bash', { command: 'sleep 1', description: 'wait' }), usage: small };
        }
        return { ...text('background findings: 42'), usage: small };
      }
      const n = turns(req);
      if (n === 0)
        return {
          ...toolUse('Task', {
            description: 'Research',
            prompt: 'SUBBG: research',
            subagent_type: 'general-purpose',
            run_in_background: true,
          }),
          usage: big,
        };
      // The main turn ends after the agent's first call is answered (and charged), whichever
      // request reaches the API first.
      if (n === 1) {
        await agentCalled;
        return { ...text('started it'), usage: big, delayMs: 400 };
      }
      return { ...text('acted on the notification'), usage: small };
    });
    const p = startAgent({ api, args: [...ARGS, '--max-budget-usd', '0.7'] });
    p.sendRaw(userLine('research in the background'));
    const first = await p.waitFor((m) => m.type === 'result');
    expect(first).toMatchObject({ subtype: 'success', result: 'started it' });
    const second = await p.waitFor((m) => m.type === 'result' && m.uuid !== first.uuid, 10_000);
    p.endInput();
    await p.exited;
    const note = p.json().find((m) => m.type === 'system' && m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ status: 'completed', summary: 'background findings: 42' });
    expect(second).toMatchObject({ subtype: 'success', result: 'acted on the notification' });
    expect(api.requests.filter((r) => !isMain(r))).toHaveLength(2);
    // total_cost_usd is the session's running total (as the reference reports it), and every call
    // is in exactly one result's usage: the results' input tokens add up to the session's.
    expect(first.total_cost_usd).toBeCloseTo(0.603, 9);
    expect(second.total_cost_usd).toBeCloseTo(0.609, 9);
    expect(first.usage.input_tokens + second.usage.input_tokens).toBe(203_000);
  });
});

describe.concurrent('a foreground subagent moved to the background (stream-json)', () => {
  it('keeps its task id: one task_started (is_backgrounded false), task_updated {is_backgrounded: true} on the move, then it joins the live set and ends with a notification', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (!isMain(req))
        return n === 0
          ? toolUse('Bash', { command: 'sleep 1; echo slow-part' }, 'sub_bash')
          : text('moved agent finished');
      if (n === 0)
        return toolUse(
          'Task',
          { description: 'Slow part', prompt: 'SUBMOVE: slow', subagent_type: 'general-purpose' },
          'toolu_mv',
        );
      if (n === 1) return text('moved on');
      return text('heard it');
    });
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('do the slow part'));
    const started = await p.waitFor((m) => m.type === 'system' && m.subtype === 'task_started');
    // Moved while its Bash call runs (the control request names the Task call).
    await p.waitFor((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_mv');
    p.send({
      type: 'control_request',
      request_id: 'bg-1',
      request: { subtype: 'background_tasks', tool_use_id: 'toolu_mv' },
    });
    expect(await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'bg-1')).toMatchObject({
      response: { subtype: 'success', response: { backgrounded: true } },
    });
    const first = await p.waitFor((m) => m.type === 'result');
    expect(first.result).toBe('moved on');
    await p.waitFor((m) => m.type === 'result' && m.uuid !== first.uuid, 10_000);
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const msgs = p.json();
    const id = started.task_id;
    expect(started).toMatchObject({
      tool_use_id: 'toolu_mv',
      is_backgrounded: false,
      task_type: 'local_agent',
      prompt: 'SUBMOVE: slow',
    });
    const lines = msgs.filter(
      (m) => m.type === 'system' && (m.subtype.startsWith('task_') || m.subtype === 'background_tasks_changed'),
    );
    expect(lines.filter((m) => m.subtype === 'task_started')).toHaveLength(1);
    expect(lines.filter((m) => m.task_id !== undefined).every((m) => m.task_id === id)).toBe(true);
    const order = lines
      .map((m) => (m.subtype === 'task_updated' ? `task_updated:${Object.keys(m.patch).join(',')}` : m.subtype))
      .filter((s) => s !== 'task_progress');
    expect(order).toEqual([
      'task_started',
      'background_tasks_changed',
      'task_updated:is_backgrounded',
      'task_updated:status,end_time',
      'task_notification',
      'background_tasks_changed',
    ]);
    expect(lines.find((m) => m.subtype === 'background_tasks_changed')!.tasks).toEqual([
      { task_id: id, task_type: 'local_agent', subagent_type: 'general-purpose', description: 'Slow part' },
    ]);
    expect(lines.find((m) => m.subtype === 'task_notification')).toMatchObject({
      status: 'completed',
      summary: 'moved agent finished',
    });
    const moved = msgs.find(
      (m) => m.type === 'user' && m.parent_tool_use_id === null && m.message.content[0].tool_use_id === 'toolu_mv',
    )!;
    expect(moved.tool_use_result).toMatchObject({ status: 'async_launched', agentId: id });
  });
});

describe.concurrent('background shells', () => {
  it('Bash run_in_background: TaskOutput reads it while it runs, TaskStop kills its whole group; the notification says stopped', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    let taskId = '';
    const outputs: string[] = [];
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (n === 0)
        return toolUse('Bash', {
          command: 'sleep 30 & echo $! > bg.pid; echo hello-bg; wait',
          description: 'Sleep a while',
          run_in_background: true,
        });
      if (n === 1) {
        taskId = taskIdIn(req);
        // hello-bg comes after bg.pid is written: once it is read, the pid is there to check.
        return toolUse('TaskOutput', { task_id: taskId, block: true, timeout: 1500 });
      }
      if (n === 2) {
        outputs.push(resultText(lastToolResults(req)[0].content));
        return toolUse('TaskStop', { task_id: taskId });
      }
      outputs.push(resultText(lastToolResults(req)[0].content));
      return text('stopped it');
    });
    const p = startAgent({ api, cwd, args: ARGS });
    p.sendRaw(userLine('run in the background'));
    const result = await p.waitFor((m) => m.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'stopped it' });

    expect(outputs[0]).toContain('<retrieval_status>timeout</retrieval_status>');
    expect(outputs[0]).toContain('<status>running</status>');
    expect(outputs[0]).toContain('hello-bg');
    expect(outputs[1]).toBe(`Successfully stopped task: ${taskId} (sleep 30 & echo $! > bg.pid; echo hello-bg; wait)`);

    const pid = Number(readFileSync(join(cwd, 'bg.pid'), 'utf8'));
    expect(await waitUntil(() => !alive(pid))).toBe(true);
    const msgs = p.json();
    const note = msgs.find((m) => m.type === 'system' && m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ task_id: taskId, status: 'stopped' });
    expect(readFileSync(note.output_file, 'utf8')).toMatch(/^hello-bg\n[\s\S]*\[stopped\]\n$/);
    // The model stopped it itself: no extra turn for the notification.
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(p.json().filter((m) => m.type === 'result')).toHaveLength(1);
    expect(api.requests).toHaveLength(4);
  });

  it('a finished background shell: TaskOutput waits for it; the output file ends with [exited with code N]; no process is left', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    let out = '';
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (n === 0)
        return toolUse('Bash', {
          command: 'echo $$ > leader.pid; sleep 0.3; echo done-bg; exit 3',
          run_in_background: true,
        });
      if (n === 1) return toolUse('TaskOutput', { task_id: taskIdIn(req) });
      out = resultText(lastToolResults(req)[0].content);
      return text('read it');
    });
    const p = startAgent({ api, cwd, args: ARGS });
    p.sendRaw(userLine('go'));
    await p.waitFor((m) => m.type === 'result');
    expect(out).toContain('<retrieval_status>success</retrieval_status>');
    expect(out).toContain('<status>failed</status>');
    expect(out).toContain('<exit_code>3</exit_code>');
    expect(out).toContain('done-bg');
    const note = await p.waitFor((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({ status: 'failed', summary: expect.stringContaining('failed with exit code 3') });
    expect(readFileSync(note.output_file, 'utf8')).toBe('done-bg\n\n[exited with code 3]\n');
    const leader = Number(readFileSync(join(cwd, 'leader.pid'), 'utf8'));
    expect(groupMembers(leader)).toEqual([]);
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });

  it('stdin EOF while a background task runs: it finishes, is reported (notification and a further result), then exit 0', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const n = turns(req);
      if (n === 0)
        return toolUse('Bash', {
          command: 'sleep 1; echo finished-late',
          description: 'Finish late',
          run_in_background: true,
        });
      if (n === 1) return text('launched');
      return text(`heard: ${lastUserText(req).includes('completed (exit code 0)') ? 'completed' : 'something else'}`);
    });
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('start it and go'));
    p.endInput();
    const exit = await p.exited;
    expect(exit.code).toBe(0);
    const msgs = p.json();
    const results = msgs.filter((m) => m.type === 'result');
    expect(results.map((r) => r.result)).toEqual(['launched', 'heard: completed']);
    const note = msgs.find((m) => m.type === 'system' && m.subtype === 'task_notification')!;
    expect(note).toMatchObject({
      status: 'completed',
      summary: 'Background command "Finish late" completed (exit code 0)',
    });
    expect(readFileSync(note.output_file, 'utf8')).toBe('finished-late\n\n[exited with code 0]\n');
  });

  it('SIGTERM with a background shell running: it is stopped and reported, no process is left, exit 143', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const api = await startTestApi(
      { onTestFinished },
      (req): ScriptedReply =>
        turns(req) === 0
          ? toolUse('Bash', {
              command: 'echo $$ > leader.pid; sleep 30 & echo $! > child.pid; wait',
              run_in_background: true,
            })
          : text('running'),
    );
    const p = startAgent({ api, cwd, args: ARGS });
    p.sendRaw(userLine('start a long one'));
    await p.waitFor((m) => m.type === 'result');
    expect(await waitUntil(() => hasText(join(cwd, 'child.pid')))).toBe(true);
    const leader = Number(readFileSync(join(cwd, 'leader.pid'), 'utf8'));
    const child = Number(readFileSync(join(cwd, 'child.pid'), 'utf8'));
    expect(pgidOf(child)).toBe(leader);
    expect(groupMembers(leader).length).toBeGreaterThanOrEqual(2);
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    expect(exit.code).toBe(143);
    const note = p.json().find((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(note).toMatchObject({ status: 'stopped' });
    expect(await waitUntil(() => groupMembers(leader).length === 0 && !alive(child))).toBe(true);
    expect(readFileSync(note!.output_file, 'utf8')).toMatch(/\[stopped\]\n$/);
  });
});

const todo = (content: string, status: string) => ({ content, status, activeForm: `${content}ing` });

/**
 * The slow foreground Bash and the TodoWrite calls are two prompts of one session with ARGS (the
 * todos start empty either way: nothing before them wrote any). Each check reads its own turn's
 * stdout lines. Made once, by the first check that reads it, with a fake API of its own.
 */
const foreground = once(foregroundSession);

async function foregroundSession() {
  const api = await startFakeApi([
    toolUse('Bash', { command: 'sleep 3.5' }, 'toolu_slow'),
    text('slept'),
    toolUse('TodoWrite', { todos: [todo('Plan', 'in_progress'), todo('Build', 'in_progress')] }, 'toolu_t1'),
    toolUse('TodoWrite', { todos: [todo('Plan', 'in_progress'), todo('Build', 'pending')] }, 'toolu_t2'),
    toolUse('TodoWrite', { todos: [todo('Plan', 'completed'), todo('Build', 'in_progress')] }, 'toolu_t3'),
    text('planned'),
  ]);
  try {
    const r = await runTurns('the shared foreground session', { api, args: ARGS }, { sleep: 'sleep', plan: 'plan' });
    expect(api.requests, 'requests of the shared foreground session').toHaveLength(6);
    return r.turns;
  } finally {
    await api.close();
  }
}

describe.concurrent('foreground progress and todos', () => {
  it('a foreground Bash running 3.5 s reports tool_progress after 2 s, at most once a second', async () => {
    const turn = (await foreground()).sleep;
    expect(turn.json().find((m) => m.type === 'result')).toMatchObject({ result: 'slept' });
    const progress = turn.json().filter((m) => m.type === 'tool_progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(2);
    for (const m of progress) {
      expect(m).toMatchObject({ tool_use_id: 'toolu_slow', tool_name: 'Bash', parent_tool_use_id: null });
      expect(m.elapsed_time_seconds).toBeGreaterThanOrEqual(2);
    }
  });

  it('TodoWrite: two items in progress are refused; a valid list is kept and returned with the previous one', async () => {
    const turn = (await foreground()).plan;
    expect(turn.json().find((m) => m.type === 'result')).toMatchObject({ result: 'planned' });
    const byId = (id: string) => turn.json().find((m) => m.type === 'user' && m.message.content[0].tool_use_id === id)!;
    expect(byId('toolu_t1').message.content[0].is_error).toBe(true);
    expect(byId('toolu_t1').message.content[0].content).toContain('at most one todo may be in_progress');
    expect(byId('toolu_t2').tool_use_result).toEqual({
      oldTodos: [],
      newTodos: [todo('Plan', 'in_progress'), todo('Build', 'pending')],
    });
    expect(byId('toolu_t3').tool_use_result.oldTodos).toEqual([todo('Plan', 'in_progress'), todo('Build', 'pending')]);
    expect(byId('toolu_t3').message.content[0].content).toContain('Todos have been modified successfully');
  });
});
