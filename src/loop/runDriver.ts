// The one driver of an agent run. Every kind of run — the session's turn, a subagent, a fork, a
// teammate's batch of mail — goes through here; they differ only in their config (the root one, or
// deriveChildConfig's), their services (deriveChildServices) and where their events go (the sink).
// The driver owns what they used to write each for itself: pulling the loop, a fault as an error
// outcome (never a throw), the interrupt flag on it, what the agent did (tool uses, its last
// words), and a turn limit that holds across runs of one conversation.
import { setMaxListeners } from 'node:events';
import { agentLoop, type LoopConfig } from './agentLoop.js';
import { makeOutcome, type HistoryMessage, type LoopEvent, type LoopOutcome } from './events.js';
import { logInternalError } from '../util/log.js';

/** Where a run's events go, in order; awaited, so a slow consumer holds the run back. */
export type RunSink = (ev: LoopEvent) => void | Promise<void>;

/** What an agent did across its runs (a task row's progress, a teammate's last words). */
export interface RunTally {
  /** tool_use blocks it made. */
  toolUses: number;
  /** The last tool it called. */
  lastTool?: string;
  /** Its last non-empty text (a successful run's final text, else its last text block). */
  lastText: string;
  /** Model turns taken across runs. */
  turns: number;
}

export class RunDriver {
  readonly tally: RunTally = { toolUses: 0, lastText: '', turns: 0 };

  /**
   * @param history the conversation every run extends (the loop appends to it).
   * @param maxTurns a limit on the turns of all runs together (a teammate's life); undefined: none here.
   */
  constructor(
    readonly history: HistoryMessage[],
    readonly maxTurns?: number,
  ) {}

  /** What is left of the turn limit for the next run (undefined: no limit). */
  turnsLeft(): number | undefined {
    return this.maxTurns === undefined ? undefined : Math.max(0, this.maxTurns - this.tally.turns);
  }

  /** The turn limit is used up: no further run may start. */
  get turnsSpent(): boolean {
    return this.maxTurns !== undefined && this.tally.turns >= this.maxTurns;
  }

  /** One run to its outcome, each event handed to `sink`. Never throws. */
  async runTo(cfg: LoopConfig, sink: RunSink): Promise<LoopOutcome> {
    allowRunListeners(cfg.signal);
    // Pulled by hand, not through run(): the main session's turn pays no extra generator hop per event.
    const gen = agentLoop(this.history, cfg);
    try {
      for (;;) {
        const step = await gen.next();
        if (step.done) return this.ended(step.value);
        this.note(step.value);
        await sink(step.value);
      }
    } catch (err) {
      await gen.return(undefined as never).catch(() => {});
      return faultOutcome(err, cfg.signal);
    }
  }

  /** One run to its outcome as a stream (a foreground subagent forwards it). Never throws. */
  async *run(cfg: LoopConfig): AsyncGenerator<LoopEvent, LoopOutcome, void> {
    allowRunListeners(cfg.signal);
    const gen = agentLoop(this.history, cfg);
    let finished = false;
    try {
      for (;;) {
        let step: IteratorResult<LoopEvent, LoopOutcome>;
        try {
          step = await gen.next();
        } catch (err) {
          finished = true;
          return faultOutcome(err, cfg.signal);
        }
        if (step.done) {
          finished = true;
          return this.ended(step.value);
        }
        this.note(step.value);
        yield step.value;
      }
    } finally {
      // Abandoned by its consumer: the loop's own cleanup (timers, waiting calls) still runs.
      if (!finished) await gen.return(undefined as never).catch(() => {});
    }
  }

  private note(ev: LoopEvent): void {
    if (ev.type !== 'assistant') return;
    for (const b of ev.message.content) {
      if (b.type === 'tool_use') {
        this.tally.toolUses++;
        this.tally.lastTool = String(b.name);
      } else if (b.type === 'text' && String(b.text ?? '').trim()) this.tally.lastText = String(b.text);
    }
  }

  private ended(outcome: LoopOutcome): LoopOutcome {
    this.tally.turns += outcome.numTurns;
    if (outcome.subtype === 'success' && outcome.resultText) this.tally.lastText = outcome.resultText;
    return outcome;
  }
}

/**
 * A bug or an environment fault inside a run, or in the turn around it (the session's hooks before
 * the run): the run's error outcome, interrupted when its signal was aborted, and one stderr line.
 * The one way a fault becomes an outcome.
 */
export function faultOutcome(err: unknown, signal: AbortSignal): LoopOutcome {
  logInternalError(err);
  const message = err instanceof Error ? err.message : String(err);
  return makeOutcome('error_during_execution', `Internal error: ${message}`, {
    ...(signal.aborted ? { interrupted: true } : {}),
  });
}

/**
 * A run's signal is listened to by everything the run has under way at once: the model's stream,
 * each tool call running beside the others (its process, its timeout), hooks. Four parallel Bash
 * calls already passed Node's leak warning at 10 listeners (a MaxListenersExceededWarning on stderr),
 * which is no leak: each piece removes its listener when it settles. Per-call listeners on a
 * long-lived signal go through linkedSignal (src/util/linkedSignal.ts) instead.
 */
function allowRunListeners(signal: AbortSignal): void {
  setMaxListeners(100, signal);
}
