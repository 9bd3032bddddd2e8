// A teammate's mail between its model turns (not only once its run ends), and --max-turns as a
// bound on a teammate's whole life across its runs; the TeammateIdle hook.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  firstUserText,
  lastUserText,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { startAgent, startFakeApi, STREAM_ARGS, tempDir, turns, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const ARGS = [...STREAM_ARGS, '--dangerously-skip-permissions', '--model', 'claude-sonnet-4-5'];
const TEAMS_ENV = { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };

const isTeammate = (req: RecordedRequest, name: string) => firstUserText(req).includes(`you are ${name}`);

function spawn(name: string): ScriptedReply {
  return toolUse(
    'Agent',
    { name, description: `Work as ${name}`, prompt: `X: you are ${name}`, subagent_type: 'general-purpose' },
    `toolu_spawn_${name}`,
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("agent teams: mail between a teammate's turns", () => {
  it('a message sent while the teammate runs a tool joins its next request, next to the tool result, and its transcript', async () => {
    const config = tempDir('agent-teams-config-');
    api = await startFakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (isTeammate(req, 'mid')) {
        if (n === 0) return toolUse('Bash', { command: 'sleep 1; echo slept' }, 'toolu_sleep');
        return text('done with the extra step');
      }
      if (n === 0) return spawn('mid');
      if (n === 1) return toolUse('SendMessage', { to: 'mid', message: 'also check the extra step', summary: 'extra' });
      if (n === 2) return text('dispatched');
      return text('noted');
    });
    const p = startAgent({ api, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('start a teammate'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'dispatched');
    await p.waitFor(
      (m) => m.type === 'result' && /done with the extra step/.test(JSON.stringify(api!.requests.at(-1)?.body ?? '')),
      10_000,
    );

    const mine = api.requests.filter((r) => isTeammate(r, 'mid'));
    // One run of two model calls: the message did not wait for the run to end.
    expect(mine).toHaveLength(2);
    const last = mine[1].body.messages.at(-1);
    expect(last.role).toBe('user');
    expect(last.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_sleep' });
    expect(last.content.at(-1)).toMatchObject({ type: 'text' });
    expect(last.content.at(-1).text).toMatch(
      /<teammate-message teammate_id="team-lead" summary="extra">\nalso check the extra step\n<\/teammate-message>/,
    );
    // The pairing is valid: the assistant message before it holds the tool_use.
    expect(mine[1].body.messages.at(-2).content).toContainEqual(
      expect.objectContaining({ type: 'tool_use', id: 'toolu_sleep' }),
    );

    // Its transcript has the message.
    const transcript = filesUnder(config).find(
      (f) => /agent-.*\.jsonl$/.test(f) && readFileSync(f, 'utf8').includes('you are mid'),
    )!;
    expect(readFileSync(transcript, 'utf8')).toContain('also check the extra step');
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

describe("agent teams: --max-turns bounds a teammate's whole life", () => {
  it('turns add up across its runs; when spent it is stopped and reported so', async () => {
    const config = tempDir('agent-teams-config-');
    let sent = false;
    api = await startFakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (isTeammate(req, 'lim')) {
        if (n === 0) return text('ready');
        return toolUse('Bash', { command: 'echo step' });
      }
      if (n === 0) return spawn('lim');
      if (n === 1) return text('dispatched');
      if (lastUserText(req).includes('idle_notification') && !sent) {
        sent = true;
        return toolUse('SendMessage', { to: 'lim', message: 'now work' });
      }
      return text('noted');
    });
    const p = startAgent({
      api,
      args: [...ARGS, '--max-turns', '3'],
      env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config },
    });
    p.sendRaw(userLine('start a teammate'));
    const note = await p.waitFor(
      (m) => m.type === 'system' && m.subtype === 'task_notification' && m.tool_use_id === 'toolu_spawn_lim',
      15_000,
    );
    expect(note).toMatchObject({ status: 'stopped' });
    expect(note.summary).toContain('reached its maximum of 3 turns');
    // 1 turn in its first run, 2 in its second (a per-run bound would have allowed 3 there).
    expect(api.requests.filter((r) => isTeammate(r, 'lim'))).toHaveLength(3);
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

describe('agent teams: the TeammateIdle hook', () => {
  it('fires with teammate_name and team_name as a teammate goes idle; exit 2 sends it back to work with the reason', async () => {
    const config = tempDir('agent-teams-config-');
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    const command =
      'cat >> idle.log; echo >> idle.log; if [ ! -e once ]; then touch once; echo "also write the summary" >&2; exit 2; fi';
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { TeammateIdle: [{ hooks: [{ type: 'command', command }] }] } }),
    );
    api = await startFakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (isTeammate(req, 'hk'))
        return text(lastUserText(req).includes('also write the summary') ? 'summary written' : 'ready');
      if (n === 0) return spawn('hk');
      if (n === 1) return text('dispatched');
      return text('noted');
    });
    const p = startAgent({ api, cwd, args: ARGS, env: { ...TEAMS_ENV, CLAUDE_CONFIG_DIR: config } });
    p.sendRaw(userLine('start a teammate'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'dispatched');
    await waitFor(() => readLines(join(cwd, 'idle.log')).length === 2);
    const [first, second] = readLines(join(cwd, 'idle.log')).map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      hook_event_name: 'TeammateIdle',
      teammate_name: 'hk',
      agent_type: 'general-purpose',
    });
    expect(typeof first.team_name).toBe('string');
    expect(first.team_name.length).toBeGreaterThan(0);
    expect(second).toMatchObject({ hook_event_name: 'TeammateIdle', teammate_name: 'hk' });
    const mine = api.requests.filter((r) => isTeammate(r, 'hk'));
    expect(mine).toHaveLength(2);
    expect(lastUserText(mine[1])).toContain('TeammateIdle hook feedback:\nalso write the summary');
    p.endInput();
    expect((await p.exited).code).toBe(0);
  });
});

function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim());
  } catch {
    return [];
  }
}

async function waitFor(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 50));
  }
}
