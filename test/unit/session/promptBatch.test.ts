import { describe, expect, it } from 'vitest';
import { batchQueued, mergePromptContents, unsendableReason } from '../../../src/session/promptBatch.js';

describe('queued prompts become turns', () => {
  it('merges consecutive prompts into one turn, blocks in order; a notice stays a turn of its own', () => {
    const a = { content: 'first', uuid: 'u1' };
    const b = {
      content: [
        { type: 'text', text: 'second' },
        { type: 'image', source: {} },
      ],
      uuid: 'u2',
    };
    const n = { content: '<task-notification/>', notification: true };
    const c = { content: 'third' };
    expect(batchQueued([a, b, n, c])).toEqual([[a, b], [n], [c]]);
    expect(mergePromptContents([a, b])).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'second' },
      { type: 'image', source: {} },
    ]);
    expect(mergePromptContents([a])).toBe('first');
  });

  it('names why a prompt cannot be sent: nested too deep for JSON', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    expect(unsendableReason([{ type: 'text', text: 'hi', extra: deep }])).toMatch(
      /^it cannot be serialised as JSON \(Maximum call stack size exceeded\)$/,
    );
    expect(unsendableReason('fine')).toBeNull();
  });
});
