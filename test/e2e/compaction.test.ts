// Automatic context compaction end to end: bin/agent against the fake Messages API, a real
// PreCompact command hook from .claude/settings.json, the threshold lowered by AGENT_AUTOCOMPACT_PCT.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  badRequest,
  lastUserText,
  serverError,
  text,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { SUMMARY_INSTRUCTION } from '../../src/loop/compaction.js';
import { runAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const isSummary = (req: RecordedRequest) => lastUserText(req).includes(SUMMARY_INSTRUCTION);
// 1 % of the default model's 1M window: 10,000 tokens.
const ENV = { AGENT_AUTOCOMPACT_PCT: '1' };
const big = { input_tokens: 12_500, output_tokens: 10 };

/** Answers summary requests from `summaries`, the others from `replies`. */
async function fakeApi(replies: ScriptedReply[], summaries: ScriptedReply[]) {
  api = await startFakeApi(
    (req) => (isSummary(req) ? summaries.shift() : replies.shift()) ?? serverError('script exhausted'),
  );
  return api;
}

/** A project with one PreCompact command hook that logs its input and ends with `exit`. */
function project(exit: number) {
  const cwd = tempDir();
  const dir = tempDir('agent-precompact-');
  const script = join(dir, 'pre.sh');
  const log = join(dir, 'pre.jsonl');
  writeFileSync(
    script,
    `#!/bin/sh\ncat >> '${log}'\necho >> '${log}'\n${exit === 2 ? "echo 'not now' >&2\n" : ''}exit ${exit}\n`,
  );
  chmodSync(script, 0o755);
  mkdirSync(join(cwd, '.claude'));
  writeFileSync(
    join(cwd, '.claude', 'settings.json'),
    JSON.stringify({ hooks: { PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: script }] }] } }),
  );
  const inputs = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return { cwd, inputs };
}

describe('context compaction (bin/agent)', () => {
  it('usage above the threshold: PreCompact fires, the conversation is summarised, a compact_boundary line, the next request carries the summary', async () => {
    const { cwd, inputs } = project(0);
    await fakeApi(
      [text('one', { usage: big }), text('two', { usage: { input_tokens: 10, output_tokens: 5 } })],
      [text('Conversation summary: the user said first.', { usage: { input_tokens: 700, output_tokens: 40 } })],
    );
    const r = await runAgent({ api, cwd, env: ENV, args: STREAM_ARGS, input: userLine('first') + userLine('second') });
    expect(r.code).toBe(0);
    expect(api!.requests.map(isSummary)).toEqual([false, true, false]);
    const sent = api!.requests[2].body.messages;
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent)).toContain('Conversation summary: the user said first.');
    expect(JSON.stringify(sent)).toContain('second');
    expect(JSON.stringify(sent)).not.toContain('"one"');

    const out = r.json();
    const boundary = out.find((m) => m.type === 'system' && m.subtype === 'compact_boundary');
    expect(boundary).toMatchObject({
      compact_metadata: { trigger: 'auto', pre_tokens: 12_510 },
      session_id: expect.any(String),
      uuid: expect.any(String),
    });
    // The host is told around it (system/status, as the reference does): compacting before the
    // summary request, then null with the result, right before the boundary.
    const statuses = out.filter((m) => m.type === 'system' && m.subtype === 'status');
    expect(statuses.map(({ status, compact_result }) => ({ status, compact_result }))).toEqual([
      { status: 'compacting', compact_result: undefined },
      { status: null, compact_result: 'success' },
    ]);
    expect(out.indexOf(statuses[1])).toBe(out.indexOf(boundary!) - 1);
    expect(out.indexOf(statuses[0])).toBeGreaterThan(out.findIndex((m) => m.type === 'result'));
    // The boundary comes before the second prompt's answer.
    expect(out.indexOf(boundary!)).toBeLessThan(
      out.findIndex((m) => m.type === 'assistant' && m.message.content[0]?.text === 'two'),
    );
    const results = out.filter((m) => m.type === 'result');
    expect(results.map((m) => m.result)).toEqual(['one', 'two']);
    // The summary call counts in the second prompt's usage (700 + the default 10).
    expect(results[1].usage).toMatchObject({ input_tokens: 710, output_tokens: 45 });

    expect(inputs()).toEqual([
      expect.objectContaining({
        hook_event_name: 'PreCompact',
        trigger: 'auto',
        custom_instructions: null,
        session_id: expect.any(String),
      }),
    ]);
  });

  it('a PreCompact hook that exits 2 cancels the compaction: the full history goes out', async () => {
    const { cwd, inputs } = project(2);
    await fakeApi([text('one', { usage: big }), text('two', { usage: { input_tokens: 10, output_tokens: 5 } })], []);
    const r = await runAgent({ api, cwd, env: ENV, args: STREAM_ARGS, input: userLine('first') + userLine('second') });
    expect(r.code).toBe(0);
    expect(api!.requests.map(isSummary)).toEqual([false, false]);
    expect(api!.requests[1].body.messages).toHaveLength(3);
    expect(r.json().some((m) => m.subtype === 'compact_boundary')).toBe(false);
    expect(inputs()).toHaveLength(1);
  });

  it('a "prompt is too long" 400 compacts and retries the turn', async () => {
    await fakeApi(
      [text('one'), badRequest('prompt is too long: 201234 tokens > 200000 maximum'), text('two')],
      [text('Conversation summary: first, one.')],
    );
    const r = await runAgent({ api, args: STREAM_ARGS, input: userLine('first') + userLine('second') });
    expect(r.code).toBe(0);
    expect(api!.requests.map(isSummary)).toEqual([false, false, true, false]);
    expect(api!.requests[3].body.messages).toHaveLength(1);
    const out = r.json();
    expect(out.find((m) => m.subtype === 'compact_boundary')).toMatchObject({
      compact_metadata: { trigger: 'auto', pre_tokens: 201234 },
    });
    expect(out.filter((m) => m.type === 'result').map((m) => [m.subtype, m.result])).toEqual([
      ['success', 'one'],
      ['success', 'two'],
    ]);
  });

  it('a failing summary call leaves the history intact and the run answers', async () => {
    await fakeApi(
      [text('one', { usage: big }), text('two', { usage: { input_tokens: 10, output_tokens: 5 } })],
      [serverError('summary broke')],
    );
    const r = await runAgent({
      api,
      env: { ...ENV, AGENT_MAX_RETRIES: '0' },
      args: STREAM_ARGS,
      input: userLine('first') + userLine('second'),
    });
    expect(r.code).toBe(0);
    expect(api!.requests.map(isSummary)).toEqual([false, true, false]);
    expect(api!.requests[2].body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(
      r
        .json()
        .filter((m) => m.type === 'result')
        .map((m) => m.result),
    ).toEqual(['one', 'two']);
    expect(r.stderr).toContain('compaction failed');
    const statuses = r.json().filter((m) => m.type === 'system' && m.subtype === 'status');
    expect(statuses).toEqual([
      expect.objectContaining({ status: 'compacting' }),
      expect.objectContaining({
        status: null,
        compact_result: 'failed',
        compact_error: expect.stringContaining('summary broke'),
      }),
    ]);
  });
});
