// Where a session's turns come from, and when it is done: the input's prompts, and between and
// after them the background tasks' notices, the lead's team mail, due cron prompts and other
// sessions' messages, which re-enter the loop as turns of their own. After each result it polls
// (every 500 ms, or at once when something changes). Once the input has ended the session still
// waits: background work finishes, working teammates get until the teammate timeout (then they are
// stopped), the lead gets one wrap-up turn to shut its team down, idle teammates are ended, and
// only then is it done.
import type { AsyncQueue } from '../util/asyncQueue.js';
import type { BackgroundHost } from '../tasks/host.js';
import type { ScheduleHost } from '../tasks/scheduler.js';
import type { TeamHost } from '../teams/teamHost.js';
import { SHUTDOWN_PROMPT } from '../teams/messages.js';
import type { QueuedPrompt } from './promptBatch.js';

export const DEFAULT_TEAMMATE_TIMEOUT_MS = 10 * 60_000;

export interface PromptSources {
  /** Background tasks: polled after each result; their notices re-enter the loop. */
  background?: BackgroundHost;
  /** The team: the lead's mail re-enters the loop; live teammates keep the session going. */
  team?: TeamHost;
  /**
   * Cron jobs and /loop wakeups: their due prompts run as user turns between turns, while the
   * input is open. They never hold the session: once the input has ended they no longer fire.
   */
  schedule?: ScheduleHost;
  /** Messages from other local sessions (src/peers): they re-enter the loop like task notices. */
  peerInbox?: { takeMessages(): Promise<string | null> };
  /** How long working teammates may go on once the input has ended (default 10 minutes). */
  teammateTimeoutMs?: number;
}

export interface TurnRunner {
  /** `first` and whatever is queued behind it (the input's prompts). */
  runQueued(first: QueuedPrompt): Promise<void>;
  /** One turn of these prompts (a notice, the wrap-up). */
  runTurn(prompts: QueuedPrompt[]): Promise<void>;
}

/** Runs turns until the input has ended and nothing is left to wait for. */
export async function runPromptSources(
  queue: AsyncQueue<QueuedPrompt>,
  sources: PromptSources,
  turns: TurnRunner,
): Promise<void> {
  const bg = sources.background;
  const team = sources.team;
  if (!bg && !team) {
    for await (const prompt of queue) await turns.runQueued(prompt);
    return;
  }
  const waitForChange = (ms: number) =>
    Promise.race([
      bg?.waitForChange(ms) ?? new Promise<void>((r) => setTimeout(r, ms)),
      ...(team ? [team.waitForChange(ms)] : []),
    ]);
  let next: Promise<IteratorResult<QueuedPrompt>> | null = null;
  let inputEndedAt: number | null = null;
  let wrapUpDone = false;
  for (;;) {
    const due = inputEndedAt === null ? (sources.schedule?.takeDue() ?? []) : [];
    for (const prompt of due) await turns.runQueued({ content: prompt });
    const notices = [
      bg?.takeNotice() ?? null,
      team ? await team.takeLeadPrompt() : null,
      inputEndedAt === null ? ((await sources.peerInbox?.takeMessages()) ?? null) : null,
    ].filter((t): t is string => t !== null);
    if (notices.length) {
      await turns.runTurn([{ content: notices.join('\n\n'), notification: true }]);
      continue;
    }
    if (inputEndedAt !== null) {
      if (team?.live()) {
        if (team.working()) {
          const left = inputEndedAt + (sources.teammateTimeoutMs ?? DEFAULT_TEAMMATE_TIMEOUT_MS) - Date.now();
          if (left <= 0) await team.stopWorking('the teammate timeout passed after the input ended');
          else await waitForChange(Math.min(500, left));
        } else if (!wrapUpDone) {
          wrapUpDone = true;
          await turns.runTurn([{ content: SHUTDOWN_PROMPT, notification: true }]);
        } else {
          await team.endIdle();
        }
        continue;
      }
      if (!bg?.busy()) return;
      await waitForChange(500);
      continue;
    }
    next ??= queue.next();
    const step = await Promise.race([next, waitForChange(500).then(() => null)]);
    if (step === null) continue;
    next = null;
    if (step.done) inputEndedAt = Date.now();
    else await turns.runQueued(step.value);
  }
}
