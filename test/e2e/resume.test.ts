// --resume, --continue and --fork-session: the stored transcript is sent to the API again.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeApi, text, toolUse } from '../fake-api/server.js';
import { DEFERRED_REMINDER, runAgent, startTestApi, tempDir, once } from './harness.js';
import { sdkOptions } from './sdkHost.js';

const PRINT = ['--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash'];

function projectDir(config: string, cwd: string): string {
  return join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

function lines(path: string): Array<Record<string, any>> {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/**
 * The first run, made once for the file (its own fake API): a Bash call and an answer, in one
 * working directory. Each test gets a copy of its config folder, so the same session in the same
 * directory, and what its own runs add to it no other test sees.
 */
const made = once(makeFirstRun);

async function makeFirstRun() {
  const api = await startFakeApi([toolUse('Bash', { command: 'echo hi' }, 'b1'), text('It said hi.')]);
  try {
    const config = tempDir('agent-config-');
    const cwd = tempDir();
    const r = await runAgent({
      api,
      cwd,
      env: { CLAUDE_CONFIG_DIR: config },
      args: ['-p', 'say hi with bash', ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    return { config, cwd, sessionId: r.json().find((m) => m.type === 'result')!.session_id as string };
  } finally {
    await api.close();
  }
}

/** A copy of the first run: its session id, a config folder of the test's own, the shared working directory. */
async function firstRun() {
  const { config: shared, cwd, sessionId } = await made();
  const config = tempDir('agent-config-');
  cpSync(shared, config, { recursive: true });
  return { config, cwd, sessionId, path: join(projectDir(config, cwd), `${sessionId}.jsonl`) };
}

/** The conversation as the API saw it, reduced to role + block types / texts. */
function shape(messages: any[]) {
  return messages.map((m) => ({
    role: m.role,
    content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).map((b: any) =>
      b.type === 'text'
        ? `text:${b.text}`
        : b.type === 'tool_use'
          ? `tool_use:${b.id}`
          : `tool_result:${b.tool_use_id}${b.is_error ? ':error' : ''}`,
    ),
  }));
}

// The first prompt carries the deferred-tools reminder it was sent with: the transcript keeps it
// (an attachment line), so a resumed conversation is sent as before and is not told it again.
const EARLIER = [
  { role: 'user', content: ['text:say hi with bash', `text:${DEFERRED_REMINDER}`] },
  { role: 'assistant', content: ['tool_use:b1'] },
  { role: 'user', content: ['tool_result:b1'] },
  { role: 'assistant', content: ['text:It said hi.'] },
];

describe.concurrent('resume', () => {
  it('--resume ID sends the whole earlier conversation, keeps the session id, and grows the transcript', async (ctx) => {
    const api = await startTestApi(ctx, [text('You asked me to say hi.')]);
    const first = await firstRun();
    const before = lines(first.path).length;
    const r = await runAgent({
      api,
      cwd: first.cwd,
      env: { CLAUDE_CONFIG_DIR: first.config },
      args: ['-p', 'what did I ask?', '--resume', first.sessionId, ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(shape(api.requests[0].body.messages)).toEqual([
      ...EARLIER,
      { role: 'user', content: ['text:what did I ask?'] },
    ]);
    const out = r.json();
    expect(out.find((m) => m.type === 'system' && m.subtype === 'init')!.session_id).toBe(first.sessionId);
    expect(out.find((m) => m.type === 'result')).toMatchObject({
      session_id: first.sessionId,
      result: 'You asked me to say hi.',
    });
    const after = lines(first.path);
    expect(after.length).toBeGreaterThan(before);
    // The reminder is on the chain right after the prompt it was added to, with the text sent.
    const told = after.findIndex((l) => l.type === 'attachment');
    expect(after[told - 1]).toMatchObject({ type: 'user', message: { content: 'say hi with bash' } });
    expect(after[told]).toMatchObject({
      parentUuid: after[told - 1].uuid,
      attachment: { type: 'deferred_tools', names: expect.arrayContaining(['CronList', 'WebFetch']) },
      rendered: [{ content: DEFERRED_REMINDER }],
    });
    expect(after.filter((l) => l.type === 'attachment')).toHaveLength(1);
    // Results are not conversation: the last line is the answer, chained to the new prompt.
    expect(after.at(-1)).toMatchObject({ type: 'assistant', sessionId: first.sessionId });
    const prompt = after.find((l) => l.type === 'user' && l.message.content === 'what did I ask?')!;
    expect(prompt.parentUuid).toBe(after[before - 1].uuid);
    expect(readdirSync(projectDir(first.config, first.cwd)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  });

  it('--resume=ID works twice in a row: the third run sees both earlier prompts', async (ctx) => {
    const api = await startTestApi(ctx, [text('second'), text('third')]);
    const first = await firstRun();
    const env = { CLAUDE_CONFIG_DIR: first.config };
    for (const prompt of ['two', 'three']) {
      const r = await runAgent({
        api,
        cwd: first.cwd,
        env,
        args: ['-p', prompt, `--resume=${first.sessionId}`, ...PRINT],
      });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(shape(api.requests[1].body.messages)).toEqual([
      ...EARLIER,
      { role: 'user', content: ['text:two'] },
      { role: 'assistant', content: ['text:second'] },
      { role: 'user', content: ['text:three'] },
    ]);
  });

  it('--continue picks the most recent session of this directory', async (ctx) => {
    const api = await startTestApi(ctx, [text('continued')]);
    const first = await firstRun();
    // An older session in the same project dir: the first run's transcript under another id, its
    // prompt changed, so the history sent tells which one was picked.
    const olderId = randomUUID();
    const older = join(projectDir(first.config, first.cwd), `${olderId}.jsonl`);
    const copied = readFileSync(first.path, 'utf8').replaceAll(first.sessionId, olderId);
    expect(copied).toContain('"say hi with bash"');
    writeFileSync(older, copied.replaceAll('"say hi with bash"', '"older"'));
    const old = new Date(Date.now() - 60_000);
    utimesSync(older, old, old);
    const r = await runAgent({
      api,
      cwd: first.cwd,
      env: { CLAUDE_CONFIG_DIR: first.config },
      args: ['-p', 'go on', '--continue', ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(api.requests).toHaveLength(1);
    expect(shape(api.requests[0].body.messages)).toEqual([...EARLIER, { role: 'user', content: ['text:go on'] }]);
    expect(r.json().find((m) => m.type === 'result')!.session_id).toBe(first.sessionId);
  });

  it('--continue with no earlier session starts a new one and says so', async (ctx) => {
    const api = await startTestApi(ctx, [text('fresh')]);
    const r = await runAgent({ api, args: ['-p', 'hello', '--continue', ...PRINT] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/--continue: no earlier session/);
    expect(api.requests[0].body.messages).toHaveLength(1);
  });

  it('--fork-session: a new session id, the same history sent, the original transcript untouched', async (ctx) => {
    const api = await startTestApi(ctx, [text('forked')]);
    const first = await firstRun();
    const original = readFileSync(first.path, 'utf8');
    const r = await runAgent({
      api,
      cwd: first.cwd,
      env: { CLAUDE_CONFIG_DIR: first.config },
      args: ['-p', 'branch off', '--resume', first.sessionId, '--fork-session', ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(shape(api.requests[0].body.messages)).toEqual([...EARLIER, { role: 'user', content: ['text:branch off'] }]);
    const newId = r.json().find((m) => m.type === 'result')!.session_id;
    expect(newId).not.toBe(first.sessionId);
    expect(r.json().find((m) => m.type === 'system' && m.subtype === 'init')!.session_id).toBe(newId);
    expect(readFileSync(first.path, 'utf8')).toBe(original);
    const forked = lines(join(projectDir(first.config, first.cwd), `${newId}.jsonl`));
    // It starts with the copied history (relabelled), then this run's lines, one chain.
    expect(forked.length).toBeGreaterThan(original.trim().split('\n').length);
    expect(forked.every((l) => l.sessionId === newId)).toBe(true);
    expect(forked[0]).toMatchObject({ type: 'user', parentUuid: null, message: { content: 'say hi with bash' } });
    forked.slice(1).forEach((l, i) => expect(l.parentUuid).toBe(forked[i].uuid));
    expect(forked.at(-1)).toMatchObject({
      type: 'assistant',
      message: { content: [{ type: 'text', text: 'forked' }] },
    });
  });

  it('a missing session id exits 1 naming the transcript path; nothing reaches the API', async (ctx) => {
    const api = await startTestApi(ctx, [text('never')]);
    const id = '00000000-0000-4000-8000-000000000000';
    const r = await runAgent({ api, args: ['-p', 'hi', '--resume', id, ...PRINT] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`no such session transcript: .*${id}\\.jsonl`));
    expect(api.requests).toHaveLength(0);
  });

  it('usage: a non-UUID id, --resume with --continue, a lone --fork-session or --resume-session-at exit 2', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const args of [
      ['--resume', '../x'],
      ['--resume', id, '--continue'],
      ['--fork-session'],
      ['--resume-session-at', id],
      ['--resume', id, '--resume-drops-turn', id],
    ]) {
      const r = await runAgent({ args: ['-p', 'hi', ...args] });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--(resume|fork-session|resume-session-at)/);
    }
  });

  it('a transcript of an earlier build (protocol lines): a corrupt line is skipped with its line number, a cut-off tool_use gets an interrupted result, API-error turns are left out', async (ctx) => {
    const api = await startTestApi(ctx, [text('recovered')]);
    const config = tempDir('agent-config-');
    const cwd = tempDir();
    const id = '11111111-2222-4333-8444-555555555555';
    const dir = projectDir(config, cwd);
    mkdirSync(dir, { recursive: true });
    const entries = [
      { type: 'system', subtype: 'init', session_id: id },
      { type: 'user', message: { role: 'user', content: 'first' }, session_id: id },
      {
        type: 'assistant',
        message: { model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 500' }] },
        parent_tool_use_id: null,
        session_id: id,
      },
      { type: 'result', subtype: 'error_during_execution', session_id: id },
      { type: 'user', message: { role: 'user', content: 'second' }, session_id: id },
      '{"type":"assistant","message":{"content":[{"type":"te',
      {
        type: 'assistant',
        message: {
          content: [
            { type: 'text', text: 'running' },
            { type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'sleep 9' } },
          ],
        },
        parent_tool_use_id: null,
      },
      {
        type: 'assistant',
        message: { content: [{ type: 'text', text: 'a subagent line' }] },
        parent_tool_use_id: 'task1',
      },
    ];
    writeFileSync(
      join(dir, `${id}.jsonl`),
      `${entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n')}\n`,
    );
    const r = await runAgent({
      api,
      cwd,
      env: { CLAUDE_CONFIG_DIR: config },
      args: ['-p', 'third', '--resume', id, ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/line 6 is not valid JSON/);
    const sent = api.requests[0].body.messages;
    expect(shape(sent)).toEqual([
      { role: 'user', content: ['text:first', 'text:second'] },
      { role: 'assistant', content: ['text:running', 'tool_use:c1'] },
      // An earlier build kept no reminder: the model is told the deferred tools now.
      { role: 'user', content: ['tool_result:c1:error', 'text:third', `text:${DEFERRED_REMINDER}`] },
    ]);
    expect(sent[2].content[0].content).toMatch(/interrupted/);
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({ session_id: id, result: 'recovered' });
  });

  it('SessionStart hooks get source "resume"', async (ctx) => {
    const api = await startTestApi(ctx, [text('ok')]);
    const first = await firstRun();
    const log = join(tempDir(), 'start.jsonl');
    const settings = JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] }] },
    });
    const r = await runAgent({
      api,
      cwd: first.cwd,
      env: { CLAUDE_CONFIG_DIR: first.config },
      args: ['-p', 'again', '--continue', '--settings', settings, ...PRINT],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(log)).toBe(true);
    expect(JSON.parse(readFileSync(log, 'utf8').trim())).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'resume',
      session_id: first.sessionId,
    });
  });
});

describe.concurrent('resume through the official SDK', () => {
  it('options.resume: the earlier conversation is sent and the session id kept', async (ctx) => {
    const api = await startTestApi(ctx, [text('resumed via sdk')]);
    const first = await firstRun();
    const messages: SDKMessage[] = [];
    const opts = sdkOptions(api.url, first.cwd, { resume: first.sessionId });
    opts.env.CLAUDE_CONFIG_DIR = first.config;
    for await (const m of query({ prompt: 'and now?', options: opts as never })) messages.push(m);
    const result = messages.find((m) => m.type === 'result');
    expect(result).toMatchObject({ subtype: 'success', result: 'resumed via sdk', session_id: first.sessionId });
    expect(shape(api.requests[0].body.messages)).toEqual([...EARLIER, { role: 'user', content: ['text:and now?'] }]);
  });
});
