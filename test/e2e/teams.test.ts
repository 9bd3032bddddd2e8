// Agent teams end to end: a lead that forms a team, teammates that work in parallel in the same
// process and talk through their mailboxes, the lead's re-prompts after its result, and the end of
// the session when the host closes stdin while teammates still work.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { waitUntil } from '../processes.js';
import {
  resultsById,
  resultText,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  turns,
  userLine,
  type FakeApi,
} from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];
const TEAMS_ENV = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };

/** Which teammate a request is from (its first message is the lead's), or null for the lead. */
function teammateOf(req: RecordedRequest): string | null {
  const first = firstUserText(req);
  const m = /^<teammate-message teammate_id="team-lead"[^>]*>\n(\w+):/.exec(first);
  return m ? m[1] : null;
}

const isShutdownTurn = (req: RecordedRequest) => lastUserText(req).includes('You MUST shut down your team');

describe('agent teams: stdin open', () => {
  it('TeamCreate + a teammate whose SendMessage produces a second result; team files on disk; exit on EOF after idle', async () => {
    const config = tempDir('agent-teams-config-');
    api = await startFakeApi((req): ScriptedReply => {
      const who = teammateOf(req);
      const n = turns(req);
      if (who === 'W') {
        if (n === 0) return toolUse('Bash', { command: 'echo working' });
        if (n === 1)
          return toolUse('SendMessage', {
            type: 'message',
            recipient: 'team-lead',
            content: 'the answer is 42',
            summary: 'answer',
          });
        return text('worker done');
      }
      if (n === 0) return toolUse('TeamCreate', { team_name: 'alpha', description: 'a test team' });
      if (n === 1)
        return toolUse(
          'Task',
          {
            name: 'worker',
            team_name: 'alpha',
            description: 'Compute',
            prompt: 'W: compute the answer',
            subagent_type: 'general-purpose',
          },
          'toolu_spawn',
        );
      if (n === 2) return text('dispatched');
      if (isShutdownTurn(req)) return text('wrapping up');
      const last = lastUserText(req);
      if (last.includes('the answer is 42')) return text('lead got: 42');
      return text('noted');
    });
    const p = startAgent({ api, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('form a team and find the answer'));
    const first = await p.waitFor((m) => m.type === 'result');
    expect(first).toMatchObject({ subtype: 'success', result: 'dispatched' });
    const second = await p.waitFor((m) => m.type === 'result' && m.result === 'lead got: 42', 10_000);
    expect(second.session_id).toBe(first.session_id);

    // The team files: config with the member, the lead's inbox holding the (now read) message.
    const dir = join(config, 'teams', 'alpha');
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(cfg).toMatchObject({ name: 'alpha', description: 'a test team', leadAgentId: 'team-lead@alpha' });
    // The lead is a member too, first, in the reference's shape.
    expect(cfg.members).toEqual([
      expect.objectContaining({
        name: 'team-lead',
        agentId: 'team-lead@alpha',
        agentType: 'team-lead',
        tmuxPaneId: 'leader',
        subscriptions: [],
        backendType: 'in-process',
      }),
      expect.objectContaining({ name: 'worker', agentType: 'general-purpose' }),
    ]);
    const inbox = JSON.parse(readFileSync(join(dir, 'inboxes', 'team-lead.json'), 'utf8'));
    expect(inbox).toContainEqual(
      expect.objectContaining({ from: 'worker', text: 'the answer is 42', summary: 'answer', read: true }),
    );

    // The teammate's own messages are tagged with the tool_use that spawned it.
    await waitIdle(join(dir, 'config.json'), 'worker');
    // Its last message may still be on its way through stdout when the config file says idle.
    await p.waitFor(
      (m) =>
        m.type === 'assistant' &&
        m.parent_tool_use_id === 'toolu_spawn' &&
        JSON.stringify(m.message.content).includes('worker done'),
    );
    const msgs = p.json();
    const workerAssistant = msgs.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_spawn');
    expect(workerAssistant.length).toBeGreaterThanOrEqual(3);
    expect(msgs.find((m) => m.subtype === 'task_started')).toMatchObject({
      tool_use_id: 'toolu_spawn',
      task_type: 'in_process_teammate',
    });
    // What the lead read: the teammate's words inside a <teammate-message>.
    const leadSaw = api.requests.map(lastUserText).find((t) => t.includes('the answer is 42'))!;
    expect(leadSaw).toMatch(
      /<teammate-message teammate_id="worker" summary="answer">\nthe answer is 42\n<\/teammate-message>/,
    );

    // The worker is idle: EOF gives the lead its wrap-up turn, then the worker ends.
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(api.requests.some(isShutdownTurn)).toBe(true);
    const note = p.json().find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ tool_use_id: 'toolu_spawn', status: 'completed' });
    expect(note.summary).toContain('worker');
  });
});

/** A lead that spawns the named teammates (one Agent call each, in one turn) and then says `dispatched`. */
function spawnTurn(names: string[], prefix: string, tool = 'Agent'): ScriptedReply {
  return {
    content: names.map((name) => ({
      type: 'tool_use' as const,
      id: `toolu_spawn_${name}`,
      name: tool,
      input: {
        name,
        description: `Work as ${name}`,
        prompt: `${prefix}: you are ${name}`,
        subagent_type: 'general-purpose',
      },
    })),
  };
}

/** Which named teammate a request is from (`X: you are NAME`), or null for the lead. */
function memberOf(req: RecordedRequest): string | null {
  const m = /^<teammate-message teammate_id="team-lead"[^>]*>\n\w+: you are (\w+)/.exec(firstUserText(req));
  return m ? m[1] : null;
}

/** Processes whose command line contains `marker` (ps, not our own grep). */
function processesWith(marker: string): string[] {
  try {
    return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(marker) && !l.includes('ps -eo'));
  } catch {
    return [];
  }
}

describe('agent teams: the shutdown handshake', () => {
  it('TeamDelete refuses while a member is live; shutdown_request → the teammate refuses with a reason, then approves → it stops → TeamDelete works', async () => {
    const config = tempDir('agent-teams-config-');
    const leadSaw: string[] = [];
    const results: Record<string, { text: string; isError: boolean }> = {};
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      const last = lastUserText(req);
      if (who === 'worker') {
        if (n === 0) return text('ready');
        if (lastToolResults(req).length) return text('ok');
        const id = /"requestId":"([^"]+)"/.exec(last)?.[1];
        if (id && !last.includes('second'))
          return toolUse('SendMessage', {
            type: 'shutdown_response',
            request_id: id,
            approve: false,
            content: 'still writing the report',
          });
        if (id)
          return toolUse('SendMessage', { message: { type: 'shutdown_response', request_id: id, approve: true } });
        return text('ok');
      }
      Object.assign(results, resultsById(req));
      if (n === 0) return toolUse('TeamCreate', { team_name: 'hs' });
      if (n === 1) return spawnTurn(['worker'], 'S', 'Task');
      if (n === 2) return toolUse('TeamDelete', {}, 'toolu_del1');
      if (n === 3) return toolUse('SendMessage', { type: 'shutdown_request', recipient: 'worker', content: 'first' });
      if (n === 4) return text('asked');
      if (lastToolResults(req).length) return text(results.toolu_del2 ? 'team deleted' : 'noted');
      leadSaw.push(last);
      if (last.includes('shutdown_rejected'))
        return toolUse('SendMessage', { to: 'worker', message: { type: 'shutdown_request', reason: 'second' } });
      if (last.includes('shutdown_approved')) return toolUse('TeamDelete', {}, 'toolu_del2');
      return text('noted');
    });
    const p = startAgent({ api, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('form, then shut down'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'team deleted', 25_000);
    expect(results.toolu_del1).toMatchObject({ isError: true });
    expect(results.toolu_del1.text).toMatch(/Cannot delete team "hs": 1 teammate\(s\) still live \(worker: /);
    expect(leadSaw.join('\n')).toMatch(/"type":"shutdown_rejected".*"reason":"still writing the report"/);
    expect(results.toolu_del2).toMatchObject({ isError: false });
    expect(existsSync(join(config, 'teams', 'hs'))).toBe(false);
    const note = p.json().find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ status: 'completed' });
    expect(note.summary).toContain('shut down at the lead');
    p.endInput();
    expect((await p.exited).code).toBe(0);
    // The team was gone before stdin ended: no wrap-up turn was needed.
    expect(api.requests.some(isShutdownTurn)).toBe(false);
  });
});

describe('agent teams: the host closes stdin while teammates work', () => {
  it('stdin closed right after the prompt: the teammate finishes, its message reaches the lead, then the wrap-up turn, then exit; nothing lost', async () => {
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who === 'worker') {
        if (n === 0) return toolUse('Bash', { command: 'sleep 2; echo slept' });
        if (n === 1)
          return toolUse('SendMessage', { to: 'team-lead', message: 'findings: 17 files', summary: 'findings' });
        return text('worker finished');
      }
      if (n === 0) return spawnTurn(['worker'], 'C');
      if (n === 1) return text('dispatched');
      if (isShutdownTurn(req)) return text('team wrapped up');
      if (lastUserText(req).includes('findings: 17 files')) return text('lead read the findings');
      return text('noted');
    });
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('dispatch a worker'));
    p.endInput();
    const { code } = await p.exited;
    expect(code).toBe(0);
    const results = p.json().filter((m) => m.type === 'result');
    const texts = results.map((r) => r.result);
    expect(texts[0]).toBe('dispatched');
    expect(texts).toContain('lead read the findings');
    expect(texts[texts.length - 1]).toBe('team wrapped up');
    expect(texts.indexOf('lead read the findings')).toBeLessThan(texts.length - 1);
    expect(new Set(results.map((r) => r.session_id)).size).toBe(1);
    // The worker's whole run was seen: its command's output, its last words, and its end.
    const msgs = p.json();
    const bashOut = msgs.find(
      (m) =>
        m.type === 'user' &&
        m.parent_tool_use_id === 'toolu_spawn_worker' &&
        m.tool_use_result?.stdout?.includes('slept'),
    );
    expect(bashOut).toBeDefined();
    const note = msgs.find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ tool_use_id: 'toolu_spawn_worker', status: 'completed' });
    expect(note.summary).toContain('worker finished');
  });

  it('the teammate timeout: a teammate that never finishes is stopped and reported stopped with what it had done; no process is left', async () => {
    const marker = `31.${Math.floor(Math.random() * 1e6)}`;
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who === 'slow') {
        if (n === 0)
          return {
            content: [
              { type: 'text', text: 'starting the long job' },
              { type: 'tool_use', name: 'Bash', input: { command: `sleep ${marker}` } },
            ],
          };
        return text('never reached');
      }
      if (n === 0) return spawnTurn(['slow'], 'D');
      if (n === 1) return text('dispatched');
      return text(`lead saw: ${lastUserText(req).slice(0, 40)}`);
    });
    const p = startAgent({ api, args: [...ARGS, '--teammate-timeout', '1500ms'] });
    p.sendRaw(userLine('start a slow teammate'));
    p.endInput();
    const started = Date.now();
    const { code } = await p.exited;
    expect(Date.now() - started).toBeLessThan(8000);
    expect(code).toBe(0);
    const msgs = p.json();
    const note = msgs.find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ tool_use_id: 'toolu_spawn_slow', status: 'stopped' });
    expect(note.summary).toContain('slow');
    expect(note.summary).toContain('teammate timeout');
    expect(note.summary).toContain('starting the long job');
    // The lead was told (its last turn carries the notification), and the sleep is gone.
    expect(api.requests.some((r) => lastUserText(r).includes('<status>stopped</status>'))).toBe(true);
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
  });
});

describe("agent teams: today's spelling (Agent with name, ListAgents, SendMessage {to})", () => {
  it('two named agents run in parallel, ListAgents lists them, SendMessage {to} reaches the lead; TeamCreate is not offered without the flag', async () => {
    // Side by side shown by order, not by wall clock: each teammate's command marks its start, then
    // waits (up to 8 s) for the other's mark; run one after the other, the first would give up alone.
    const other = { alice: 'bob', bob: 'alice' } as Record<string, string>;
    const meet = (me: string) =>
      `touch ${me}.started; for i in $(seq 400); do [ -e ${other[me]}.started ] && break; sleep 0.02; done; [ -e ${other[me]}.started ] && echo met-${other[me]} || echo alone`;
    let listed = '';
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who) {
        if (n === 0) return toolUse('Bash', { command: meet(who) });
        if (n === 1) {
          const met = resultText(lastToolResults(req)[0]?.content).trim();
          return toolUse('SendMessage', { to: 'team-lead', message: `${who} done (${met})`, summary: `${who} report` });
        }
        return text(`${who} idle`);
      }
      if (n === 0) return spawnTurn(['alice', 'bob'], 'H');
      if (n === 1) return toolUse('ListAgents', {});
      if (n === 2) {
        listed = resultText(lastToolResults(req)[0]?.content);
        return text('dispatched');
      }
      return text('got it');
    });
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('two teammates'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'dispatched');
    // Both messages reach the lead (in one turn or two).
    const seen = () =>
      api!.requests
        .filter((r) => !memberOf(r))
        .map(lastUserText)
        .join('\n');
    expect(await waitUntil(() => seen().includes('alice done') && seen().includes('bob done'), 10_000)).toBe(true);
    expect(seen()).toMatch(/<teammate-message teammate_id="alice" summary="alice report">/);
    // The two commands ran side by side, not one after the other.
    expect(seen()).toContain('alice done (met-bob)');
    expect(seen()).toContain('bob done (met-alice)');
    expect(listed).toMatch(/alice \(general-purpose\): (working|idle)/);
    expect(listed).toMatch(/bob \(general-purpose\): (working|idle)/);
    const init = p.json().find((m) => m.subtype === 'init')!;
    expect(init.tools).toEqual(expect.arrayContaining(['SendMessage', 'ListAgents']));
    expect(init.tools).not.toContain('TeamCreate');
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

describe('agent teams: interrupt and signals with live teammates', () => {
  const slowTeam =
    (marker: string) =>
    (req: RecordedRequest): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who) return n === 0 ? toolUse('Bash', { command: `sleep ${marker}` }) : text('never');
      if (n === 0) return spawnTurn(['one', 'two'], 'G');
      if (n === 1) return text('dispatched');
      return text('after');
    };

  it('interrupt stops every working teammate mid-tool; each is reported stopped and its command is gone', async () => {
    const marker = `32.${Math.floor(Math.random() * 1e6)}`;
    api = await startFakeApi(slowTeam(marker));
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('start two'));
    await p.waitFor((m) => m.type === 'result');
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 2, 5000)).toBe(true);
    p.send({ type: 'control_request', request_id: 'int1', request: { subtype: 'interrupt' } });
    await p.waitFor((m) => m.type === 'control_response' && m.response?.request_id === 'int1');
    expect(
      await waitUntil(
        () => p.json().filter((m) => m.subtype === 'task_notification' && m.status === 'stopped').length === 2,
        5000,
      ),
    ).toBe(true);
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });

  it('SIGTERM stops everything at once: each teammate reported stopped, exit 143, no process left', async () => {
    const marker = `33.${Math.floor(Math.random() * 1e6)}`;
    api = await startFakeApi(slowTeam(marker));
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('start two'));
    await p.waitFor((m) => m.type === 'result');
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 2, 5000)).toBe(true);
    const sent = Date.now();
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(Date.now() - sent).toBeLessThan(4000);
    expect(code).toBe(143);
    const notes = p.json().filter((m) => m.subtype === 'task_notification');
    expect(notes.map((n) => [n.tool_use_id, n.status]).sort()).toEqual([
      ['toolu_spawn_one', 'stopped'],
      ['toolu_spawn_two', 'stopped'],
    ]);
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
  });
});

describe('agent teams: limits and TaskStop reach teammates', () => {
  it('--max-budget-usd holds for the whole session: a teammate over it stops with the budget error, and the lead hears so', async () => {
    const costly = { input_tokens: 1_000_000, output_tokens: 0 }; // $3 a call on Sonnet 4.5
    let mateCalls = 0;
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who) {
        mateCalls++;
        return { ...toolUse('Bash', { command: 'echo spend' }), usage: costly };
      }
      if (n === 0) return { ...spawnTurn(['spender'], 'B'), usage: costly };
      if (n === 1) return text('dispatched');
      return text('lead after the budget');
    });
    const p = startAgent({ api, args: [...ARGS, '--max-budget-usd', '5'] });
    p.sendRaw(userLine('spend'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'dispatched');
    const leadTold = () =>
      api!.requests.some((r) => !memberOf(r) && lastUserText(r).includes('Reached maximum budget'));
    expect(await waitUntil(leadTold, 10_000)).toBe(true);
    expect(mateCalls).toBe(1);
    p.endInput();
    await p.exited;
  });

  it("TaskStop takes a teammate's name and stops it mid-tool", async () => {
    const marker = `34.${Math.floor(Math.random() * 1e6)}`;
    let stopResult: { text: string; isError: boolean } | undefined;
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who) return n === 0 ? toolUse('Bash', { command: `sleep ${marker}` }) : text('never');
      if (n === 0) return spawnTurn(['sleeper'], 'T');
      if (n === 1) return text('dispatched');
      const r = resultsById(req);
      if (r.toolu_stop) {
        stopResult = r.toolu_stop;
        return text('stopped it');
      }
      return toolUse('TaskStop', { task_id: 'sleeper' }, 'toolu_stop');
    });
    const p = startAgent({ api, args: ARGS });
    p.sendRaw(userLine('start'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'dispatched');
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 1, 5000)).toBe(true);
    p.sendRaw(userLine('stop the sleeper'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'stopped it');
    expect(stopResult).toMatchObject({ isError: false });
    expect(stopResult!.text).toMatch(/Successfully stopped task: t[0-9a-f]{8}/);
    const note = p.json().find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ tool_use_id: 'toolu_spawn_sleeper', status: 'stopped' });
    expect(await waitUntil(() => processesWith(`sleep ${marker}`).length === 0, 3000)).toBe(true);
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

describe('agent teams: mailboxes', () => {
  it('two teammates messaging each other and the lead at the same time: no message is lost', async () => {
    const config = tempDir('agent-teams-config-');
    const N = 4;
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who) {
        const other = who === 'alice' ? 'bob' : 'alice';
        if (n === 0)
          return {
            content: Array.from({ length: N }, (_, i) => [
              {
                type: 'tool_use' as const,
                name: 'SendMessage',
                input: { to: other, message: `${who}->${other} #${i}` },
              },
              {
                type: 'tool_use' as const,
                name: 'SendMessage',
                input: { type: 'message', recipient: 'team-lead', content: `${who}->lead #${i}` },
              },
            ]).flat(),
          };
        return text(`${who} sent all`);
      }
      if (n === 0) return toolUse('TeamCreate', { team_name: 'mail' });
      if (n === 1) return spawnTurn(['alice', 'bob'], 'E', 'Task');
      if (n === 2) return text('dispatched');
      return text('ok');
    });
    const p = startAgent({ api, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('chat'));
    const inboxes = join(config, 'teams', 'mail', 'inboxes');
    const texts = (name: string) => {
      try {
        return JSON.parse(readFileSync(join(inboxes, `${name}.json`), 'utf8')).map((m: any) => m.text as string);
      } catch {
        return [];
      }
    };
    const want = (from: string, to: string) => Array.from({ length: N }, (_, i) => `${from}->${to} #${i}`);
    const complete = () =>
      want('alice', 'lead').every((t) => texts('team-lead').includes(t)) &&
      want('bob', 'lead').every((t) => texts('team-lead').includes(t)) &&
      want('alice', 'bob').every((t) => texts('bob').includes(t)) &&
      want('bob', 'alice').every((t) => texts('alice').includes(t));
    expect(await waitUntil(complete, 10_000)).toBe(true);
    // Every tool call said it was delivered; no stray temp or lock file is left.
    const sendResults = () =>
      p.json().filter((m) => m.type === 'user' && m.parent_tool_use_id && m.tool_use_result?.routing);
    expect(await waitUntil(() => sendResults().length === 4 * N, 5000)).toBe(true);
    const sends = sendResults();
    expect(sends.every((m) => m.message.content[0].is_error !== true)).toBe(true);
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const { readdirSync } = await import('node:fs');
    if (existsSync(inboxes))
      expect(readdirSync(inboxes).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'))).toEqual([]);
  });

  it('a corrupted inbox is reported and set aside, the session goes on; a message that cannot be written is a failed SendMessage', async () => {
    const config = tempDir('agent-teams-config-');
    const inboxes = join(config, 'teams', 'broken', 'inboxes');
    let failedSend: { text: string; isError: boolean } | undefined;
    api = await startFakeApi((req): ScriptedReply => {
      const who = memberOf(req);
      const n = turns(req);
      if (who === 'worker') {
        // Half-written JSON in the lead's inbox, as a writer that died mid-write leaves it.
        if (n === 0)
          return toolUse('Bash', {
            command: `mkdir -p ${inboxes} && printf '[{"from": "x", "te' > ${join(inboxes, 'team-lead.json')}`,
          });
        if (n === 1) return toolUse('SendMessage', { to: 'team-lead', message: 'after the corruption' });
        return text('worker done');
      }
      if (n === 0) return toolUse('TeamCreate', { team_name: 'broken' });
      if (n === 1) return spawnTurn(['worker'], 'F', 'Task');
      if (n === 2) return text('dispatched');
      const results = resultsById(req);
      if (results.toolu_failsend) {
        failedSend = results.toolu_failsend;
        return text('the send failed');
      }
      if (lastUserText(req).endsWith('message the worker'))
        return toolUse('SendMessage', { to: 'worker', message: 'hi' }, 'toolu_failsend');
      if (lastUserText(req).includes('after the corruption')) return text('lead still works');
      return text('ok');
    });
    const p = startAgent({ api, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('go'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'lead still works', 10_000);
    const problem = await p.waitFor((m) => m.type === 'system' && m.subtype === 'team_problem');
    expect(problem.message).toMatch(/team-lead\.json is malformed/);
    expect(p.stderr()).toMatch(/team-lead\.json is malformed/);
    const { readdirSync, mkdirSync } = await import('node:fs');
    const aside = readdirSync(inboxes).filter((f) => f.startsWith('team-lead.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(inboxes, aside[0]), 'utf8')).toBe('[{"from": "x", "te');

    // A mailbox that cannot be written: the lead's SendMessage fails with the reason.
    await waitIdle(join(config, 'teams', 'broken', 'config.json'), 'worker');
    mkdirSync(join(inboxes, 'worker.json'), { recursive: true });
    p.sendRaw(userLine('message the worker'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'the send failed');
    expect(failedSend).toMatchObject({ isError: true });
    expect(failedSend!.text).toMatch(/The message to "worker" was not delivered: .*EISDIR/);
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

async function waitIdle(configFile: string, name: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const cfg = JSON.parse(readFileSync(configFile, 'utf8'));
      if (cfg.members.some((m: any) => m.name === name && m.status === 'idle')) return;
    } catch {
      /* not written yet */
    }
    if (Date.now() > deadline) throw new Error(`${name} never went idle`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
