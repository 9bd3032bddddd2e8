// Automatic context compaction, driven in memory by a scripted model (no HTTP).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LoopConfig } from '../../../src/loop/agentLoop.js';
import { collectLoop, loopConfig } from './loopHarness.js';
import {
  autoCompactPct,
  autoCompactThreshold,
  SUMMARY_INSTRUCTION,
  SUMMARY_PREAMBLE,
} from '../../../src/loop/compaction.js';
import type { HistoryMessage, LoopEvent, LoopOutcome } from '../../../src/loop/events.js';
import { appendUser } from '../../../src/loop/history.js';
import { defineTool, type Tool } from '../../../tools/tool.js';
import {
  badRequest,
  lastUserText,
  serverError,
  text,
  type RecordedRequest,
  type ScriptedReply,
} from '../../fake-api/server.js';
import { scriptedModel } from './scriptedModel.js';

const echo = defineTool({
  name: 'Echo',
  description: 'echoes',
  inputSchema: z.object({ say: z.string() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(input) {
    return { content: `echo ${input.say}`, data: {} };
  },
}) as Tool;
const tools = [echo];

let replies: ScriptedReply[] = [];
let summaries: ScriptedReply[] = [];
const big = { input_tokens: 2500, output_tokens: 10 };
const tooLong = () => badRequest('prompt is too long: 210000 tokens > 200000 maximum');

const isSummary = (req: RecordedRequest) => lastUserText(req).includes(SUMMARY_INSTRUCTION);

const api = scriptedModel(
  (req) => (isSummary(req) ? summaries.shift() : replies.shift()) ?? serverError('script exhausted'),
);

// These tests compare the messages sent with the history; cache marks are tested in promptCache.test.ts.
const cachingBefore = process.env.DISABLE_PROMPT_CACHING;
beforeAll(() => {
  process.env.DISABLE_PROMPT_CACHING = '1';
});
afterAll(() => {
  if (cachingBefore === undefined) delete process.env.DISABLE_PROMPT_CACHING;
  else process.env.DISABLE_PROMPT_CACHING = cachingBefore;
});
afterEach(() => {
  replies = [];
  summaries = [];
});

const config = (
  over: Partial<LoopConfig> = {}, // 1 % of the 200k window: 2,000 tokens.
) => loopConfig(tools, { callModel: api.callModel, autoCompactPct: 1, ...over }, 'claude-sonnet-4-5');

async function drive(
  history: HistoryMessage[],
  cfg: LoopConfig,
): Promise<{ events: LoopEvent[]; outcome: LoopOutcome; requests: RecordedRequest[] }> {
  const before = api.requests.length;
  const r = await collectLoop(history, cfg);
  return { ...r, requests: api.requests.slice(before) };
}

const boundaries = (events: LoopEvent[]) => events.filter((e) => e.type === 'compact_boundary');

describe('context compaction', () => {
  it('reads the threshold from AGENT_AUTOCOMPACT_PCT (default 80 % of the window)', () => {
    expect(autoCompactPct({})).toBe(80);
    expect(autoCompactPct({ AGENT_AUTOCOMPACT_PCT: '50' })).toBe(50);
    expect(autoCompactPct({ AGENT_AUTOCOMPACT_PCT: 'x', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '30' })).toBe(30);
    expect(autoCompactPct({ AGENT_AUTOCOMPACT_PCT: '0' })).toBe(80);
    expect(autoCompactThreshold('claude-sonnet-4-5', {})).toBe(160_000);
    expect(autoCompactThreshold('claude-sonnet-4-5[1m]', { AGENT_AUTOCOMPACT_PCT: '50' })).toBe(500_000);
  });

  it('does not compact below the threshold', async () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'first' }];
    replies = [text('one', { usage: { input_tokens: 1000, output_tokens: 10 } }), text('two')];
    await drive(history, config());
    appendUser(history, 'second', []);
    const { events, requests } = await drive(history, config());
    expect(boundaries(events)).toHaveLength(0);
    expect(requests).toHaveLength(1);
    expect(requests[0].body.messages).toHaveLength(3);
  });

  it('summarises the conversation when the last usage is above the threshold, then sends the summary instead of the old turns', async () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'first' }];
    replies = [
      text('one', {
        usage: { input_tokens: 1500, cache_read_input_tokens: 400, cache_creation_input_tokens: 90, output_tokens: 20 },
      }),
    ];
    await drive(history, config());
    appendUser(history, 'second', []);
    replies = [text('two', { usage: { input_tokens: 10, output_tokens: 5 } })];
    summaries = [
      text('Conversation summary: the user said first.', { usage: { input_tokens: 100, output_tokens: 50 } }),
    ];
    const cfg = config();
    const { events, outcome, requests } = await drive(history, cfg);
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'two' });
    expect(requests).toHaveLength(2);
    // The summary request: the whole history, the instruction last, tools offered but not callable.
    const sumReq = requests[0].body;
    expect(sumReq.messages).toHaveLength(3);
    expect(sumReq.messages[2].content.at(-1).text).toBe(SUMMARY_INSTRUCTION);
    expect(sumReq.tool_choice).toEqual({ type: 'none' });
    expect(sumReq.stream).toBe(true);
    // The next request: one user message, the summary then the pending prompt.
    const next = requests[1].body.messages;
    expect(next).toHaveLength(1);
    expect(next[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `${SUMMARY_PREAMBLE}Conversation summary: the user said first.` },
        { type: 'text', text: 'second' },
      ],
    });
    expect(JSON.stringify(next)).not.toContain('"one"');
    expect(boundaries(events)).toEqual([
      { parentToolUseId: null, type: 'compact_boundary', trigger: 'auto', preTokens: 2010 },
    ]);
    // The summary call counts in the run's usage: 100 + 10 input tokens.
    expect(cfg.usage.totals()).toMatchObject({ input_tokens: 110, output_tokens: 55 });
    expect(history).toHaveLength(2);
  });

  it('compacting mid-run keeps the tool_use with its tool_result after the summary', async () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'go' }];
    replies = [
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Echo', input: { say: 'hi' } }], usage: big },
      text('done'),
    ];
    summaries = [text('Conversation summary: echo was called.')];
    const { events, outcome, requests } = await drive(history, config());
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'done' });
    expect(boundaries(events)).toHaveLength(1);
    expect(requests.map(isSummary)).toEqual([false, true, false]);
    const last = requests[2].body.messages;
    expect(last.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(last[0].content).toContain('Conversation summary: echo was called.');
    expect(last[1].content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_1' });
    expect(last[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
  });

  it('fires PreCompact with trigger auto; a block cancels the compaction', async () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'first' }];
    replies = [text('one', { usage: big })];
    await drive(history, config());
    appendUser(history, 'second', []);
    replies = [text('two')];
    const calls: string[] = [];
    const { events, requests } = await drive(
      history,
      config({
        preCompactHook: async (trigger) => {
          calls.push(trigger);
          return { blockReason: 'not now' };
        },
      }),
    );
    expect(calls).toEqual(['auto']);
    expect(boundaries(events)).toHaveLength(0);
    expect(requests).toHaveLength(1);
    expect(requests[0].body.messages).toHaveLength(3);
  });

  it('a failing summary call leaves the history intact and the run goes on', async () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'first' }];
    replies = [text('one', { usage: big })];
    await drive(history, config());
    appendUser(history, 'second', []);
    const before = structuredClone(history);
    replies = [text('two')];
    summaries = [serverError('boom')];
    const { events, outcome, requests } = await drive(history, config());
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'two' });
    expect(boundaries(events)).toHaveLength(0);
    expect(requests.map(isSummary)).toEqual([true, false]);
    expect(requests[1].body.messages).toEqual(before);
  });

  it('a "prompt is too long" 400 compacts once and retries the turn', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
      { role: 'user', content: 'second' },
    ];
    replies = [tooLong(), text('two')];
    summaries = [text('Conversation summary: first, one.')];
    const { events, outcome, requests } = await drive(history, config());
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'two' });
    expect(requests.map(isSummary)).toEqual([false, true, false]);
    expect(requests[2].body.messages).toHaveLength(1);
    expect(boundaries(events)[0]).toMatchObject({
      trigger: 'auto',
      preTokens: 210000,
    });
    // No API error line: the retry answered.
    expect(events.some((e) => e.type === 'assistant' && e.error)).toBe(false);
  });

  it('a summary request that is too long as well drops the oldest turns', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      { role: 'user', content: 'c' },
      { role: 'assistant', content: [{ type: 'text', text: 'd' }] },
      { role: 'user', content: 'e' },
    ];
    replies = [tooLong(), text('ok')];
    summaries = [tooLong(), text('Conversation summary: c, d.')];
    const { outcome, requests } = await drive(history, config());
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'ok' });
    const sums = requests.filter(isSummary).map((r) => r.body.messages.length);
    // The older half dropped: the summary request starts again at the prompt "c".
    expect(sums).toEqual([5, 3]);
    const second = requests.filter(isSummary)[1].body.messages;
    expect(second[0]).toEqual({ role: 'user', content: 'c' });
    expect(second[2]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'e' },
        { type: 'text', text: SUMMARY_INSTRUCTION },
      ],
    });
  });

  it('a second "prompt is too long" after compacting is the error result', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
      { role: 'user', content: 'second' },
    ];
    replies = [tooLong(), tooLong()];
    summaries = [text('Conversation summary: x.')];
    const { outcome, requests } = await drive(history, config());
    expect(outcome.subtype).toBe('error_during_execution');
    expect(outcome.resultText).toContain('prompt is too long');
    expect(requests.map(isSummary)).toEqual([false, true, false]);
  });

  it('a "prompt is too long" 400 whose compaction fails is the error result, history intact', async () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
      { role: 'user', content: 'second' },
    ];
    const before = structuredClone(history);
    replies = [tooLong()];
    summaries = [serverError('boom')];
    const { outcome } = await drive(history, config());
    expect(outcome.subtype).toBe('error_during_execution');
    expect(outcome.resultText).toContain('prompt is too long');
    expect(history.slice(0, 3)).toEqual(before);
  });
});
