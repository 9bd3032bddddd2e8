// Both ends of a process teammate's permission question over real inbox files: the teammate's
// relay (its askHost) and the lead's desk, each against a lead or teammate played by the test.
import { describe, expect, it } from 'vitest';
import type { AskHostRequest } from '../../../src/loop/toolPipeline.js';
import { Mailbox } from '../../../src/teams/mailbox.js';
import { PermissionDesk, type TeammateQuestionAnswerer } from '../../../src/teams/permissionDesk.js';
import { frameOf, inputDigest, permissionRequestFrame } from '../../../src/teams/permissionFrames.js';
import { createLeadRelay } from '../../../src/teams/permissionRelay.js';
import { tempDir } from '../../e2e/harness.js';
import { waitUntil } from '../../processes.js';

const me = { name: 'w', team: 't', agentId: 'w@t', agentType: 'general-purpose', color: '#00FF00' };
const edit: AskHostRequest = {
  tool_name: 'Edit',
  input: { file_path: '/a', old_string: 'x', new_string: 'y' },
  tool_use_id: 'toolu_1',
};

function setup(timeoutMs = 5000) {
  const problems: string[] = [];
  const mailbox = new Mailbox({ teamDir: tempDir('relay-'), onProblem: (p) => problems.push(p) });
  const relay = createLeadRelay({
    mailbox,
    me,
    lead: () => 'boss',
    timeoutMs,
    pollMs: 20,
    onProblem: (p) => problems.push(p),
  });
  /** The question the lead got, once it is there. */
  const question = async () => {
    expect(await waitUntil(() => mailbox.all('boss').length > 0, 3000, 10)).toBe(true);
    return frameOf(mailbox.all('boss')[0].text)!.body as any;
  };
  const answer = (body: object, from = 'boss') => mailbox.deliver('w', { from, text: JSON.stringify(body) });
  return { mailbox, relay, question, answer, problems };
}

describe('a process teammate asks its lead (the relay)', () => {
  it('an allow with updated input and rules for the session; the binding is checked', async () => {
    const { relay, question, answer } = setup();
    const asking = relay.ask(edit, new AbortController().signal);
    const q = await question();
    expect(q).toMatchObject({ type: 'permission_request', agent_id: 'w', tool_name: 'Edit', tool_use_id: 'toolu_1' });
    // An answer to another question, and one from someone else, are not taken for this one.
    await answer({ type: 'permission_response', request_id: 'perm-other', subtype: 'success' });
    await answer({ type: 'permission_response', request_id: q.request_id, subtype: 'success' }, 'mallory');
    const rule = { type: 'addRules', rules: [{ toolName: 'Edit' }], behavior: 'allow', destination: 'session' };
    await answer({
      type: 'permission_response',
      request_id: q.request_id,
      subtype: 'success',
      approved_request: { tool_use_id: 'toolu_1', tool_name: 'Edit', input_digest: inputDigest('Edit', edit.input) },
      response: { updated_input: { file_path: '/b', old_string: 'x', new_string: 'z' }, permission_updates: [rule] },
    });
    expect(await asking).toEqual({
      behavior: 'allow',
      updatedInput: { file_path: '/b', old_string: 'x', new_string: 'z' },
      updatedPermissions: [rule],
    });
  });

  it('an approval bound to another input is refused', async () => {
    const { relay, question, answer } = setup();
    const asking = relay.ask(edit, new AbortController().signal);
    const q = await question();
    await answer({
      type: 'permission_response',
      request_id: q.request_id,
      subtype: 'success',
      approved_request: { tool_use_id: 'toolu_1', tool_name: 'Edit', input_digest: inputDigest('Edit', {}) },
    });
    expect(await asking).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('described another call'),
    });
  });

  it("the controller's {approved: false} is a deny naming the lead", async () => {
    const { relay, question, answer } = setup();
    const asking = relay.ask(edit, new AbortController().signal);
    const q = await question();
    await answer({ type: 'permission_response', requestId: q.requestId, from: 'boss', approved: false });
    expect(await asking).toEqual({ behavior: 'deny', message: 'The team lead "boss" denied permission to use Edit.' });
  });

  it('an interrupt ends the wait at once', async () => {
    const { relay, question } = setup(60_000);
    const ac = new AbortController();
    const asking = relay.ask(edit, ac.signal);
    await question();
    const t0 = Date.now();
    ac.abort();
    expect(await asking).toMatchObject({ behavior: 'deny', interrupt: true });
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it("the lead's shutdown request ends the wait, and stays unread for the next turn", async () => {
    const { relay, question, mailbox } = setup(60_000);
    const asking = relay.ask(edit, new AbortController().signal);
    await question();
    await mailbox.deliver('w', { from: 'boss', text: JSON.stringify({ type: 'shutdown_request', requestId: 's1' }) });
    expect(await asking).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('asked this teammate to shut down'),
    });
    expect(mailbox.all('w').find((m) => m.text.includes('shutdown_request'))?.read).toBe(false);
  });

  it('a plan goes as plan_approval_request; a rejection carries the feedback, an approval the chosen mode', async () => {
    const { relay, question, answer, mailbox } = setup();
    const plan: AskHostRequest = { tool_name: 'ExitPlanMode', input: { plan: '1. do it' }, tool_use_id: 'toolu_p' };
    const first = relay.ask(plan, new AbortController().signal);
    const q = await question();
    expect(q).toMatchObject({ type: 'plan_approval_request', from: 'w', planContent: '1. do it', planFilePath: '' });
    await answer({ type: 'plan_approval_response', requestId: q.requestId, approved: false, feedback: 'add tests' });
    expect(await first).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('did not approve the plan: add tests'),
    });
    const second = relay.ask(plan, new AbortController().signal);
    await waitUntil(() => mailbox.all('boss').length === 2, 3000, 10);
    const q2 = frameOf(mailbox.all('boss')[1].text)!.body as any;
    await answer({
      type: 'plan_approval_response',
      requestId: q2.requestId,
      approved: true,
      permissionMode: 'acceptEdits',
    });
    expect(await second).toEqual({
      behavior: 'allow',
      updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    });
  });

  it('a late answer is dropped with a problem, never a turn', () => {
    const { relay, problems } = setup();
    const late = {
      from: 'boss',
      text: '{"type":"permission_response","request_id":"x","subtype":"success"}',
      timestamp: '',
      read: false,
    };
    expect(relay.absorbs(late)).toBe(true);
    expect(relay.absorbs({ ...late, text: 'hello' })).toBe(false);
    expect(problems).toEqual(['dropped a permission_response from "boss" that answers no question it is waiting on']);
  });
});

describe("the lead's desk answers its process teammates", () => {
  function desk(answerer: TeammateQuestionAnswerer | undefined) {
    const problems: string[] = [];
    const mailbox = new Mailbox({ teamDir: tempDir('desk-'), onProblem: (p) => problems.push(p) });
    const d = new PermissionDesk({
      mailbox,
      lead: 'team-lead',
      team: 't',
      isProcessTeammate: (n) => n === 'w',
      answerer: () => answerer,
      onProblem: (p) => problems.push(p),
    });
    const ask = (agentId = 'w', from = 'w') =>
      mailbox.deliver('team-lead', {
        from,
        text: permissionRequestFrame({
          requestId: 'r1',
          from: agentId,
          agentId: `${agentId}@t`,
          toolName: 'Edit',
          toolUseId: 'toolu_1',
          description: 'edit a',
          input: edit.input,
          suggestions: [],
        }),
      });
    const reply = async () => {
      expect(await waitUntil(() => mailbox.all('w').length > 0, 3000, 10), problems.join('\n')).toBe(true);
      return frameOf(mailbox.all('w')[0].text)!.body as any;
    };
    return { d, mailbox, ask, reply, problems };
  }

  it("asks the lead's answerer with the teammate's agent id and answers in the reference's frame", async () => {
    const seen: any[] = [];
    const { d, ask, reply, mailbox } = desk(async (req) => {
      seen.push(req);
      return { behavior: 'deny', message: 'no edits today' };
    });
    d.start();
    try {
      await ask();
      const r = await reply();
      expect(seen[0]).toMatchObject({
        tool_name: 'Edit',
        agent_id: 'w@t',
        tool_use_id: 'toolu_1',
        description: 'edit a',
      });
      expect(r).toMatchObject({
        type: 'permission_response',
        request_id: 'r1',
        subtype: 'error',
        error: 'no edits today',
        approved_request: { tool_use_id: 'toolu_1', tool_name: 'Edit', input_digest: inputDigest('Edit', edit.input) },
        requestId: 'r1',
        approved: false,
        from: 'team-lead',
      });
      // The question was taken off the lead's inbox: its model never reads it.
      expect(mailbox.all('team-lead').every((m) => m.read)).toBe(true);
    } finally {
      d.stop();
    }
  });

  it('a question whose agent_id is not its sender is denied; with nobody to ask, a deny that says so', async () => {
    const forged = desk(async () => ({ behavior: 'allow' }));
    await forged.ask('x', 'w');
    forged.d.take(forged.mailbox.all('team-lead'));
    expect(await forged.reply()).toMatchObject({
      subtype: 'error',
      error: expect.stringContaining('names "x" as its asker'),
    });
    const alone = desk(async () => undefined);
    await alone.ask();
    alone.d.take(alone.mailbox.all('team-lead'));
    expect(await alone.reply()).toMatchObject({
      subtype: 'error',
      error: expect.stringContaining('has nobody to ask'),
    });
  });

  it("a plan goes to the lead's answerer as an ExitPlanMode question; its allow approves, with the mode it chose", async () => {
    const seen: any[] = [];
    const { d, mailbox, reply } = desk(async (req) => {
      seen.push(req);
      return {
        behavior: 'allow',
        updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
      };
    });
    const plan = {
      from: 'w',
      text: JSON.stringify({
        type: 'plan_approval_request',
        from: 'w',
        requestId: 'p1',
        planContent: '1. x',
        planFilePath: '',
      }),
      timestamp: '',
      read: false,
    };
    expect(d.take([plan])).toEqual([]);
    expect(await reply()).toMatchObject({
      type: 'plan_approval_response',
      requestId: 'p1',
      approved: true,
      permissionMode: 'acceptEdits',
      from: 'team-lead',
    });
    expect(seen[0]).toMatchObject({ tool_name: 'ExitPlanMode', input: { plan: '1. x' }, agent_id: 'w@t' });
    expect(mailbox.all('w')).toHaveLength(1);
  });

  it("plain mail and a plan nobody can approve are left for the lead's model", () => {
    const { d } = desk(undefined);
    const plan = {
      from: 'w',
      text: JSON.stringify({ type: 'plan_approval_request', requestId: 'p1', planContent: 'x' }),
      timestamp: '',
      read: false,
    };
    const note = { from: 'w', text: 'hello', timestamp: '', read: false };
    const stranger = { ...plan, from: 'z' };
    expect(d.take([plan, note, stranger])).toEqual([plan, note, stranger]);
  });
});
