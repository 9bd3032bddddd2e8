// Rebuilding the main conversation from transcript entries: what the API would refuse never gets in.
import { describe, expect, it } from 'vitest';
import { HistoryBuilder } from '../../../src/session/resume.js';

const prompt = (content: unknown) => ({ type: 'user', message: { role: 'user', content }, session_id: 's' });
const assistant = (content: unknown[], extra: object = {}) => ({
  type: 'assistant',
  message: { content, ...extra },
  parent_tool_use_id: null,
});
const result = (id: string) => ({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
  parent_tool_use_id: null,
});
const use = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: {} });

function build(entries: object[]) {
  const warnings: string[] = [];
  const b = new HistoryBuilder((m) => warnings.push(m));
  const invalid = entries.filter((e) => !b.add(e as Record<string, unknown>)).length;
  return { history: b.finish(), warnings, invalid };
}

describe('HistoryBuilder', () => {
  it('parallel tool results in separate lines merge into one user message', () => {
    const { history } = build([
      prompt('go'),
      assistant([use('a'), use('b')]),
      result('a'),
      result('b'),
      assistant([{ type: 'text', text: 'done' }]),
    ]);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((history[2].content as any[]).map((b) => b.tool_use_id)).toEqual(['a', 'b']);
  });

  it("a reply written one entry per block (same message id) is one message; every block's call keeps its result", () => {
    const { history, warnings } = build([
      prompt('go'),
      assistant([{ type: 'text', text: 'two calls' }], { id: 'msg_1' }),
      assistant([use('a')], { id: 'msg_1' }),
      assistant([use('b')], { id: 'msg_1' }),
      result('a'),
      result('b'),
      assistant([{ type: 'text', text: 'done' }], { id: 'msg_2' }),
    ]);
    expect(warnings).toEqual([]);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect((history[1].content as any[]).map((b) => b.id ?? b.type)).toEqual(['text', 'a', 'b']);
    expect((history[2].content as any[]).map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ['a', undefined],
      ['b', undefined],
    ]);
  });

  it('a partly answered batch: the missing result is added as interrupted, before the next prompt', () => {
    const { history } = build([prompt('go'), assistant([use('a'), use('b')]), result('a'), prompt('next')]);
    expect(history).toHaveLength(3);
    const blocks = history[2].content as any[];
    expect(blocks.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(blocks[1]).toMatchObject({ tool_use_id: 'b', is_error: true });
  });

  it('a prompt blocked by a hook is left out; an orphan tool_result is dropped with a warning', () => {
    const { history, warnings } = build([
      prompt('blocked'),
      { type: 'system', subtype: 'prompt_blocked', reason: 'no' },
      prompt('allowed'),
      result('zz'),
      assistant([{ type: 'text', text: 'hi' }]),
    ]);
    expect(history).toEqual([
      { role: 'user', content: 'allowed' },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    ]);
    expect(warnings.join('\n')).toMatch(/tool_result without its tool_use/);
  });

  it('two assistant turns in a row become one; malformed messages are reported', () => {
    const { history, invalid } = build([
      prompt('go'),
      assistant([{ type: 'text', text: 'one' }]),
      assistant([{ type: 'text', text: 'two' }]),
      { type: 'assistant', message: { content: 'not blocks' } },
      { type: 'user' },
    ]);
    expect(history).toHaveLength(2);
    expect((history[1].content as any[]).map((b) => b.text)).toEqual(['one', 'two']);
    expect(invalid).toBe(2);
  });

  it('the deferred-tools reminder goes back on the message it was added to, as it was read; other attachments are not replayed', () => {
    const told = (text: string) => ({
      type: 'attachment',
      attachment: { type: 'deferred_tools', names: ['CronList'] },
      rendered: [{ content: text }],
    });
    const { history } = build([
      prompt('go'),
      told('<system-reminder>\nlist one\n</system-reminder>'),
      { type: 'attachment', attachment: { type: 'date', date: '2026-11-25' }, rendered: [{ content: 'not ours' }] },
      assistant([use('a')]),
      result('a'),
      told('<system-reminder>\nlist two\n</system-reminder>'),
      assistant([{ type: 'text', text: 'done' }]),
    ]);
    expect(history).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'go' },
          { type: 'text', text: '<system-reminder>\nlist one\n</system-reminder>' },
        ],
      },
      { role: 'assistant', content: [use('a')] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
          { type: 'text', text: '<system-reminder>\nlist two\n</system-reminder>' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });
});
