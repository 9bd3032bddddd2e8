// Fork subagents: `subagent_type: "fork"` goes on from the parent's conversation with the parent's
// model, system prompt and tools, so its first request begins with the prefix the parent's last
// request wrote to the prompt cache (the fake API simulates the cache and bills each request).
import { describe, expect, it } from 'vitest';
import { lastUserText, type RecordedRequest, type ScriptedReply, text, toolUse } from '../fake-api/server.js';
import { calls, runAgent, startFakeApi, STREAM_ARGS, turns, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const isFork = (req: RecordedRequest) => lastUserText(req).includes('Directive: count the files');
/** The request with its cache marks taken out (they move as the conversation grows). */
const unmarked = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x)));

describe('fork subagents', () => {
  it("the fork's first request repeats the parent's prefix exactly and reads it from the cache; it runs on the parent's model", async () => {
    api = await startFakeApi((req): ScriptedReply => {
      if (isFork(req)) return text('fork report: 3 files');
      if (turns(req) === 0)
        return toolUse(
          'Agent',
          { description: 'side task', prompt: 'count the files', subagent_type: 'fork' },
          'toolu_fork',
        );
      return text('parent done');
    });
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--model', 'claude-opus-4-5', '--dangerously-skip-permissions'],
      input: userLine('please fork'),
    });
    expect(r.code).toBe(0);
    const parent = api.requests[0];
    const fork = api.requests.find(isFork)!;
    expect(fork).toBeDefined();
    expect(fork.body.model).toBe(parent.body.model);
    expect(fork.body.model).toBe('claude-opus-4-5');
    expect(unmarked(fork.body.system)).toEqual(unmarked(parent.body.system));
    expect(unmarked(fork.body.tools)).toEqual(unmarked(parent.body.tools));
    // The parent's conversation, then its reply with the call, then the fork's own message.
    expect(unmarked(fork.body.messages.slice(0, 1))).toEqual(unmarked(parent.body.messages));
    expect(fork.body.messages[1]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_fork' }],
    });
    expect(fork.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_fork' });
    // All the parent's request wrote (its prompt up to its last mark) is read back by the fork.
    const wrote = parent.billed!.cache_read_input_tokens + parent.billed!.cache_creation_input_tokens;
    expect(wrote).toBeGreaterThan(1000);
    expect(fork.billed!.cache_read_input_tokens).toBe(wrote);
    // Its report is the result of the parent's call.
    const back = api.requests.find((q) => !isFork(q) && turns(q) === 1)!;
    expect(JSON.stringify(back.body.messages.at(-1).content)).toContain('fork report: 3 files');
    expect(r.json().find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'parent done' });
  });

  it('a fork cannot fork again, and takes no name', async () => {
    api = await startFakeApi((req): ScriptedReply => {
      if (isFork(req)) {
        if (turns(req) === 1)
          return toolUse('Agent', { description: 'again', prompt: 'count the files', subagent_type: 'fork' });
        return text(`fork saw: ${JSON.stringify(req.body.messages.at(-1).content)}`);
      }
      if (turns(req) === 0)
        return calls([
          ['Agent', { description: 'f', prompt: 'count the files', subagent_type: 'fork' }, 'toolu_f'],
          ['Agent', { description: 'n', prompt: 'x', subagent_type: 'fork', name: 'w' }, 'toolu_n'],
        ]);
      return text('parent done');
    });
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: userLine('fork'),
    });
    expect(r.code).toBe(0);
    const back = JSON.stringify(api.requests.find((q) => !isFork(q) && turns(q) === 1)!.body.messages.at(-1).content);
    expect(back).toContain('Subagents are not available in this context');
    expect(back).toContain('A fork is a copy of you in this conversation: it takes no name and no isolation');
  });
});
