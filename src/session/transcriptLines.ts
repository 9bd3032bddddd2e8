// What the main conversation's transcript keeps of its protocol lines. A reply goes to the host one
// assistant line per content block as each block completes (stop_reason null, message_start
// usage); the transcript keeps one entry per block too, with the uuid of the line the host saw
// (resumeSessionAt, rewind), but writes them once the reply has ended, each with the reply's final
// stop_reason and usage, as the reference's transcript has them. The blocks of a reply that never
// ended (retried, interrupted) are not kept: the conversation the model goes on from never held
// them either.
import type { SessionEvent } from './events.js';
import type { WireLine } from './wire.js';
import type { TranscriptMessage } from '../transcript/transcript.js';

type Recordable = {
  recordProtocolLine(line: Record<string, unknown>): void;
  appendMessage(m: TranscriptMessage): string;
};

/** The transcript entry type of the deferred-tools reminder (resume.ts puts its text back). */
export const DEFERRED_TOOLS_ATTACHMENT = 'deferred_tools';

/** Returns the function that records one main-thread event (with its line, if it has one). */
export function transcriptRecorder(transcript: Recordable): (ev: SessionEvent, line: WireLine | null) => void {
  let held: Array<Extract<WireLine, { type: 'assistant' }>> = [];
  return (ev, line) => {
    if (ev.type === 'assistant_block') {
      if (line?.type === 'assistant') held.push(line);
      return;
    }
    if (ev.type === 'assistant' && ev.blocksShown) {
      const final = ev.message;
      for (const l of held) {
        const shown: Record<string, unknown> & { id?: unknown } = l.message;
        if (shown.id !== final.id) continue; // a reply that was retried: superseded
        transcript.recordProtocolLine({
          ...l,
          message: {
            ...shown,
            stop_reason: final.stop_reason,
            stop_sequence: final.stop_sequence ?? null,
            usage: final.usage,
          },
        });
      }
      held = [];
      return;
    }
    if (ev.type === 'deferred_tools') {
      // On the chain after the message it was added to, with the text the model read, as the
      // reference keeps its reminders (an attachment line with what it rendered).
      transcript.appendMessage({
        type: 'attachment',
        attachment: { type: DEFERRED_TOOLS_ATTACHMENT, names: ev.names },
        rendered: [{ content: ev.text }],
      });
      return;
    }
    if (ev.type === 'result') held = [];
    if (line) transcript.recordProtocolLine(line);
  };
}
