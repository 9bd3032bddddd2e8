// The timing fields of a turn's result line, named as the SDK's SDKResultSuccess names them:
// milliseconds from the turn's start to its first Messages API request (time_to_request_ms), to
// that reply's first streamed event (ttft_stream_ms), to its first content token (ttft_ms), and
// to the first content line written for the turn (first_content_frame_ms).
import type { CallModel, ModelEvent, ModelRequest } from '../loop/model.js';

export interface TimingFields {
  time_to_request_ms?: number;
  ttft_stream_ms?: number;
  ttft_ms?: number;
  first_content_frame_ms?: number;
}

export class TurnTiming {
  private readonly start = performance.now();
  private requestAt?: number;
  private streamAt?: number;
  private tokenAt?: number;
  private frameAt?: number;

  /** The model call, timed: its first request and the first events of that reply. */
  wrap(call: CallModel, onRequest?: (req: ModelRequest) => void): CallModel {
    return (req) => {
      onRequest?.(req);
      const first = this.requestAt === undefined;
      if (first) this.requestAt = performance.now();
      return first ? this.observe(call(req)) : call(req);
    };
  }

  /** A content line (an assistant message, or a stream event the host sees) is being written. */
  contentFrame(): void {
    this.frameAt ??= performance.now();
  }

  fields(): TimingFields {
    const ms = (t: number | undefined) => (t === undefined ? undefined : Math.round(t - this.start));
    const out: TimingFields = {};
    const set = (k: keyof TimingFields, t: number | undefined) => {
      const v = ms(t);
      if (v !== undefined) out[k] = v;
    };
    set('time_to_request_ms', this.requestAt);
    set('ttft_stream_ms', this.streamAt);
    set('ttft_ms', this.tokenAt);
    set('first_content_frame_ms', this.frameAt);
    return out;
  }

  private async *observe(events: AsyncIterable<ModelEvent>): AsyncIterable<ModelEvent> {
    for await (const ev of events) {
      if (ev.type === 'stream_event') {
        this.streamAt ??= performance.now();
        if ((ev.event as { type?: string }).type === 'content_block_delta') this.tokenAt ??= performance.now();
      } else if (ev.type === 'message') {
        // A reply that came whole (not streamed): its first event and token are the message.
        this.streamAt ??= performance.now();
        this.tokenAt ??= performance.now();
      }
      yield ev;
    }
  }
}
