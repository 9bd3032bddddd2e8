// Where the session's events go: each becomes its protocol line once (toWire), the main
// conversation's lines are kept in the transcript, and the mode's output gets the event and line.
// File and context controls may tell events before one (files_persisted before a result).
import { isMainThread, type SessionEvent } from '../session/events.js';
import { toWire, type WireLine } from '../session/wire.js';
import type { Transcript } from '../transcript/transcript.js';
import { transcriptRecorder } from '../session/transcriptLines.js';

export interface SessionEvents {
  /** Tells one event the way the session's own go (transcript, output). */
  emit(event: SessionEvent): Promise<void>;
  /** What to tell before each event (set once the session's controls exist). */
  setBefore(before: (event: SessionEvent) => SessionEvent[]): void;
}

export function createSessionEvents(o: {
  sessionId: string;
  transcript: Transcript | null;
  includePartialMessages: boolean;
  output: (event: SessionEvent, line: WireLine | null) => Promise<void>;
}): SessionEvents {
  let before: ((event: SessionEvent) => SessionEvent[]) | undefined;
  const record = o.transcript ? transcriptRecorder(o.transcript) : undefined;
  const deliver = (ev: SessionEvent) => {
    const line = toWire(ev, o.sessionId, o.includePartialMessages);
    if (record && isMainThread(ev)) record(ev, line);
    return o.output(ev, line);
  };
  return {
    async emit(ev) {
      for (const extra of before?.(ev) ?? []) await deliver(extra);
      return deliver(ev);
    },
    setBefore(fn) {
      before = fn;
    },
  };
}
