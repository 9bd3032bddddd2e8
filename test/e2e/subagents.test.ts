// Subagents (Task / Agent): a fresh context in the same process, its messages tagged with the Task
// tool_use id, its final text as the tool result, its cost in the parent's result; concurrency,
// custom agents from all three sources, unknown types, failures and interrupt.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  badRequest,
  firstUserText,
  lastToolResults,
  systemText,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { startFakeApi as startFakeApiServer } from '../fake-api/server.js';
import { alive, waitForFile, waitUntil } from '../processes.js';
import {
  calls,
  resultsById,
  resultText,
  runAgent,
  startAgent,
  startTestApi,
  STREAM_ARGS,
  tempDir,
  turns,
  userLine,
  once,
} from './harness.js';

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];

function toolNames(req: RecordedRequest): string[] {
  return (req.body.tools ?? []).map((t: any) => t.name);
}

/** A script that serves the parent (by its first user text) and subagents (by theirs). */
function routed(
  parent: (req: RecordedRequest) => ScriptedReply,
  subs: Record<string, (req: RecordedRequest) => ScriptedReply>,
) {
  return (req: RecordedRequest): ScriptedReply => {
    const first = firstUserText(req);
    for (const [prefix, sub] of Object.entries(subs)) if (first.startsWith(prefix)) return sub(req);
    return parent(req);
  };
}

async function runSession(p: ReturnType<typeof startAgent>, prompt: string) {
  p.sendRaw(userLine(prompt));
  const result = await p.waitFor((m) => m.type === 'result', 20_000);
  p.endInput();
  const exit = await p.exited;
  return { result, exit, msgs: p.json() };
}

/**
 * One session (ARGS) for the four synchronous-subagent tests, made by whichever asks first: one
 * turn each, in this order, each with its own prompt, its own parent replies (keyed by the prompt,
 * counting the assistant turns since it) and its own subagents (keyed by their prompts' prefixes).
 * Each test reads its own turn's lines, from after the previous turn's result to its own.
 */
const SYNC_PARENTS: Record<string, (req: RecordedRequest) => ScriptedReply> = {
  'delegate please': (req) =>
    turns(req) === 0
      ? {
          content: [
            {
              type: 'tool_use',
              id: 'toolu_task1',
              name: 'Task',
              input: {
                description: 'Echo something',
                prompt: 'SUB1: run echo',
                subagent_type: 'general-purpose',
                model: 'haiku',
              },
            },
          ],
          usage: { input_tokens: 100, output_tokens: 10 },
        }
      : text(`parent saw: ${resultText(lastToolResults(req)[0]?.content)}`, {
          usage: { input_tokens: 120, output_tokens: 12 },
        }),
  'count in a subagent': (req) =>
    turns(req) === 0
      ? toolUse('Task', { description: 'Count files', prompt: 'SUBROW: count', subagent_type: 'Explore' }, 'toolu_row')
      : text('parent done'),
  'fan out': (req) =>
    turns(req) === 0
      ? calls([
          ['Task', { description: 'A', prompt: 'SUBA: meet', subagent_type: 'general-purpose' }, 'toolu_A'],
          ['Agent', { description: 'B', prompt: 'SUBB: meet', subagent_type: 'general-purpose' }, 'toolu_B'],
        ])
      : text(
          lastToolResults(req)
            .map((r) => resultText(r.content))
            .join(' + '),
        ),
  'fail twice': (req) =>
    turns(req) === 0
      ? calls([
          ['Task', { description: 'x', prompt: 'y', subagent_type: 'nope' }, 'toolu_bad'],
          ['Task', { description: 'f', prompt: 'SUBFAIL: go', subagent_type: 'general-purpose' }, 'toolu_f1'],
          ['Task', { description: 'g', prompt: 'SUBLOOP: go', subagent_type: 'Explore', max_turns: 1 }, 'toolu_f2'],
        ])
      : text('parent survived'),
};

/** Two commands that each mark their start, then wait (up to 8 s) for the other's mark. */
const meet = (me: string, other: string) =>
  `touch ${me}.started; for i in $(seq 400); do [ -e ${other}.started ] && break; sleep 0.02; done; [ -e ${other}.started ] && echo ${me}-met-${other} || echo ${me}-alone`;

const SYNC_SUBS: Record<string, (req: RecordedRequest) => ScriptedReply> = {
  'SUB1:': (req) =>
    turns(req) === 0
      ? {
          content: [{ type: 'tool_use', id: 'toolu_sub_bash', name: 'Bash', input: { command: 'echo from-sub' } }],
          usage: { input_tokens: 1000, output_tokens: 100 },
        }
      : text(`sub final: ${resultText(lastToolResults(req)[0]?.content)}`, {
          usage: { input_tokens: 1100, output_tokens: 50 },
        }),
  'SUBROW:': (req) =>
    turns(req) === 0
      ? toolUse('Bash', { command: 'echo counted' }, 'toolu_row_bash')
      : text('there are 3 files', { usage: { input_tokens: 50, output_tokens: 7 } }),
  'SUBA:': (req) =>
    turns(req) === 0 ? toolUse('Bash', { command: meet('A', 'B') }) : text(resultText(lastToolResults(req)[0].content)),
  'SUBB:': (req) =>
    turns(req) === 0 ? toolUse('Bash', { command: meet('B', 'A') }) : text(resultText(lastToolResults(req)[0].content)),
  'SUBFAIL:': () => badRequest('subagent request was bad'),
  'SUBLOOP:': () => toolUse('Glob', { pattern: '*' }),
};

/** The parent's request as its current turn sees it: its messages from that turn's prompt on. */
function sinceLastPrompt(req: RecordedRequest): { prompt: string; local: RecordedRequest } {
  const messages: any[] = req.body.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const prompt = blocks.find((b: any) => b.type === 'text' && b.text in SYNC_PARENTS)?.text;
    if (prompt) return { prompt, local: { ...req, body: { ...req.body, messages: messages.slice(i) } } };
  }
  throw new Error(`no prompt of the shared session in ${JSON.stringify(messages).slice(0, 300)}`);
}

const syncSession = once(runSyncSession);

async function runSyncSession() {
  const api = await startFakeApiServer(
    routed((req) => {
      const { prompt, local } = sinceLastPrompt(req);
      return SYNC_PARENTS[prompt]!(local);
    }, SYNC_SUBS),
  );
  try {
    const p = startAgent({ api, cwd: tempDir(), args: ARGS });
    const turnsSeen: Record<string, { result: Record<string, any>; msgs: Array<Record<string, any>> }> = {};
    let from = 0;
    for (const [i, prompt] of Object.keys(SYNC_PARENTS).entries()) {
      p.sendRaw(userLine(prompt));
      await p.waitFor(() => p.json().filter((m) => m.type === 'result').length === i + 1, 20_000);
      const all = p.json();
      const end =
        all.findIndex(
          (m, k) => m.type === 'result' && all.slice(0, k).filter((o) => o.type === 'result').length === i,
        ) + 1;
      turnsSeen[prompt] = { result: all[end - 1]!, msgs: all.slice(from, end) };
      from = end;
    }
    p.endInput();
    const exit = await p.exited;
    return { api, p, exit, turns: turnsSeen, all: p.json() };
  } finally {
    await api.close();
  }
}

/** The shared session's turn for `prompt` (a failed session fails every test that reads it). */
async function syncTurn(prompt: string) {
  const s = await syncSession();
  const turn = s.turns[prompt];
  if (!turn) throw new Error(`the shared session has no turn for ${prompt}`);
  return { ...turn, exit: s.exit, api: s.api, p: s.p, all: s.all };
}

describe.concurrent('synchronous subagents', () => {
  it('runs a subagent whose own conversation runs Bash; every message it produces carries the Task id; its text is the tool result; its cost counts in the parent result', async () => {
    const { result, exit, msgs, api, p } = await syncTurn('delegate please');
    expect(exit.code).toBe(0);
    expect(result).toMatchObject({ subtype: 'success', result: 'parent saw: sub final: from-sub' });

    // The subagent's messages: assistant (tool_use), user (tool_result); its final text is not
    // sent (forwardSubagentText is off by default, as in the reference) but is the Task's result.
    const sub = msgs.filter((m) => m.parent_tool_use_id === 'toolu_task1');
    expect(sub.map((m) => m.type)).toEqual(['assistant', 'user']);
    expect(sub[0].message.content[0]).toMatchObject({ type: 'tool_use', name: 'Bash', id: 'toolu_sub_bash' });
    expect(sub[1].message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_sub_bash' });
    // The parent's own messages are untagged and never carry the subagent's tool calls.
    const untagged = msgs.filter((m) => (m.type === 'assistant' || m.type === 'user') && m.parent_tool_use_id === null);
    expect(untagged.length).toBe(3);
    expect(JSON.stringify(untagged)).not.toContain('toolu_sub_bash');
    const taskResult = msgs.find(
      (m) => m.type === 'user' && m.parent_tool_use_id === null && m.message.content[0].tool_use_id === 'toolu_task1',
    )!;
    expect(taskResult.message.content[0].content).toBe('sub final: from-sub');
    expect(taskResult.message.content[0].is_error).toBeUndefined();
    expect(taskResult.tool_use_result).toMatchObject({
      status: 'completed',
      agentType: 'general-purpose',
      totalToolUseCount: 1,
    });

    // The subagent ran on its own model, with its own system prompt and no Task/Agent tool.
    const subReqs = api.requests.filter((r) => firstUserText(r).startsWith('SUB1:'));
    expect(subReqs).toHaveLength(2);
    expect(subReqs[0].body.model).toBe('claude-haiku-5-5');
    expect(systemText(subReqs[0])).toContain('You are an agent working for a user through a parent agent');
    expect(toolNames(subReqs[0])).not.toContain('Task');
    expect(toolNames(subReqs[0])).not.toContain('Agent');
    expect(toolNames(subReqs[0])).toContain('Bash');

    // Its usage and cost are in the parent's result, under its model.
    expect(Object.keys(result.modelUsage).sort()).toEqual(['claude-haiku-5-5', 'claude-sonnet-4-5']);
    expect(result.modelUsage['claude-haiku-5-5']).toMatchObject({ inputTokens: 2100, outputTokens: 150 });
    expect(result.modelUsage['claude-sonnet-4-5']).toMatchObject({ inputTokens: 220, outputTokens: 22 });
    expect(result.usage.input_tokens).toBe(2320);
    const sum = Object.values(result.modelUsage as Record<string, { costUSD: number }>).reduce(
      (a, e) => a + e.costUSD,
      0,
    );
    expect(result.total_cost_usd).toBeCloseTo(sum, 10);
    expect(result.modelUsage['claude-haiku-5-5'].costUSD).toBeGreaterThan(0);
    expect(p.stderr()).not.toContain('internal error');
  });

  it('a foreground subagent is a task row: task_started (is_backgrounded false) before its first message, task_progress after each of its turns, task_updated then task_notification before the Task result; never in background_tasks_changed', async () => {
    const { result, msgs, all } = await syncTurn('count in a subagent');
    expect(result).toMatchObject({ subtype: 'success', result: 'parent done' });
    const task = msgs.filter((m) => m.type === 'system' && m.subtype.startsWith('task_'));
    expect(task.map((m) => m.subtype)).toEqual([
      'task_started',
      'task_progress',
      'task_progress',
      'task_updated',
      'task_notification',
    ]);
    const [started, p1, p2, updated, note] = task;
    expect(started).toEqual({
      type: 'system',
      subtype: 'task_started',
      task_id: expect.stringMatching(/^a[0-9a-f]{8}$/),
      tool_use_id: 'toolu_row',
      description: 'Count files',
      task_type: 'local_agent',
      subagent_type: 'Explore',
      is_backgrounded: false,
      spawn_depth: 1,
      prompt: 'SUBROW: count',
      session_id: expect.any(String),
      uuid: expect.any(String),
    });
    const id = started.task_id;
    expect(task.every((m) => m.task_id === id)).toBe(true);
    expect(p1).toMatchObject({
      tool_use_id: 'toolu_row',
      description: 'Count files',
      subagent_type: 'Explore',
      usage: { tool_uses: 1 },
      last_tool_name: 'Bash',
    });
    expect(p1.summary).toBeUndefined();
    expect(p2.usage.total_tokens).toBeGreaterThan(p1.usage.total_tokens);
    expect(updated.patch).toEqual({ status: 'completed', end_time: expect.any(Number) });
    expect(note).toMatchObject({
      tool_use_id: 'toolu_row',
      status: 'completed',
      summary: 'there are 3 files',
      usage: { tool_uses: 1 },
    });
    // Its output file is its transcript: the agent's conversation, readable while and after it runs.
    expect(readFileSync(note.output_file, 'utf8')).toContain('there are 3 files');
    // In order: the row opens before the agent's first message, each progress follows the turn it
    // counts, and the row closes before the Task call's result.
    const at = (m: any) => msgs.indexOf(m);
    const subMsgs = msgs.filter((m) => m.parent_tool_use_id === 'toolu_row');
    const taskResult = msgs.find(
      (m) => m.type === 'user' && m.parent_tool_use_id === null && m.message.content[0].tool_use_id === 'toolu_row',
    )!;
    const parentCall = msgs.find(
      (m) =>
        m.type === 'assistant' &&
        m.parent_tool_use_id === null &&
        m.message.content.some((b: any) => b.id === 'toolu_row'),
    );
    expect(at(started)).toBeGreaterThan(at(parentCall));
    expect(at(started)).toBeLessThan(at(subMsgs[0]));
    expect(at(p1)).toBeGreaterThan(at(subMsgs[0]));
    expect(at(p2)).toBeGreaterThan(at(subMsgs[2]));
    expect(at(updated)).toBeLessThan(at(note));
    expect(at(note)).toBeLessThan(at(taskResult));
    // The agent's id in the Task result is its task id.
    expect(taskResult.tool_use_result).toMatchObject({ status: 'completed', agentId: id });
    // Not background work: no live-set line, and no second result for a notification (in the whole
    // shared session: one result for each of its turns).
    expect(all.filter((m) => m.subtype === 'background_tasks_changed')).toEqual([]);
    expect(msgs.filter((m) => m.type === 'result')).toHaveLength(1);
    expect(all.filter((m) => m.type === 'result')).toHaveLength(Object.keys(SYNC_PARENTS).length);
  });

  it("two Task calls in one turn run concurrently: each subagent's Bash command sees the other start while it waits", async () => {
    // Overlap shown by order, not by wall clock: each command (meet, above) marks its start, then
    // waits (up to 8 s) for the other's mark. Run one after the other, the first would give up alone.
    const { result, msgs } = await syncTurn('fan out');
    expect(result).toMatchObject({ subtype: 'success', result: 'A-met-B + B-met-A' });
    expect(msgs.filter((m) => m.parent_tool_use_id === 'toolu_A').length).toBe(2);
    expect(msgs.filter((m) => m.parent_tool_use_id === 'toolu_B').length).toBe(2);
    // Two rows, open at the same time: both started before either ended.
    const rows = msgs.filter(
      (m) => m.type === 'system' && (m.subtype === 'task_started' || m.subtype === 'task_notification'),
    );
    expect(
      rows
        .map((m) => `${m.subtype}:${m.tool_use_id}`)
        .slice(0, 2)
        .sort(),
    ).toEqual(['task_started:toolu_A', 'task_started:toolu_B']);
    expect(
      rows
        .slice(2)
        .map((m) => `${m.status}:${m.tool_use_id}`)
        .sort(),
    ).toEqual(['completed:toolu_A', 'completed:toolu_B']);
    expect(new Set(rows.map((m) => m.task_id)).size).toBe(2);
  });

  it('a failing subagent (API error, max turns) or an unknown subagent_type is an is_error tool result (the unknown type naming the valid agents), never a crashed parent', async () => {
    const { result, msgs, exit } = await syncTurn('fail twice');
    expect(exit.code).toBe(0);
    expect(result).toMatchObject({ subtype: 'success', result: 'parent survived' });
    const byId = (id: string) =>
      msgs.find((m) => m.type === 'user' && m.parent_tool_use_id === null && m.message.content[0].tool_use_id === id)!
        .message.content[0];
    expect(byId('toolu_f1')).toMatchObject({ is_error: true });
    expect(byId('toolu_f1').content).toContain('subagent request was bad');
    expect(byId('toolu_f2')).toMatchObject({ is_error: true });
    expect(byId('toolu_f2').content).toContain('Reached maximum number of turns (1)');
    expect(byId('toolu_bad').is_error).toBe(true);
    expect(byId('toolu_bad').content).toContain(
      "Agent type 'nope' not found. Available agents: general-purpose, Explore",
    );
    // Each row ends failed, with the reason as its summary.
    const ends = msgs.filter((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(ends.map((m) => `${m.tool_use_id}:${m.status}`).sort()).toEqual(['toolu_f1:failed', 'toolu_f2:failed']);
    expect(ends.find((m) => m.tool_use_id === 'toolu_f1')!.summary).toContain('subagent request was bad');
    expect(msgs.filter((m) => m.subtype === 'task_updated').map((m) => m.patch.status)).toEqual(['failed', 'failed']);
    // The subagent's API error reached the host as its own (tagged) assistant message.
    expect(
      msgs.some(
        (m) =>
          m.type === 'assistant' &&
          m.parent_tool_use_id === 'toolu_f1' &&
          JSON.stringify(m.message).includes('API Error'),
      ),
    ).toBe(true);
  });
});

describe.concurrent('custom agents', () => {
  it('an agent from initialize.agents gets its prompt as system prompt and exactly its listed tools; the Task description lists it', async (ctx) => {
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? toolUse(
                'Task',
                { description: 'review', prompt: 'SUBREV: review it', subagent_type: 'reviewer' },
                'toolu_rev',
              )
            : text(`parent: ${resultText(lastToolResults(req)[0]?.content)}`),
        { 'SUBREV:': () => text('looks fine') },
      ),
    );
    const p = startAgent({ api, args: ARGS });
    p.send({
      type: 'control_request',
      request_id: 'init-1',
      request: {
        subtype: 'initialize',
        agents: {
          reviewer: {
            description: 'Reviews code carefully',
            prompt: 'You are the REVIEWER agent.',
            tools: ['Read', 'Grep', 'NoSuchTool'],
            model: 'opus',
          },
        },
      },
    });
    await p.waitFor((m) => m.type === 'control_response');
    const { result, msgs } = await runSession(p, 'review please');
    expect(result).toMatchObject({ subtype: 'success', result: 'parent: looks fine' });
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'init')!.agents).toEqual([
      'general-purpose',
      'Explore',
      'reviewer',
    ]);
    const parentReq = api.requests[0];
    const taskTool = parentReq.body.tools.find((t: any) => t.name === 'Agent');
    expect(taskTool.description).toContain('- reviewer: Reviews code carefully (Tools: Read, Grep)');
    // Offered once, as Agent (as the reference does): Task is a name it answers to, not a second tool.
    expect(parentReq.body.tools.find((t: any) => t.name === 'Task')).toBeUndefined();
    const subReq = api.requests.find((r) => firstUserText(r).startsWith('SUBREV:'))!;
    expect(systemText(subReq).startsWith('You are the REVIEWER agent.')).toBe(true);
    expect(toolNames(subReq)).toEqual(['Read', 'Grep']);
    expect(subReq.body.model).toBe('claude-opus-5-5');
  });

  it('agents from --agents and from .claude/agents/*.md are offered and run with their own prompt, tools and model', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'agents', 'doc-writer.md'),
      '---\nname: doc-writer\ndescription: "Writes docs: clear, short"\ntools: Read, Write\nmodel: haiku\n---\nYou are the DOC WRITER.\nWrite plainly.\n',
    );
    writeFileSync(join(cwd, '.claude', 'agents', 'broken.md'), 'no front matter here\n');
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? calls([
                ['Task', { description: 'd', prompt: 'SUBDOC: go', subagent_type: 'doc-writer' }, 'toolu_d'],
                [
                  'Task',
                  { description: 'f', prompt: 'SUBFLAG: go', subagent_type: 'flagged', model: 'inherit' },
                  'toolu_f',
                ],
              ])
            : text('both ran'),
        { 'SUBDOC:': () => text('doc done'), 'SUBFLAG:': () => text('flag done') },
      ),
    );
    const agentsJson = JSON.stringify({
      flagged: { description: 'From the flag', prompt: 'You are FLAGGED.', tools: ['Glob'] },
    });
    const p = startAgent({ api, cwd, args: [...ARGS, '--agents', agentsJson] });
    const { result, msgs } = await runSession(p, 'use custom agents');
    expect(result).toMatchObject({ subtype: 'success', result: 'both ran' });
    expect(msgs.find((m) => m.type === 'system' && m.subtype === 'init')!.agents).toEqual([
      'general-purpose',
      'Explore',
      'doc-writer',
      'flagged',
    ]);
    const doc = api.requests.find((r) => firstUserText(r).startsWith('SUBDOC:'))!;
    expect(systemText(doc).startsWith('You are the DOC WRITER.\nWrite plainly.')).toBe(true);
    expect(toolNames(doc)).toEqual(['Read', 'Write']);
    expect(doc.body.model).toBe('claude-haiku-5-5');
    const flag = api.requests.find((r) => firstUserText(r).startsWith('SUBFLAG:'))!;
    expect(systemText(flag).startsWith('You are FLAGGED.')).toBe(true);
    expect(toolNames(flag)).toEqual(['Glob']);
    expect(flag.body.model).toBe('claude-sonnet-4-5');
    expect(api.requests[0].body.tools.find((t: any) => t.name === 'Agent').description).toContain(
      '- doc-writer: Writes docs: clear, short (Tools: Read, Write)',
    );
    expect(p.stderr()).toContain('broken.md: no front matter');
  });

  it("an agent's model: default is the session's default (ANTHROPIC_MODEL), not the built-in one", async (ctx) => {
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? calls([['Task', { description: 'q', prompt: 'SUBQ: go', subagent_type: 'quick' }, 'toolu_q']])
            : text('ran'),
        { 'SUBQ:': () => text('quick done') },
      ),
    );
    const agentsJson = JSON.stringify({ quick: { description: 'Quick', prompt: 'You are QUICK.', model: 'default' } });
    const p = startAgent({
      api,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions', '--agents', agentsJson],
      env: { ANTHROPIC_MODEL: 'claude-haiku-4-5' },
    });
    const { result } = await runSession(p, 'use quick');
    expect(result).toMatchObject({ subtype: 'success', result: 'ran' });
    expect(api.requests[0].body.model).toBe('claude-haiku-4-5');
    expect(api.requests.find((r) => firstUserText(r).startsWith('SUBQ:'))!.body.model).toBe('claude-haiku-4-5');
  });

  it('a bad --agents value stops the start with exit 2 and a clear line', async () => {
    const p = startAgent({ args: [...ARGS, '--agents', '{"x": {"description": 1}}'] });
    p.endInput();
    const { code } = await p.exited;
    expect(code).toBe(2);
    expect(p.stderr()).toMatch(/--agents: agent "x": description/);
  });
});

describe.concurrent('subagent hooks', () => {
  it('SubagentStart and SubagentStop fire with agent_id, agent_type and the transcript path (command hooks from project settings)', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    const hook = (name: string) => [
      { matcher: 'Explore', hooks: [{ type: 'command', command: `cat >> ${name}.log; echo >> ${name}.log` }] },
    ];
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { SubagentStart: hook('start'), SubagentStop: hook('stop') } }),
    );
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? toolUse('Task', { description: 'h', prompt: 'SUBHOOK: go', subagent_type: 'Explore' }, 'toolu_h')
            : text('hooked'),
        {
          'SUBHOOK:': () => text('explored'),
        },
      ),
    );
    const p = startAgent({ api, cwd, args: ARGS });
    const { result } = await runSession(p, 'run hooks');
    expect(result).toMatchObject({ subtype: 'success', result: 'hooked' });
    const start = JSON.parse(readFileSync(join(cwd, 'start.log'), 'utf8').trim());
    const stop = JSON.parse(readFileSync(join(cwd, 'stop.log'), 'utf8').trim());
    expect(start).toMatchObject({ hook_event_name: 'SubagentStart', agent_type: 'Explore' });
    expect(stop).toMatchObject({
      hook_event_name: 'SubagentStop',
      agent_type: 'Explore',
      agent_id: start.agent_id,
      stop_hook_active: false,
      // What will still wake the session: nothing (the agent itself is part of the parent's turn).
      background_tasks: [],
      session_crons: [],
    });
    expect(start.agent_id).toMatch(/^a[0-9a-f]+$/);
    expect(readFileSync(stop.agent_transcript_path, 'utf8')).toContain('explored');
  });
});

describe.concurrent('initialize.appendSubagentSystemPrompt', () => {
  it("is added to each subagent's system prompt, never to the parent's", async (ctx) => {
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? toolUse(
                'Task',
                { description: 'Look', prompt: 'SUBA: look', subagent_type: 'general-purpose' },
                'toolu_ta',
              )
            : text('parent done'),
        { 'SUBA:': () => text('sub done') },
      ),
    );
    const p = startAgent({ api, args: ARGS });
    p.send({
      type: 'control_request',
      request_id: 'i1',
      request: { subtype: 'initialize', appendSubagentSystemPrompt: 'Subagent rule: answer in haiku.' },
    });
    expect((await p.waitFor((l) => l.type === 'control_response')).response).toMatchObject({ subtype: 'success' });
    const { result } = await runSession(p, 'delegate please');
    expect(result).toMatchObject({ subtype: 'success', result: 'parent done' });
    const sub = api.requests.filter((r) => firstUserText(r).startsWith('SUBA:'));
    const parent = api.requests.filter((r) => !firstUserText(r).startsWith('SUBA:'));
    expect(sub.length).toBe(1);
    expect(systemText(sub[0])).toContain('Subagent rule: answer in haiku.');
    expect(parent.length).toBeGreaterThan(0);
    for (const r of parent) expect(systemText(r)).not.toContain('Subagent rule');
  });
});

describe.concurrent('one subagent tool: offered as Agent, answering to Task', () => {
  const P = ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'];
  const isSub = (req: RecordedRequest) => firstUserText(req).startsWith('SUBNAME:');

  it('the request offers Agent alone, init lists Task, and a call by either name runs an agent', async (ctx) => {
    const api = await startTestApi(ctx, (req): ScriptedReply => {
      if (isSub(req)) return text(`answer to ${firstUserText(req)}`);
      const seen = resultsById(req);
      if (seen.byAgent) return text('both ran');
      if (seen.byTask) return toolUse('Agent', { description: 'second', prompt: 'SUBNAME: second' }, 'byAgent');
      return toolUse('Task', { description: 'first', prompt: 'SUBNAME: first' }, 'byTask');
    });
    const r = await runAgent({ api, args: ['-p', 'go', '--tools', 'Bash,Task', ...P] });
    expect(r.code).toBe(0);
    const init = r.json().find((m) => m.subtype === 'init')!;
    expect(init.tools).toEqual(['Bash', 'Task']);
    expect(toolNames(api.requests[0])).toEqual(['Bash', 'Agent']);
    const last = api.requests.filter((q) => !isSub(q)).at(-1)!;
    expect(resultsById(api.requests.filter((q) => !isSub(q))[1]).byTask).toEqual({
      text: expect.stringContaining('answer to SUBNAME: first'),
      isError: false,
    });
    expect(resultsById(last).byAgent).toEqual({
      text: expect.stringContaining('answer to SUBNAME: second'),
      isError: false,
    });
    expect(api.requests.filter(isSub)).toHaveLength(2);
  });

  it('--disallowedTools Task takes Agent away; a rule on Agent(type) holds for a Task call', async (ctx) => {
    const api = await startTestApi(ctx, (req): ScriptedReply => {
      if (resultsById(req).gone) return text('ok');
      return toolUse('Agent', { description: 'x', prompt: 'SUBNAME: x' }, 'gone');
    });
    const off = await runAgent({ api, args: ['-p', 'go', '--disallowedTools', 'Task', ...P] });
    expect(off.code).toBe(0);
    expect(toolNames(api.requests[0])).not.toContain('Agent');
    expect(off.json().find((m) => m.subtype === 'init')!.tools).not.toContain('Task');
    expect(resultsById(api.requests[1]).gone).toMatchObject({
      isError: true,
      text: expect.stringContaining('No such tool'),
    });
    await api.close();

    const api2 = await startTestApi(ctx, (req): ScriptedReply => {
      if (isSub(req)) return text('explored');
      if (resultsById(req).explore) return text('ok');
      return toolUse('Task', { description: 'x', prompt: 'SUBNAME: x', subagent_type: 'Explore' }, 'explore');
    });
    const denied = await runAgent({ api: api2, args: ['-p', 'go', '--disallowedTools', 'Agent(Explore)', ...P] });
    expect(denied.code).toBe(0);
    expect(toolNames(api2.requests[0])).toContain('Agent');
    expect(resultsById(api2.requests[1]).explore).toMatchObject({ isError: true });
    expect(api2.requests.some(isSub)).toBe(false);
  });
});

// Not beside the tests above: its result must come within a bound. A suite that is not concurrent
// runs after the concurrent ones have ended (vitest runs a file's consecutive concurrent suites
// together).
describe('synchronous subagents, timed alone', () => {
  it('interrupt during a synchronous subagent reaches it: its Bash group is killed and the result comes at once', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(
      ctx,
      routed(
        (req) =>
          turns(req) === 0
            ? toolUse('Task', { description: 's', prompt: 'SUBSLEEP: go', subagent_type: 'general-purpose' }, 'toolu_s')
            : text('after'),
        {
          'SUBSLEEP:': () => toolUse('Bash', { command: 'sleep 30 & echo $! > sub.pid; wait' }),
        },
      ),
    );
    const p = startAgent({ api, cwd, args: ARGS });
    p.sendRaw(userLine('sleep in a subagent'));
    const pid = Number(await waitForFile(join(cwd, 'sub.pid')));
    expect(alive(pid)).toBe(true);
    const asked = Date.now();
    p.send({ type: 'control_request', request_id: 'int-1', request: { subtype: 'interrupt' } });
    const result = await p.waitFor((m) => m.type === 'result');
    expect(Date.now() - asked).toBeLessThan(1500);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(await waitUntil(() => !alive(pid))).toBe(true);
    p.endInput();
    expect((await p.exited).code).toBe(1);
    // Its row ends stopped (task_updated says killed, as the SDK's TaskState does).
    const msgs = p.json();
    expect(msgs.find((m) => m.subtype === 'task_notification')).toMatchObject({
      tool_use_id: 'toolu_s',
      status: 'stopped',
      summary: 'Agent "s" was stopped',
    });
    expect(msgs.find((m) => m.subtype === 'task_updated')?.patch).toMatchObject({ status: 'killed' });
  });
});
