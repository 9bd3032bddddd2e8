// What the transcript keeps of a reply shown block by block: one entry per block, written when the
// reply has ended with its final stop reason and usage; the blocks of a superseded reply are dropped.
import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../../src/loop/events.js';
import { transcriptRecorder } from '../../../src/session/transcriptLines.js';
import { toWire } from '../../../src/session/wire.js';
import type { SessionEvent } from '../../../src/session/events.js';

function reply(
  id: string,
  content: AssistantMessage['content'],
  stop: string | null,
  output: number,
): AssistantMessage {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: 'm',
    content,
    stop_reason: stop,
    usage: { input_tokens: 10, output_tokens: output },
  };
}

function run(events: SessionEvent[]) {
  const recorded: Array<Record<string, any>> = [];
  const shown: Array<Record<string, any>> = [];
  const record = transcriptRecorder({
    recordProtocolLine: (l) => recorded.push(l),
    appendMessage: (m) => String(recorded.push({ ...m, entry: true })),
  });
  for (const ev of events) {
    const line = toWire(ev, 's', false);
    if (line) shown.push(line);
    record(ev, line);
  }
  return { recorded, shown };
}

const block = (message: AssistantMessage): SessionEvent => ({
  type: 'assistant_block',
  parentToolUseId: null,
  message,
});

describe('transcriptRecorder', () => {
  it("writes each block's line once the reply ends, with the line's uuid and the final stop reason and usage", () => {
    const text = { type: 'text', text: 'hi' };
    const call = { type: 'tool_use', id: 't1', name: 'Bash', input: {} };
    const { recorded, shown } = run([
      block(reply('msg_1', [text], null, 1)),
      block(reply('msg_1', [call], null, 1)),
      {
        type: 'assistant',
        parentToolUseId: null,
        message: reply('msg_1', [text, call], 'tool_use', 40),
        blocksShown: true,
      },
    ]);
    expect(shown.map((l) => [l.message.content.length, l.message.stop_reason])).toEqual([
      [1, null],
      [1, null],
    ]);
    expect(recorded.map((l) => l.uuid)).toEqual(shown.map((l) => l.uuid));
    expect(
      recorded.map((l) => [l.message.content[0].type, l.message.stop_reason, l.message.usage.output_tokens]),
    ).toEqual([
      ['text', 'tool_use', 40],
      ['tool_use', 'tool_use', 40],
    ]);
  });

  it('drops the blocks of a reply that was retried (another id ended) or never ended (the result came first)', () => {
    const { recorded } = run([
      block(reply('msg_old', [{ type: 'text', text: 'cut' }], null, 1)),
      {
        type: 'api_retry',
        parentToolUseId: null,
        retry: { attempt: 1, maxRetries: 3, retryDelayMs: 1, errorStatus: 529, error: 'overloaded' },
      },
      block(reply('msg_new', [{ type: 'text', text: 'whole' }], null, 1)),
      {
        type: 'assistant',
        parentToolUseId: null,
        message: reply('msg_new', [{ type: 'text', text: 'whole' }], 'end_turn', 5),
        blocksShown: true,
      },
      block(reply('msg_3', [{ type: 'text', text: 'interrupted' }], null, 1)),
    ]);
    expect(recorded.map((l) => (l.type === 'assistant' ? l.message.content[0].text : l.subtype))).toEqual([
      'api_retry',
      'whole',
    ]);
  });

  it('a deferred-tools reminder is an attachment entry on the chain with the text the model read; it has no protocol line', () => {
    const { recorded, shown } = run([
      {
        type: 'deferred_tools',
        parentToolUseId: null,
        names: ['CronList'],
        text: '<system-reminder>\nx\n</system-reminder>',
      },
    ]);
    expect(shown).toEqual([]);
    expect(recorded).toEqual([
      {
        type: 'attachment',
        attachment: { type: 'deferred_tools', names: ['CronList'] },
        rendered: [{ content: '<system-reminder>\nx\n</system-reminder>' }],
        entry: true,
      },
    ]);
  });
});
