// Two initialize options of the official SDK, with the SDK as host: promptSuggestions (a
// prompt_suggestion after each result from the second turn on, made by a side call that forks the
// conversation) and perTaskStopAffordance (an interrupt spares background agents).
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { interruptWhileTaskWorks, prompts, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

const isSuggestionCall = (req: { body: any }) => lastUserText(req as never).includes('Guess the next message');

async function twoTurns(extra: Record<string, unknown>, env: Record<string, string> = {}) {
  let answers = 0;
  api = await startFakeApi((req): ScriptedReply => {
    if (isSuggestionCall(req)) return text('"Now add tests for the parser"');
    return text(`answer ${++answers}`);
  });
  const cwd = tempDir();
  const input = prompts(['write the parser', 'make it faster']);
  const o = sdkOptions(api.url, cwd, extra);
  Object.assign(o.env, env);
  const out: Array<Record<string, any>> = [];
  for await (const m of query({ prompt: input as never, options: o as never }) as AsyncIterable<SDKMessage>) {
    out.push(m as Record<string, any>);
    if (m.type === 'result') input.onResult();
  }
  return out;
}

describe('promptSuggestions', () => {
  it('a prompt_suggestion follows the second result (none after the first), from a side call on the same prompt and history', async () => {
    const out = await twoTurns({ promptSuggestions: true });
    const kinds = out.filter((m) => m.type === 'result' || m.type === 'prompt_suggestion').map((m) => m.type);
    expect(kinds).toEqual(['result', 'result', 'prompt_suggestion']);
    const suggestion = out.find((m) => m.type === 'prompt_suggestion')!;
    expect(suggestion.suggestion).toBe('Now add tests for the parser');
    expect(suggestion.session_id).toBe(out.find((m) => m.type === 'result')!.session_id);
    const calls = api!.requests.filter(isSuggestionCall);
    expect(calls.length).toBe(1);
    const main = api!.requests.filter((r) => !isSuggestionCall(r));
    const last = main[main.length - 1].body;
    // The fork: the same system prompt and tools (so the prompt cache is read), the whole
    // conversation so far, one question after it, and no tool use.
    expect(calls[0].body.system).toEqual(last.system);
    expect(calls[0].body.tools).toEqual(last.tools);
    expect(calls[0].body.tool_choice).toEqual({ type: 'none' });
    const msgs = calls[0].body.messages;
    expect(msgs.length).toBe(last.messages.length + 2);
    expect(JSON.stringify(msgs[msgs.length - 2])).toContain('answer 2');
  });

  it('none without the option, or with CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false: no side call is made', async () => {
    for (const [extra, env] of [
      [{}, {}],
      [{ promptSuggestions: true }, { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false' }],
    ] as const) {
      const out = await twoTurns(extra, env);
      expect(out.filter((m) => m.type === 'result').length).toBe(2);
      expect(out.some((m) => m.type === 'prompt_suggestion')).toBe(false);
      expect(api!.requests.some(isSuggestionCall)).toBe(false);
      await api!.close();
      api = undefined;
    }
  });
});

describe('perTaskStopAffordance', () => {
  /** A background agent works 3 s; the next turn is interrupted while it works. How did the agent end? */
  async function interruptWithBackgroundAgent(extra: Record<string, unknown>): Promise<string> {
    api = await startFakeApi((req): ScriptedReply => {
      if (firstUserText(req).includes('count the files')) return { ...text('sub counted 3'), delayMs: 3000 };
      const last = JSON.stringify(req.body.messages[req.body.messages.length - 1]);
      if (last.includes('start the counter'))
        return toolUse(
          'Task',
          {
            description: 'Count',
            prompt: 'count the files',
            subagent_type: 'general-purpose',
            run_in_background: true,
          },
          'a1',
        );
      if (last.includes('think long')) return { ...text('long thought'), delayMs: 5000 };
      return text('ok');
    });
    return interruptWhileTaskWorks(
      'start the counter',
      sdkOptions(api.url, tempDir(), { allowedTools: ['Task'], ...extra }),
    );
  }

  it('declared: an interrupt stops the turn and spares the background agent, which completes', async () => {
    expect(await interruptWithBackgroundAgent({ perTaskStopAffordance: true })).toBe('completed');
  });

  it('not declared: an interrupt also stops the background agent', async () => {
    expect(await interruptWithBackgroundAgent({})).toBe('stopped');
  });
});
