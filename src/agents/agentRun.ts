// The lifecycle of one subagent task (foreground, background, a fork, one moved to the background
// mid-run), over the one run driver (src/loop/runDriver.ts):
//   start    — the prompt opens its transcript, SubagentStart hooks run, progress summaries begin;
//   progress — each event kept in the transcript, shown to the host as it asked, and the task
//              row's usage so far after each of its messages;
//   outcome  — the driver's LoopOutcome (a fault is an error outcome, never a throw);
//   end      — its worktree released, its task finished once (stopped, completed or failed: the
//              notification), its transcript closed. Its spend is already in the session's ledger:
//              its config's accumulator records every call there as it is counted.
import type { HistoryMessage, LoopEvent, LoopOutcome } from '../loop/events.js';
import { RunDriver } from '../loop/runDriver.js';
import type { UsageAccumulator } from '../loop/usage.js';
import type { TaskEnd, TaskRegistry, TaskUsage } from '../tasks/registry.js';
import type { Transcript } from '../transcript/transcript.js';
import { logWarning } from '../util/log.js';
import { recordEvent } from './agentTranscript.js';
import { releaseWorktree, type ReleasedWorktree } from './agentWorktree.js';
import { subagentHostView } from './hostView.js';
import { hookInput, type Prepared } from './prepareAgent.js';
import { startProgressSummaries, summariesWanted, summaryIntervalMs, type SummaryLoop } from './progressSummary.js';

/** What a run needs of the session. */
export interface AgentRunDeps {
  registry: TaskRegistry;
  /** Writes a background subagent's loop event as a protocol line. */
  emitEvent: (ev: LoopEvent) => void | Promise<void>;
  /** initialize.agentProgressSummaries: running agents get periodic model-written summaries. */
  progressSummaries?: () => boolean;
  /** Whether a host gets a subagent's text and thinking too (forwardSubagentText); absent: it does. */
  forwardSubagentText?: () => boolean;
}

/** A task row's usage: tokens so far, tool uses, time since it started. */
export function stats(events: { toolUses: number }, usage: UsageAccumulator, started: number): TaskUsage {
  const t = usage.totals();
  return {
    totalTokens: t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens,
    toolUses: events.toolUses,
    durationMs: Date.now() - started,
  };
}

export function failureText(outcome: LoopOutcome): string {
  return outcome.interrupted ? 'Agent was interrupted' : `Agent failed: ${outcome.resultText}`;
}

/** How a run ended, for the caller's own answer (a foreground Task call's tool result). */
export interface AgentEnded {
  end: TaskEnd;
  released: ReleasedWorktree;
}

export class AgentRun {
  readonly driver: RunDriver;
  readonly started = Date.now();
  private readonly summaries: SummaryLoop | undefined;

  constructor(
    private readonly deps: AgentRunDeps,
    readonly p: Prepared,
    readonly taskId: string,
    private readonly transcript: Transcript,
  ) {
    this.driver = new RunDriver(p.history);
    this.summaries = this.summarize();
  }

  /**
   * Start, then the run through the one driver to its outcome, each event kept in the transcript
   * before it is yielded. Never throws: a fault is an error outcome.
   */
  async *events(): AsyncGenerator<LoopEvent, LoopOutcome, void> {
    // The prompt opens the transcript, so the file exists for SubagentStart hooks and readers.
    this.transcript.appendMessage({ type: 'user', message: this.p.history[this.p.history.length - 1] });
    await fireSubagentStart(this.p);
    const gen = this.driver.run(this.p.cfg);
    for (;;) {
      const step = await gen.next();
      if (step.done) return step.value;
      recordEvent(this.transcript, step.value);
      yield step.value;
    }
  }

  /** The event as the host gets it (its transcript has every event); undefined: nothing of it. */
  shown(ev: LoopEvent): LoopEvent | undefined {
    return subagentHostView(ev, this.deps.forwardSubagentText?.() ?? true);
  }

  /** After each of its messages is out: the task row's usage so far. */
  progress(ev: LoopEvent): void {
    if (ev.type === 'assistant') this.deps.registry.progress(this.taskId, this.usage(), this.driver.tally.lastTool);
  }

  usage(): TaskUsage {
    return stats(this.driver.tally, this.p.cfg.usage, this.started);
  }

  /** Its summaries stop and its transcript closes (the end's first half; the task is not finished yet). */
  close(): void {
    this.summaries?.stop();
    this.transcript.close();
  }

  /**
   * The one end of the task: its worktree released (and said), then its end told once. Stopped
   * when its own abort fired (stop_task, TaskStop, the turn's interrupt while it blocked the turn).
   * `emptyAnswer`: what a success with no final text says instead (a foreground call's result).
   * `stopWins`: a stop that raced its final answer still ends it as stopped (a background task,
   * which nobody waits on); a foreground call keeps the answer it got.
   */
  async end(
    outcome: LoopOutcome | undefined,
    o: { stopSummary: string; emptyAnswer?: string; stopWins?: boolean },
  ): Promise<AgentEnded> {
    const released = await releaseWorktree(this.p.worktree);
    const withNote = (t: string) => (released.note ? `${t}\n\n${released.note}` : t);
    const usage = this.usage();
    let end: TaskEnd;
    if (outcome?.subtype === 'success' && !(o.stopWins && this.p.cfg.signal.aborted)) {
      const text = withNote(outcome.resultText.trim() ? outcome.resultText : (o.emptyAnswer ?? outcome.resultText));
      end = { status: 'completed', summary: text, resultText: text, usage };
    } else if (this.p.cfg.signal.aborted) end = { status: 'stopped', summary: withNote(o.stopSummary), usage };
    else {
      const text = withNote(outcome ? failureText(outcome) : 'Agent failed');
      end = { status: 'failed', summary: text, resultText: text, usage };
    }
    this.deps.registry.finish(this.taskId, end);
    return { end, released };
  }

  /**
   * In the background to its end (launched so, or moved there mid-run with its next step still
   * pending): its events go to the session's output, then its end is its task's notification.
   */
  async inBackground(
    events: AsyncGenerator<LoopEvent, LoopOutcome, void>,
    stopSummary: string,
    pending?: Promise<IteratorResult<LoopEvent, LoopOutcome>>,
  ): Promise<void> {
    let outcome: LoopOutcome | undefined;
    try {
      let step = await (pending ?? events.next());
      while (!step.done) {
        const shown = this.shown(step.value);
        if (shown) await this.deps.emitEvent(shown);
        this.progress(step.value);
        step = await events.next();
      }
      outcome = step.value;
    } catch (err) {
      logWarning(`background agent ${this.taskId}: ${(err as Error).message}`);
    } finally {
      this.close();
    }
    await this.end(outcome, { stopSummary, stopWins: true });
  }

  /** agentProgressSummaries for a running agent (foreground or background), when the host asked for them. */
  private summarize(): SummaryLoop | undefined {
    if (!summariesWanted(this.deps.progressSummaries?.() ?? false)) return undefined;
    const { p, taskId } = this;
    return startProgressSummaries(p.cfg, p.model, p.history, {
      intervalMs: summaryIntervalMs(),
      caller: `${taskId}:summary`,
      onSummary: (line) => this.deps.registry.progress(taskId, this.usage(), this.driver.tally.lastTool, line),
    });
  }
}

/** SubagentStart, through the parent pipeline's hook runner (matcher: the agent type). */
async function fireSubagentStart(p: Prepared): Promise<void> {
  const hooks = p.parent.pipeline.hooks;
  if (!hooks?.has('SubagentStart')) return;
  try {
    const out = await hooks.run('SubagentStart', hookInput(p), { matchValue: p.def.name, signal: p.cfg.signal });
    // A SubagentStart hook's additionalContext is given to the agent with its prompt (a fork's
    // prompt is its last message: the parent's conversation before it stays as it was sent).
    const at = p.history.length - 1;
    const prompt = p.history[at];
    if (out.additionalContext.length)
      p.history[at] = {
        role: 'user',
        content:
          typeof prompt.content === 'string'
            ? [prompt.content, ...out.additionalContext].join('\n\n')
            : [...(prompt.content as object[]), ...out.additionalContext.map((text) => ({ type: 'text', text }))],
      } as HistoryMessage;
  } catch (err) {
    logWarning(`SubagentStart hook failed: ${(err as Error).message}`);
  }
}
