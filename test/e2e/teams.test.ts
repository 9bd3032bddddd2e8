// Agent teams end to end: a lead that forms a team, teammates that work in parallel in the same
// process and talk through their mailboxes, the lead's re-prompts after its result, and the end of
// the session when the host closes stdin while teammates still work.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type RecordedRequest, type ScriptedReply } from '../fake-api/server.js';
import { startAgent, startFakeApi, STREAM_ARGS, tempDir, turns, userLine, type FakeApi } from './harness.js';

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
        if (n === 1) return toolUse('SendMessage', { type: 'message', recipient: 'team-lead', content: 'the answer is 42', summary: 'answer' });
        return text('worker done');
      }
      if (n === 0) return toolUse('TeamCreate', { team_name: 'alpha', description: 'a test team' });
      if (n === 1)
        return toolUse('Task', { name: 'worker', team_name: 'alpha', description: 'Compute', prompt: 'W: compute the answer', subagent_type: 'general-purpose' }, 'toolu_spawn');
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
    expect(cfg.members).toEqual([expect.objectContaining({ name: 'worker', agentType: 'general-purpose' })]);
    const inbox = JSON.parse(readFileSync(join(dir, 'inboxes', 'team-lead.json'), 'utf8'));
    expect(inbox).toContainEqual(expect.objectContaining({ from: 'worker', text: 'the answer is 42', summary: 'answer', read: true }));

    // The teammate's own messages are tagged with the tool_use that spawned it.
    await waitIdle(join(dir, 'config.json'), 'worker');
    const msgs = p.json();
    const workerAssistant = msgs.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === 'toolu_spawn');
    expect(workerAssistant.length).toBeGreaterThanOrEqual(3);
    expect(msgs.find((m) => m.subtype === 'task_started')).toMatchObject({ tool_use_id: 'toolu_spawn', task_type: 'in_process_teammate' });
    // What the lead read: the teammate's words inside a <teammate-message>.
    const leadSaw = api.requests.map(lastUserText).find((t) => t.includes('the answer is 42'))!;
    expect(leadSaw).toMatch(/<teammate-message teammate_id="worker" summary="answer">\nthe answer is 42\n<\/teammate-message>/);

    // The worker is idle: EOF gives the lead its wrap-up turn, then the worker ends.
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(api.requests.some(isShutdownTurn)).toBe(true);
    const note = p.json().find((m) => m.subtype === 'task_notification')!;
    expect(note).toMatchObject({ tool_use_id: 'toolu_spawn', status: 'completed' });
    expect(note.summary).toContain('worker');
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

void existsSync;
void writeFileSync;
