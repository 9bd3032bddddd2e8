// Rebuilds a reply's Message from its raw stream events, as the non-streaming API would have returned it.
import type { ContentBlock, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { ModelError } from './modelErrors.js';

/** Builds the final Message from raw stream events, the way the API's non-streaming reply would look. */
export class MessageAssembler {
  private message: Message | null = null;
  private readonly json = new Map<number, string>();
  private readonly complete = new Set<number>();
  private stopped = false;

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, content: [], usage: { ...event.message.usage } };
        this.complete.clear();
        this.json.clear();
        return;
      case 'content_block_start': {
        const block = { ...event.content_block } as ContentBlock;
        this.need().content[event.index] = block;
        if (block.type === 'tool_use' || block.type === 'server_tool_use') this.json.set(event.index, '');
        return;
      }
      case 'content_block_delta': {
        const block = this.need().content[event.index] as any;
        if (!block) throw new Error(`content_block_delta for unknown block ${event.index}`);
        const d = event.delta;
        if (d.type === 'text_delta') block.text += d.text;
        else if (d.type === 'thinking_delta') block.thinking += d.thinking;
        else if (d.type === 'signature_delta') block.signature = d.signature;
        else if (d.type === 'input_json_delta')
          this.json.set(event.index, (this.json.get(event.index) ?? '') + d.partial_json);
        else if (d.type === 'citations_delta') (block.citations ??= []).push(d.citation);
        return;
      }
      case 'content_block_stop': {
        const raw = this.json.get(event.index);
        if (raw !== undefined) {
          const block = this.need().content[event.index] as any;
          // No JSON streamed: the input is what content_block_start carried (the API sends {}).
          block.input = raw.trim() === '' ? (block.input ?? {}) : JSON.parse(raw);
          this.json.delete(event.index);
        }
        this.complete.add(event.index);
        return;
      }
      case 'message_delta': {
        const m = this.need();
        m.stop_reason = event.delta.stop_reason;
        m.stop_sequence = event.delta.stop_sequence;
        // Delta usage is cumulative; copy the counts it carries, keep the rest.
        for (const [k, v] of Object.entries(event.usage ?? {})) {
          if (v !== null && v !== undefined) (m.usage as any)[k] = v;
        }
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
    }
  }

  /** The block at `index` once its content_block_stop has arrived. */
  completedBlock(index: number): ContentBlock | undefined {
    return this.complete.has(index) ? this.message?.content[index] : undefined;
  }

  /**
   * The block at `index` as a message of its own, the way the reference shows each block as it
   * completes: the reply's id, model and message_start usage, no stop reason yet.
   */
  blockMessage(index: number): Message | undefined {
    const block = this.completedBlock(index);
    if (!block || !this.message) return undefined;
    return {
      ...this.message,
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...this.message.usage },
    };
  }

  /**
   * The reply so far, cut to its complete blocks (a thinking block only with its signature, so
   * the next request stays valid), or null before message_start. For a stream that failed after
   * a tool had started: the conversation keeps what the model said up to there.
   */
  partial(): Message | null {
    if (!this.message) return null;
    const content = this.message.content.filter(
      (b, i) => this.complete.has(i) && b !== undefined && !(b.type === 'thinking' && !b.signature),
    );
    return { ...this.message, content, stop_reason: 'tool_use' };
  }

  /** The message, or a retryable error if the stream ended before message_stop. */
  finish(): Message {
    if (!this.message || !this.stopped) {
      throw new ModelError('API Error: the response stream ended before the reply was complete', {
        kind: 'connection',
        retryable: true,
      });
    }
    return this.message;
  }

  private need(): Message {
    if (!this.message) throw new Error('stream event before message_start');
    return this.message;
  }
}
