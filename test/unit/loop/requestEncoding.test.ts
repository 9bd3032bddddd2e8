// The request body encoder reuses each older message's JSON from turn to turn; the bytes must be
// exactly JSON.stringify(body) every turn, including after the history changed under it.
import { describe, expect, it } from 'vitest';
import { encodeRequestBody } from '../../../src/loop/requestEncoding.js';
import { requestBody } from '../../../src/loop/modelClient.js';
import type { HistoryMessage } from '../../../src/loop/events.js';

const env = {} as NodeJS.ProcessEnv;
const bodyOf = (messages: HistoryMessage[], extra: Partial<Parameters<typeof requestBody>[0]> = {}) =>
  requestBody(
    {
      model: 'claude-sonnet-5-5',
      system: [
        { type: 'text', text: 'static' },
        { type: 'text', text: 'env' },
      ],
      tools: [],
      messages,
      maxTokens: 1000,
      ...extra,
    },
    env,
  );

const same = (body: ReturnType<typeof bodyOf>) =>
  expect(encodeRequestBody(body).toString('utf8')).toBe(JSON.stringify(body));

describe('encodeRequestBody', () => {
  it('gives JSON.stringify(body) turn after turn of a growing conversation', () => {
    const history: HistoryMessage[] = [{ role: 'user', content: 'read it — «twice» 😀' }];
    for (let turn = 0; turn < 5; turn++) {
      same(bodyOf(history, { thinking: { type: 'adaptive' }, effort: 'medium' }));
      history.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: `toolu_${turn}`, name: 'Read', input: { file_path: '/a\u2028b' } }],
      });
      history.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}`, content: 'line\n"quoted"\u0000' }],
      });
    }
    same(bodyOf(history));
  });

  it('notices a message whose content was replaced after it was encoded', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'second' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok again' }] },
    ];
    same(bodyOf(history));
    // What appendToLastUser and the runner do: a new content array on an older message.
    history[2].content = [
      { type: 'text', text: 'second' },
      { type: 'text', text: 'and more' },
    ];
    same(bodyOf(history));
    history[0] = { role: 'user', content: 'replaced whole' };
    same(bodyOf(history));
  });

  it('keeps a host cache mark dropped from an older message out of the bytes', () => {
    const marked = (text: string) => [{ type: 'text', text, cache_control: { type: 'ephemeral' } }];
    const history: HistoryMessage[] = [];
    for (let i = 0; i < 6; i++)
      history.push({ role: i % 2 ? 'assistant' : 'user', content: marked(`m${i}`) } as HistoryMessage);
    same(bodyOf(history)); // more marks than the API allows: the oldest lose theirs in the body
    history.push({ role: 'assistant', content: marked('m6') } as HistoryMessage);
    same(bodyOf(history));
  });

  it('falls back to plain serialisation for a body of another shape', () => {
    const odd = { messages: [{ role: 'user', content: 'x' }], model: 'm', max_tokens: 1 };
    expect(encodeRequestBody(odd as never).toString('utf8')).toBe(JSON.stringify(odd));
    const empty = bodyOf([]);
    same(empty);
  });
});
