// Record/replay on the CallModel seam, in memory: digests, mismatch messages, per-caller order.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelEvent, ModelRequest } from '../../../src/loop/model.js';
import { loadRecording, recordingModel, replayModel } from '../../../src/loop/recording.js';
import { text, toolUse } from '../../fake-api/server.js';
import { scriptedModel } from './scriptedModel.js';
import { makeTempDir } from '../../tempDirs.js';

const file = () => join(makeTempDir('agent-rec-unit-'), 'r.jsonl');
const signal = new AbortController().signal;
const tool = (name: string, description = 'd') => ({ name, description, input_schema: { type: 'object' } });
const req = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-sonnet-4-5',
  system: "sys\n<env>\nToday's date: 2026-01-01\n</env>",
  messages: [{ role: 'user', content: 'hi' }],
  tools: [tool('Read'), tool('Bash')],
  maxTokens: 1000,
  signal,
  ...over,
});

async function drain(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function recorded(requests: ModelRequest[]) {
  const f = file();
  const inner = scriptedModel((_r, i) =>
    i === 0 ? toolUse('Read', { file_path: '/x' }, 'toolu_1') : text(`reply ${i}`),
  );
  const rec = recordingModel(inner.callModel, f);
  const replies = [];
  for (const r of requests) replies.push(await drain(rec(r)));
  return { f, replies, replay: () => replayModel(loadRecording(f), { speed: 0, file: f }) };
}

async function failure(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'no error',
    (e: Error) => e.message,
  );
}

describe('record and replay', () => {
  it('serves the recorded events in order, per caller, on another day', async () => {
    const { replies, replay } = await recorded([
      req(),
      req({ caller: 'toolu_task' }),
      req({ messages: [{ role: 'user', content: 'again' }] }),
    ]);
    const r = replay();
    // The subagent's request comes first this time: each caller has its own order.
    expect(
      await drain(r(req({ caller: 'toolu_task', system: "sys\n<env>\nToday's date: 2027-05-05\n</env>" }))),
    ).toEqual(replies[1]);
    expect(await drain(r(req()))).toEqual(replies[0]);
    expect(await drain(r(req({ messages: [{ role: 'user', content: 'again' }] })))).toEqual(replies[2]);
    expect(await failure(drain(r(req())))).toContain(
      'has no model request 3 of the main agent (it recorded 2); the conversation went further than the recording',
    );
  });

  it('names the first difference: system prompt, tools, messages, model, parameters', async () => {
    const cases: Array<[Partial<ModelRequest>, string]> = [
      [{ system: 'other' }, 'the system prompt changed'],
      [{ tools: [tool('Read'), tool('Bash'), tool('Grep')] }, 'the tools changed (added Grep)'],
      [{ tools: [tool('Read', 'new words'), tool('Bash')] }, 'the tools changed (changed Read)'],
      [{ tools: [tool('Read')] }, 'the tools changed (removed Bash)'],
      [{ messages: [{ role: 'user', content: 'hello' }] }, 'the messages changed: message 1 of 1 (user) differs'],
      [
        {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
            { role: 'user', content: 'y' },
          ],
        },
        'the messages changed: message 2 (assistant) is new; the recording had 1',
      ],
      [{ model: 'claude-opus-4-5' }, 'the model changed (claude-sonnet-4-5 → claude-opus-4-5)'],
      [{ maxTokens: 5 }, 'the request parameters changed (max_tokens, thinking, tool_choice or betas)'],
    ];
    const { replay } = await recorded([req()]);
    for (const [over, words] of cases)
      expect(await failure(drain(replay()(req(over))))).toBe(
        `Replay mismatch at model request 1 of the main agent: ${words}`,
      );
  });

  it('a recorded API error is replayed as the same error', async () => {
    const f = file();
    const inner = scriptedModel(() => ({
      error: { status: 400, type: 'invalid_request_error', message: 'bad thing' },
    }));
    await failure(drain(recordingModel(inner.callModel, f)(req())));
    const err = await drain(replayModel(loadRecording(f), { speed: 0, file: f })(req())).catch((e) => e);
    expect(err).toMatchObject({ message: 'API Error: 400 bad thing', status: 400, kind: 'invalid_request' });
  });

  it('a file that is not a recording is refused with the line that is wrong', () => {
    const f = file();
    writeFileSync(f, '{"type":"recording","version":1,"created":"x"}\n{"type":"call"}\n');
    expect(() => loadRecording(f)).toThrow(/line 2: caller: /);
    writeFileSync(f, 'hello\n');
    expect(() => loadRecording(f)).toThrow('line 1 is not JSON');
    writeFileSync(f, '{"a":1}\n');
    expect(() => loadRecording(f)).toThrow('is not a recording');
    writeFileSync(f, '{"type":"recording","version":9,"created":"x"}\n');
    expect(() => loadRecording(f)).toThrow('version 9 recording');
    expect(readFileSync(f, 'utf8')).toContain('version');
  });
});
