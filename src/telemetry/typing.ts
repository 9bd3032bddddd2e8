// The person's share of claude_code.active_time.total (type `user`): time spent typing in the
// terminal UI. Each key that follows the one before it within TYPING_PAUSE_MS adds the time between
// them; the first key after a longer pause adds nothing (the person was away, reading, or
// thinking), and neither does the first key after a prompt was sent (the wait for the answer is
// the agent's time: the `cli` type, counted per turn in sessionTelemetry.ts).

/** Longer than this between two keys is a pause, not typing. */
export const TYPING_PAUSE_MS = 5_000;

export interface TypingClock {
  /** A key was typed at `nowMs`: the seconds of typing it ends (0 after a pause, or for the first key). */
  key(nowMs: number): number;
  /** A prompt was sent: the next key starts a new stretch of typing. */
  pause(): void;
}

export function typingClock(pauseMs = TYPING_PAUSE_MS): TypingClock {
  let last: number | undefined;
  return {
    key(nowMs) {
      const gap = last === undefined ? Number.POSITIVE_INFINITY : nowMs - last;
      last = nowMs;
      return gap >= 0 && gap <= pauseMs ? gap / 1000 : 0;
    },
    pause() {
      last = undefined;
    },
  };
}
