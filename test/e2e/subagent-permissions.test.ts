// A subagent obeys the session's permissions, and what it was refused counts in the parent's result.
import { expect, it } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { runAgent, startFakeApi, STREAM_ARGS, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const turns = (req: RecordedRequest) =>
  (req.body.messages ?? []).filter((m: { role: string }) => m.role === 'assistant').length;

it("a subagent's denied tool call is an is_error result for it and a permission_denials entry of the parent's result", async () => {
  api = await startFakeApi((req): ScriptedReply => {
    if (firstUserText(req).startsWith('SUB:')) {
      if (turns(req) === 0) return toolUse('Bash', { command: 'touch should-not-exist' }, 'toolu_sub_bash');
      return text(`sub saw: ${JSON.stringify(lastToolResults(req)[0])}`);
    }
    if (turns(req) === 0)
      return toolUse(
        'Task',
        { description: 'Try it', prompt: 'SUB: touch a file', subagent_type: 'general-purpose' },
        'toolu_task',
      );
    return text('parent done');
  });
  const r = await runAgent({ api, args: STREAM_ARGS, input: userLine('delegate') });
  expect(r.code).toBe(0);
  const msgs = r.json();
  const subResult = msgs.find((m) => m.type === 'user' && m.parent_tool_use_id === 'toolu_task');
  expect(subResult!.message.content[0]).toMatchObject({ tool_use_id: 'toolu_sub_bash', is_error: true });
  const result = msgs.find((m) => m.type === 'result')!;
  expect(result.subtype).toBe('success');
  expect(result.permission_denials).toEqual([
    { tool_name: 'Bash', tool_use_id: 'toolu_sub_bash', tool_input: { command: 'touch should-not-exist' } },
  ]);
});
