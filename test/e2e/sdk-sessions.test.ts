// Transcripts as the official SDK's session helpers read them: the helpers are the assertions.
// A session is run through query() against the fake API, then listSessions / getSessionInfo /
// getSessionMessages / forkSession / renameSession / tagSession / deleteSession / listSubagents /
// getSubagentMessages read and change what agent wrote, and agent resumes what they produced.
import {
  InMemorySessionStore,
  deleteSession,
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  listSubagents,
  query,
  renameSession,
  tagSession,
  type SDKMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { DEFERRED_REMINDER, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { prompts, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
let config: string;
let cwd: string;
beforeEach(() => {
  // The helpers read the same CLAUDE_CONFIG_DIR agent writes to.
  config = tempDir('agent-sessions-config-');
  cwd = tempDir('agent-sessions-cwd-');
  process.env.CLAUDE_CONFIG_DIR = config;
});
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function options(extra: Record<string, unknown> = {}) {
  const o = sdkOptions(api!.url, cwd, { allowedTools: ['Bash', 'Task'], ...extra });
  o.env.CLAUDE_CONFIG_DIR = config;
  return o as never;
}

/** Run prompts one after another in one process; returns every message the host saw. */
async function session(texts: string[], extra: Record<string, unknown> = {}): Promise<SDKMessage[]> {
  return runPrompts(options(extra), texts);
}

async function runPrompts(opts: never, texts: string[]): Promise<SDKMessage[]> {
  const input = prompts(texts);
  const out: SDKMessage[] = [];
  for await (const m of query({ prompt: input as never, options: opts })) {
    out.push(m);
    if (m.type === 'result') input.onResult();
  }
  return out;
}

const sessionIdOf = (ms: SDKMessage[]) => ms.find((m) => m.type === 'result')!.session_id;

/**
 * Earlier sessions made once for the file, each by one run with its own fake API: `first` answered
 * `One.` (one turn), or `first`, `second`, `third` answered `One.`, `Two.`, `Three.`. A test that
 * only needs such a session to exist gets a copy of its config folder as its own and works in the
 * same directory (the session's project), so what it changes no other test sees.
 */
const made: Partial<Record<1 | 3, Promise<{ config: string; cwd: string; id: string; answers: string[] }>>> = {};

async function makeEarlier(turns: 1 | 3) {
  const asked = ['first', 'second', 'third'].slice(0, turns);
  const own = await startFakeApi(['One.', 'Two.', 'Three.'].slice(0, turns).map((t) => text(t)));
  try {
    const shared = { config: tempDir('agent-sessions-config-'), cwd: tempDir('agent-sessions-cwd-') };
    const o = sdkOptions(own.url, shared.cwd, { allowedTools: ['Bash', 'Task'] });
    o.env.CLAUDE_CONFIG_DIR = shared.config;
    const out = await runPrompts(o as never, asked);
    const results = out.filter((m) => m.type === 'result');
    expect(
      results.map((m) => m.subtype),
      `the earlier ${turns}-turn session made for this file`,
    ).toEqual(asked.map(() => 'success'));
    return { ...shared, id: sessionIdOf(out), answers: out.filter((m) => m.type === 'assistant').map((m) => m.uuid) };
  } finally {
    await own.close();
  }
}

/** A copy of the earlier session of `turns` turns: this test's config folder gets it, `cwd` becomes its project. */
async function earlier(turns: 1 | 3) {
  const base = await (made[turns] ??= makeEarlier(turns));
  cpSync(base.config, config, { recursive: true });
  cwd = base.cwd;
  return { id: base.id, answers: base.answers };
}
const texts = (ms: Array<{ type: string; message: any }>) =>
  ms.map((m) => {
    const c = m.message.content;
    const parts = (typeof c === 'string' ? [{ type: 'text', text: c }] : c).map((b: any) =>
      b.type === 'text' ? b.text : b.type === 'tool_use' ? `tool_use:${b.name}` : `tool_result:${b.tool_use_id}`,
    );
    return `${m.type}: ${parts.join(' | ')}`;
  });
/**
 * The first prompt as the API got it, in every request of the session and of its resumes and forks:
 * with the deferred-tools reminder it was first sent with (kept in the transcript, told once).
 */
const FIRST = `user: first | ${DEFERRED_REMINDER}`;
/** The conversation the API got in one request, one line per message. */
const sent = (i: number) => texts(api!.requests[i].body.messages.map((m: any) => ({ type: m.role, message: m })));

describe('transcripts read by the SDK session helpers', () => {
  it('getSessionMessages returns the whole conversation with the uuids the host saw; listSessions and getSessionInfo show it with its title', async () => {
    api = await startFakeApi([
      toolUse('Bash', { command: 'echo hi' }, 'b1'),
      text('It said hi.'),
      text('Second answer.'),
    ]);
    const out = await session(['say hi with bash', 'and again'], { title: 'Greeting work' });
    const id = sessionIdOf(out);
    const messages = await getSessionMessages(id, { dir: cwd });
    expect(texts(messages as never)).toEqual([
      'user: say hi with bash',
      'assistant: tool_use:Bash',
      'user: tool_result:b1',
      'assistant: It said hi.',
      'user: and again',
      'assistant: Second answer.',
    ]);
    const hostAssistants = out.filter((m) => m.type === 'assistant').map((m) => m.uuid);
    expect(messages.filter((m) => m.type === 'assistant').map((m) => m.uuid)).toEqual(hostAssistants);
    expect(messages.every((m) => m.session_id === id)).toBe(true);

    const listed = await listSessions({ dir: cwd });
    expect(listed.map((s) => s.sessionId)).toEqual([id]);
    const info = await getSessionInfo(id, { dir: cwd });
    expect(info).toMatchObject({
      sessionId: id,
      customTitle: 'Greeting work',
      summary: 'Greeting work',
      firstPrompt: 'say hi with bash',
      cwd,
    });
  });

  it('renameSession and tagSession are read back, and agent still resumes the session afterwards', async () => {
    api = await startFakeApi([text('Two.')]);
    const { id } = await earlier(1);
    await renameSession(id, 'Renamed', { dir: cwd });
    await tagSession(id, 'important', { dir: cwd });
    expect(await getSessionInfo(id, { dir: cwd })).toMatchObject({ customTitle: 'Renamed', tag: 'important' });
    const again = await session(['second'], { resume: id });
    expect(sessionIdOf(again)).toBe(id);
    expect(api.requests).toHaveLength(1);
    expect(sent(0)).toEqual([FIRST, 'assistant: One.', 'user: second']);
    expect(texts((await getSessionMessages(id, { dir: cwd })) as never)).toHaveLength(4);
  });

  it('forkSession (whole and upToMessageId) makes sessions agent resumes with their history', async () => {
    api = await startFakeApi([text('from the fork'), text('from the short fork')]);
    const { id, answers } = await earlier(3);
    const { sessionId: fork } = await forkSession(id, { dir: cwd });
    expect(fork).not.toBe(id);
    expect(sessionIdOf(await session(['fourth'], { resume: fork }))).toBe(fork);
    expect(sent(0)).toEqual([
      FIRST,
      'assistant: One.',
      'user: second',
      'assistant: Two.',
      'user: third',
      'assistant: Three.',
      'user: fourth',
    ]);

    const { sessionId: short } = await forkSession(id, { dir: cwd, upToMessageId: answers[0] });
    await session(['instead'], { resume: short });
    expect(sent(1)).toEqual([FIRST, 'assistant: One.', 'user: instead']);
    expect(api.requests).toHaveLength(2);
    // The original is untouched by either fork.
    expect(texts((await getSessionMessages(id, { dir: cwd })) as never)).toHaveLength(6);
  });

  it('listSubagents and getSubagentMessages find a Task subagent transcript under the session folder', async () => {
    api = await startFakeApi([
      toolUse('Task', { description: 'Look', prompt: 'look around', subagent_type: 'general-purpose' }, 't1'),
      toolUse('Bash', { command: 'echo sub' }, 'sb1'),
      text('Sub found it.'),
      text('Main done.'),
    ]);
    const id = sessionIdOf(await session(['delegate']));
    const agents = await listSubagents(id, { dir: cwd });
    expect(agents).toHaveLength(1);
    const sub = await getSubagentMessages(id, agents[0]!, { dir: cwd });
    expect(texts(sub as never)).toEqual([
      'user: look around',
      'assistant: tool_use:Bash',
      'user: tool_result:sb1',
      'assistant: Sub found it.',
    ]);
    // The main conversation holds no subagent line.
    expect(texts((await getSessionMessages(id, { dir: cwd })) as never)).toEqual([
      'user: delegate',
      'assistant: tool_use:Task',
      'user: tool_result:t1',
      'assistant: Main done.',
    ]);
  });

  it('deleteSession removes it from listSessions', async () => {
    const { id } = await earlier(1);
    expect((await listSessions({ dir: cwd })).map((s) => s.sessionId)).toEqual([id]);
    await deleteSession(id, { dir: cwd });
    expect(await listSessions({ dir: cwd })).toEqual([]);
  });
});

describe('resume at a message', () => {
  it('resumeSessionAt resumes the branch ending at that message; a later plain resume follows the new branch', async () => {
    api = await startFakeApi([text('branch answer'), text('after the branch')]);
    const { id, answers } = await earlier(3);
    const branched = await session(['instead'], { resume: id, resumeSessionAt: answers[0] });
    expect(sessionIdOf(branched)).toBe(id);
    expect(sent(0)).toEqual([FIRST, 'assistant: One.', 'user: instead']);
    // The newest branch is the session now: the later prompts' branch is left aside.
    await session(['go on'], { resume: id });
    expect(api.requests).toHaveLength(2);
    expect(sent(1)).toEqual([FIRST, 'assistant: One.', 'user: instead', 'assistant: branch answer', 'user: go on']);
    expect(texts((await getSessionMessages(id, { dir: cwd })) as never)).toEqual([
      'user: first',
      'assistant: One.',
      'user: instead',
      'assistant: branch answer',
      'user: go on',
      'assistant: after the branch',
    ]);
  });

  it('resumeDropsTurn: accepted when only that turn is dropped, refused with the documented prefix when more would be', async () => {
    api = await startFakeApi([text('redo of three')]);
    const { id, answers } = await earlier(3);
    const messages = await getSessionMessages(id, { dir: cwd });
    const prompt = (t: string) =>
      messages.find((m) => m.type === 'user' && texts([m as never])[0] === `user: ${t}`)!.uuid;
    // Dropping from the first answer would drop the second and third turns: refused.
    const refused: SDKMessage[] = [];
    const run = query({
      prompt: 'x',
      options: options({ resume: id, resumeSessionAt: answers[0], resumeDropsTurn: prompt('second') }),
    });
    // The SDK hands over the error result, then throws on the exit code.
    await expect(async () => {
      for await (const m of run) refused.push(m);
    }).rejects.toThrow(/Resume rejected by --resume-drops-turn:/);
    const result = refused.find((m) => m.type === 'result') as any;
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(result.errors[0]).toMatch(/^Resume rejected by --resume-drops-turn:/);
    expect(api.requests).toHaveLength(0);
    // Dropping exactly the third turn is fine.
    await session(['third again'], { resume: id, resumeSessionAt: answers[1], resumeDropsTurn: prompt('third') });
    expect(api.requests).toHaveLength(1);
    expect(sent(0)).toEqual([FIRST, 'assistant: One.', 'user: second', 'assistant: Two.', 'user: third again']);
  });

  it('an unknown resumeSessionAt uuid fails the start with a clear message; nothing reaches the API', async () => {
    api = await startFakeApi([text('never')]);
    const { id } = await earlier(1);
    const r = query({
      prompt: 'x',
      options: options({ resume: id, resumeSessionAt: '99999999-9999-4999-8999-999999999999' }),
    });
    await expect(async () => {
      for await (const _ of r);
    }).rejects.toThrow();
    expect(api.requests).toHaveLength(0);
  });
});

describe('transcript robustness', () => {
  it('a torn last line is skipped on resume and the next line starts on a line of its own', async () => {
    api = await startFakeApi([text('Two.')]);
    const { id } = await earlier(1);
    const path = join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${id}.jsonl`);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"type":"assistant","message":{"content":[{"ty');
    await session(['second'], { resume: id });
    expect(api.requests).toHaveLength(1);
    expect(sent(0)).toEqual([FIRST, 'assistant: One.', 'user: second']);
    const torn = '{"type":"assistant","message":{"content":[{"ty';
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith(torn))).toEqual([torn]);
    expect(existsSync(path)).toBe(true);
  });
});

describe('sessionStore (--session-mirror)', () => {
  it('every transcript entry reaches the host store after its local write, the session and its subagent under their own keys', async () => {
    api = await startFakeApi([
      toolUse('Task', { description: 'look', prompt: 'say hi', subagent_type: 'general-purpose' }, 'task1'),
      text('Sub done.'),
      text('All done.'),
    ]);
    const store = new InMemorySessionStore();
    const out = await session(['delegate'], { sessionStore: store });
    const id = sessionIdOf(out);
    const key = { projectKey: cwd.replace(/[^a-zA-Z0-9]/g, '-'), sessionId: id };
    const local = readFileSync(join(config, 'projects', key.projectKey, `${id}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The store holds exactly what was written locally, in order.
    expect(store.getEntries(key)).toEqual(local);
    expect(local.some((e) => e.type === 'assistant')).toBe(true);
    const subkeys = await store.listSubkeys(key);
    expect(subkeys.length).toBe(1);
    const sub = store.getEntries({ ...key, subpath: subkeys[0] });
    expect(sub.some((e: any) => e.type === 'assistant' && JSON.stringify(e.message).includes('Sub done.'))).toBe(true);
    // The host saw no mirror frame as a message of its own.
    expect(out.some((m) => (m as { type: string }).type === 'transcript_mirror')).toBe(false);
  });
});
