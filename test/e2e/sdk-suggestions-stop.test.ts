// Two initialize options of the official SDK, with the SDK as host: promptSuggestions (a
// prompt_suggestion after each result from the second turn on, made by a side call that forks the
// conversation) and perTaskStopAffordance (an interrupt spares background agents).
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it, type TestContext } from 'vitest';
import { firstUserText, lastUserText, text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import { startTestApi, tempDir } from './harness.js';
import { interruptWhileTaskWorks, prompts, sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent): each has its own API, closed when it ends.
type OnFinished = TestContext['onTestFinished'];

const isSuggestionCall = (req: { body: any }) => lastUserText(req as never).includes('Guess the next message');

async function twoTurns(onFinished: OnFinished, extra: Record<string, unknown>, env: Record<string, string> = {}) {
  let answers = 0;
  const api = await startTestApi({ onTestFinished: onFinished }, (req): ScriptedReply => {
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
  return { out, api };
}

describe.concurrent('promptSuggestions', () => {
  it('a prompt_suggestion follows the second result (none after the first), from a side call on the same prompt and history', async ({
    onTestFinished,
  }) => {
    const { out, api } = await twoTurns(onTestFinished, { promptSuggestions: true });
    const kinds = out.filter((m) => m.type === 'result' || m.type === 'prompt_suggestion').map((m) => m.type);
    expect(kinds).toEqual(['result', 'result', 'prompt_suggestion']);
    const suggestion = out.find((m) => m.type === 'prompt_suggestion')!;
    expect(suggestion.suggestion).toBe('Now add tests for the parser');
    expect(suggestion.session_id).toBe(out.find((m) => m.type === 'result')!.session_id);
    const calls = api.requests.filter(isSuggestionCall);
    expect(calls.length).toBe(1);
    const main = api.requests.filter((r) => !isSuggestionCall(r));
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

  it('none without the option, or with CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false: no side call is made', async ({
    onTestFinished,
  }) => {
    // The two sessions run side by side, each on its own API.
    const runs = await Promise.all(
      (
        [
          [{}, {}],
          [{ promptSuggestions: true }, { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: 'false' }],
        ] as const
      ).map(([extra, env]) => twoTurns(onTestFinished, extra, env)),
    );
    for (const { out, api } of runs) {
      expect(out.filter((m) => m.type === 'result').length).toBe(2);
      expect(out.some((m) => m.type === 'prompt_suggestion')).toBe(false);
      expect(api.requests.some(isSuggestionCall)).toBe(false);
    }
  });
});

describe.concurrent('perTaskStopAffordance', () => {
  /** A background agent works 3 s; the next turn is interrupted while it works. How did the agent end? */
  async function interruptWithBackgroundAgent(onFinished: OnFinished, extra: Record<string, unknown>): Promise<string> {
    const api = await startTestApi({ onTestFinished: onFinished }, (req): ScriptedReply => {
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
      // The prompt that is interrupted (the notification's turn repeats it, unanswered: that one is quick).
      if (last.includes('think long') && !last.includes('<task-notification>'))
        return { ...text('long thought'), delayMs: 5000 };
      return text('ok');
    });
    return interruptWhileTaskWorks(
      'start the counter',
      sdkOptions(api.url, tempDir(), { allowedTools: ['Task'], ...extra }),
    );
  }

  it('declared: an interrupt stops the turn and spares the background agent, which completes', async ({
    onTestFinished,
  }) => {
    expect(await interruptWithBackgroundAgent(onTestFinished, { perTaskStopAffordance: true })).toBe('completed');
  });

  it('not declared: an interrupt also stops the background agent', async ({ onTestFinished }) => {
    expect(await interruptWithBackgroundAgent(onTestFinished, {})).toBe('stopped');
  });
});
