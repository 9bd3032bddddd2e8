// The agent's clock, moved for the tests that would otherwise wait on the real one (a cron job fires
// on the minute; a ScheduleWakeup waits at least 60 s). libfaketime (Debian's `faketime` package,
// installed by .ci/run) is preloaded into the agent: the process runs for real, only the time it
// reads is shifted or sped up (Date.now, the monotonic clock its timers run on). Without the
// library the tests run on the real clock and simply take longer.
import { existsSync } from 'node:fs';

const LIBRARY = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
].find((p) => existsSync(p));

if (!LIBRARY)
  console.warn('agentClock.ts: libfaketime is not installed (apt-get install faketime): clock tests wait in real time');

export interface AgentClock {
  /** Variables to add to the agent's environment (none without libfaketime). */
  env: Record<string, string>;
  /** How many of the agent's ms pass in one of the test's (1 on the real clock). */
  rate: number;
  /**
   * The test's time when the agent's clock reads `agentMs`, reckoned as if the agent had started
   * when the clock was made: it started later, so the true moment is this or a little after it.
   */
  realTimeOf(agentMs: number): number;
}

const preload = (lib: string) => [lib, process.env.LD_PRELOAD].filter(Boolean).join(':');

/** libfaketime's absolute form: "@YYYY-MM-DD hh:mm:ss" in UTC (TZ=UTC is set with it). */
const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

const realClock: AgentClock = { env: {}, rate: 1, realTimeOf: (ms) => ms };

/**
 * The agent's clock starts `lead` ms (of its own, a whole number of seconds) before the next whole
 * minute and runs `rate` times as fast as the test's. The lead must cover the agent's start and the
 * turns before the job is made: a job made after the minute waits for the next one (3 s was too
 * short on a loaded machine at the normal rate; at rate 20, 60 s of the agent's is 3 s, and a
 * missed minute costs 3 s more).
 */
export function minuteComingClock(leadMs = 10_000, rate = 1): AgentClock {
  if (!LIBRARY) return realClock;
  const now = Date.now();
  // At least lead + 1 s ahead, so the start-up of the agent does not eat into the lead.
  const start = Math.ceil((now + leadMs + 1_000) / 60_000) * 60_000 - leadMs;
  return {
    env: { LD_PRELOAD: preload(LIBRARY), FAKETIME: `@${stamp(start)}${rate === 1 ? '' : ` x${rate}`}`, TZ: 'UTC' },
    rate,
    realTimeOf: (agentMs) => now + (agentMs - start) / rate,
  };
}

/** The agent's clock runs `rate` times as fast as the test's, from the test's time now. */
export function fastClock(rate: number): AgentClock {
  if (!LIBRARY) return realClock;
  const now = Date.now();
  return {
    env: { LD_PRELOAD: preload(LIBRARY), FAKETIME: `+0 x${rate}` },
    rate,
    realTimeOf: (agentMs) => now + (agentMs - now) / rate,
  };
}
