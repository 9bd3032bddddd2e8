// Prompt caching: where the breakpoints go (src/loop/promptCache.ts), and the fake API's cache
// simulation that the end-to-end tests and the bench measure against (test/fake-api/promptCache.ts).
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { HistoryMessage } from '../../../src/loop/events.js';
import { requestBody } from '../../../src/loop/modelClient.js';
import { MAX_CACHE_BREAKPOINTS, systemBlocks, withCacheBreakpoints } from '../../../src/loop/promptCache.js';
import { estimateTokens, MIN_CACHEABLE_TOKENS, PromptCacheSim } from '../../fake-api/promptCache.js';

const MARK = { type: 'ephemeral' };
const tool = (name: string) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object' } });

function marks(body: { system?: any[]; tools?: any[]; messages: any[] }): string[] {
  const out: string[] = [];
  (body.tools ?? []).forEach((t, i) => t.cache_control && out.push(`tools.${i}`));
  (body.system ?? []).forEach((b, i) => b.cache_control && out.push(`system.${i}`));
  body.messages.forEach(
    (m, i) =>
      Array.isArray(m.content) &&
      m.content.forEach((b: any, j: number) => b.cache_control && out.push(`messages.${i}.${j}`)),
  );
  return out;
}

describe('cache breakpoints', () => {
  it('marks the static system block, the per-session block and the newest message block', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'x' },
          { type: 'text', text: 'note' },
        ],
      },
    ];
    const out = withCacheBreakpoints({
      system: systemBlocks([
        { type: 'text', text: 'static' },
        { type: 'text', text: 'env' },
      ]),
      tools: [tool('Read')],
      messages,
    });
    expect(marks(out)).toEqual(['system.0', 'system.1', 'messages.2.1']);
    expect(out.system[0]).toEqual({ type: 'text', text: 'static', cache_control: MARK });
  });

  it('leaves the history it was given untouched (only the newest message is copied)', () => {
    const last = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
    const first = { role: 'user' as const, content: 'a' };
    const messages: MessageParam[] = [first, { role: 'assistant', content: 'b' }, last];
    const out = withCacheBreakpoints({ system: [], tools: [], messages });
    expect(last.content[0]).not.toHaveProperty('cache_control');
    expect(out.messages[0]).toBe(first);
    expect(out.messages[2]).not.toBe(last);
  });

  it('turns a string message into a marked text block', () => {
    const out = withCacheBreakpoints({
      system: systemBlocks('sys'),
      tools: [],
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(out.messages[0].content).toEqual([{ type: 'text', text: 'hello', cache_control: MARK }]);
    expect(marks(out)).toEqual(['system.0', 'messages.0.0']);
  });

  it('never marks a thinking block or an empty text: the mark goes on the block before', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'answer' },
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'text', text: '' },
        ],
      },
    ];
    const out = withCacheBreakpoints({ system: [], tools: [], messages });
    expect(marks(out)).toEqual(['messages.1.0']);
  });

  it('with no system prompt the last tool carries the stable mark', () => {
    const out = withCacheBreakpoints({
      system: [],
      tools: [tool('A'), tool('B')],
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(marks(out)).toEqual(['tools.1', 'messages.0.0']);
  });

  it('never exceeds the API limit of 4: the oldest marks a host left in its messages are dropped', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: MARK as { type: 'ephemeral' } });
    const messages: MessageParam[] = [
      { role: 'user', content: [marked('m0')] },
      { role: 'assistant', content: 'a' },
      { role: 'user', content: [marked('m2')] },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: [marked('m4'), { type: 'text', text: 'new' }] },
    ];
    const out = withCacheBreakpoints({
      system: systemBlocks([
        { type: 'text', text: 's' },
        { type: 'text', text: 'e' },
      ]),
      tools: [],
      messages,
    });
    expect(marks(out)).toEqual(['system.0', 'system.1', 'messages.4.0', 'messages.4.1']);
    expect(marks(out)).toHaveLength(MAX_CACHE_BREAKPOINTS);
    expect(messages[0].content).toEqual([marked('m0')]);
  });

  it('DISABLE_PROMPT_CACHING=1 sends no marks at all', () => {
    const req = {
      model: 'm',
      system: [{ type: 'text' as const, text: 's' }],
      tools: [tool('A')],
      messages: [{ role: 'user' as const, content: 'q' }] as HistoryMessage[],
      maxTokens: 10,
    };
    expect(JSON.stringify(requestBody(req, {}))).toContain('cache_control');
    expect(JSON.stringify(requestBody(req, { DISABLE_PROMPT_CACHING: '1' }))).not.toContain('cache_control');
  });
});

describe('the fake API cache simulation', () => {
  const big = 'x'.repeat(MIN_CACHEABLE_TOKENS * 4 + 400);
  const request = (messages: MessageParam[], model = 'claude-sonnet-5-5') =>
    requestBody(
      {
        model,
        system: [
          { type: 'text', text: big },
          { type: 'text', text: 'env' },
        ],
        tools: [tool('Read')],
        messages: messages as HistoryMessage[],
        maxTokens: 100,
      },
      {},
    );

  it('writes the prefix up to the last breakpoint, then the next turn reads everything the last one wrote', () => {
    const sim = new PromptCacheSim();
    const turn1: MessageParam[] = [{ role: 'user', content: 'q1' }];
    const u1 = sim.account(request(turn1));
    expect(u1.cache_read_input_tokens).toBe(0);
    expect(u1.cache_creation_input_tokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    expect(u1.input_tokens).toBe(0);

    const turn2: MessageParam[] = [...turn1, { role: 'assistant', content: 'a1' }, { role: 'user', content: 'q2' }];
    const u2 = sim.account(request(turn2));
    expect(u2.cache_read_input_tokens).toBe(u1.cache_creation_input_tokens);
    // Only the new turn is written.
    expect(u2.cache_creation_input_tokens).toBeLessThan(40);
    expect(u2.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('a prefix under the minimum is not cached; a changed prefix reads only the part that matches', () => {
    const sim = new PromptCacheSim();
    const small = {
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'q', cache_control: MARK }] }],
    };
    expect(sim.account(small)).toEqual({
      input_tokens: expect.any(Number),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });

    sim.account(request([{ role: 'user', content: 'q1' }]));
    // Another session: same static block, other environment block → reads the static prefix only.
    const other = requestBody(
      {
        model: 'claude-sonnet-5-5',
        system: [
          { type: 'text', text: big },
          { type: 'text', text: 'other env' },
        ],
        tools: [tool('Read')],
        messages: [{ role: 'user', content: 'q1' }],
        maxTokens: 100,
      },
      {},
    );
    const u = sim.account(other);
    expect(u.cache_read_input_tokens).toBe(
      estimateTokens(JSON.stringify(tool('Read'))) + estimateTokens(JSON.stringify({ type: 'text', text: big })),
    );
    expect(u.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('the cache is per model, and nothing is read without a breakpoint', () => {
    const sim = new PromptCacheSim();
    const msgs: MessageParam[] = [{ role: 'user', content: 'q1' }];
    sim.account(request(msgs));
    expect(sim.account(request(msgs, 'claude-opus-5-5')).cache_read_input_tokens).toBe(0);
    const unmarked = requestBody(
      {
        model: 'claude-sonnet-5-5',
        system: [
          { type: 'text', text: big },
          { type: 'text', text: 'env' },
        ],
        tools: [tool('Read')],
        messages: msgs as HistoryMessage[],
        maxTokens: 100,
      },
      { DISABLE_PROMPT_CACHING: '1' },
    );
    expect(sim.account(unmarked).cache_read_input_tokens).toBe(0);
  });

  it('refuses more than 4 breakpoints and a mark on a thinking block, as the API does', () => {
    const sim = new PromptCacheSim();
    const m = (t: string) => ({ type: 'text', text: t, cache_control: MARK });
    expect(() =>
      sim.account({ model: 'm', messages: [{ role: 'user', content: [m('1'), m('2'), m('3'), m('4'), m('5')] }] }),
    ).toThrow(/maximum of 4 blocks with cache_control.*Found 5/);
    expect(() =>
      sim.account({
        model: 'm',
        messages: [
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's', cache_control: MARK }] },
        ],
      }),
    ).toThrow(/thinking/);
  });
});
