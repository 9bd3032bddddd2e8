// One teammate: its own conversation, run by the same agent loop as the lead, in this process.
// It works on what its mailbox brings (the lead's first message, then whatever anyone sends it),
// one loop run per batch of messages; between runs it is idle and wakes when a message arrives.
// Each run's end is told to the lead (an idle notice carrying its last text), so nothing it did is
// lost even if it never called SendMessage. It ends when it approves a shutdown request, when the
// session ends it while idle, or when it is stopped (TaskStop, interrupt, the teammate timeout);
// then its task notification says how, with what it had done so far.
import { deriveChildConfig } from '../loop/childLoop.js';
import type { LoopEvent, LoopOutcome } from '../loop/events.js';
import { RunDriver } from '../loop/runDriver.js';
import { UsageAccumulator } from '../loop/usage.js';
import { stats } from '../agents/agentRun.js';
import type { Prepared } from '../agents/prepareAgent.js';
import { recordEvent } from '../agents/agentTranscript.js';
import type { Transcript } from '../transcript/transcript.js';
import { appendUser } from '../loop/history.js';
import type { TaskRecord, TaskRegistry, TaskEnd } from '../tasks/registry.js';
import type { Mailbox } from './mailbox.js';
import { idleNotice, inboxTurn } from './messages.js';
import type { MemberStatus } from './teamConfig.js';
import { logWarning } from '../util/log.js';

export interface TeammateDeps {
  mailbox: Mailbox;
  registry: TaskRegistry;
  emitEvent: (ev: LoopEvent) => void | Promise<void>;
  /** Status or activity changed (the team file is rewritten, the runner wakes). */
  onChange: (t: Teammate) => void;
  onProblem: (text: string) => void;
  /** Its team's name (the TeammateIdle hook's `team_name`). */
  teamName: string;
  /** Who leads the team (as its team file says): its idle notices go there. */
  leadName: string;
}

/** How many times in a row a TeammateIdle hook may send it back to work (as Stop hooks). */
const MAX_IDLE_HOOK_REPEATS = 5;

/** How often an idle teammate looks at its inbox file when nobody in this process woke it. */
const IDLE_POLL_MS = 500;

export class Teammate {
  status: MemberStatus = 'working';
  lastActivity = Date.now();
  /** Set when it approved a shutdown request: it ends once its current run is over. */
  shutdownApproved = false;
  /** Why it is being stopped (told in its notification). */
  stopReason: string | undefined;
  /** The session is over and it is idle: end without further work. */
  private endWhenIdle = false;
  private wake: (() => void) | null = null;
  /**
   * Its conversation, one run per batch of mail. `--max-turns` (or its agent's maxTurns) bounds
   * its whole life, not each run: the driver counts the turns across runs.
   */
  private readonly driver: RunDriver;
  private readonly started = Date.now();
  /** Every run's usage, for its notification. */
  private readonly totalUsage = new UsageAccumulator();
  private idleHookRepeats = 0;
  readonly finished: Promise<void>;

  constructor(
    readonly name: string,
    readonly agentType: string,
    readonly task: TaskRecord,
    private readonly p: Prepared,
    private readonly transcript: Transcript,
    firstMessage: string,
    private readonly deps: TeammateDeps,
  ) {
    this.driver = new RunDriver([], p.cfg.maxTurns);
    this.finished = this.run(firstMessage);
  }

  get busy(): boolean {
    return this.status === 'working';
  }

  get live(): boolean {
    return this.status === 'working' || this.status === 'idle';
  }

  /** A message arrived for it: an idle teammate starts at once instead of at its next poll. */
  notify(): void {
    this.wake?.();
  }

  /** End it once idle (the session is over; nothing it is doing is cut short). */
  endIfIdle(): void {
    this.endWhenIdle = true;
    this.wake?.();
  }

  private setStatus(status: MemberStatus): void {
    this.status = status;
    this.lastActivity = Date.now();
    this.deps.onChange(this);
  }

  private async run(firstMessage: string): Promise<void> {
    const signal = this.task.abort.signal;
    const transcript = this.transcript;
    let pending: string | null = firstMessage;
    let failure: string | undefined;
    try {
      for (;;) {
        if (signal.aborted) break;
        if (pending === null) pending = await this.takeMail();
        if (pending === null) {
          if (this.shutdownApproved || this.endWhenIdle) break;
          if (this.status !== 'idle') this.setStatus('idle');
          await this.sleep(signal);
          continue;
        }
        if (this.status !== 'working') this.setStatus('working');
        appendUser(this.driver.history, pending, []);
        transcript.appendMessage({ type: 'user', message: { role: 'user', content: pending } });
        pending = null;
        const outcome = await this.runOnce(transcript);
        if (signal.aborted || this.shutdownApproved) break;
        if (this.driver.turnsSpent) {
          // Its turns are spent: it stops (reported as stopped, with its last words) rather than
          // idling, so no later message can start a run the limit forbids.
          this.stopReason = `reached its maximum of ${this.driver.maxTurns} turns`;
          this.task.abort.abort();
          break;
        }
        // TeammateIdle hooks: a block sends it back to work with the reason; continue:false stops it.
        const idle = await this.idleHook(signal);
        if (idle?.stop !== undefined) {
          this.stopReason = `a TeammateIdle hook stopped it${idle.stop ? `: ${idle.stop}` : ''}`;
          this.task.abort.abort();
          break;
        }
        if (idle?.block !== undefined && this.idleHookRepeats < MAX_IDLE_HOOK_REPEATS) {
          this.idleHookRepeats++;
          pending = `TeammateIdle hook feedback:\n${idle.block}`;
          continue;
        }
        this.idleHookRepeats = 0;
        this.lastActivity = Date.now();
        // Its run is over: the lead hears of it, with its last words (never lost, even unsent).
        await this.deps.mailbox
          .deliver(this.deps.leadName, {
            from: this.name,
            text: idleNotice(this.name, { ok: outcome.subtype === 'success', text: outcome.resultText }),
            summary: `${this.name} is idle`,
          })
          .catch((err) =>
            this.deps.onProblem(`teammate ${this.name}: could not tell the lead it is idle: ${(err as Error).message}`),
          );
      }
    } catch (err) {
      failure = `Teammate "${this.name}" failed: ${(err as Error).message}`;
      logWarning(`${failure}`);
    } finally {
      transcript.close();
    }
    this.end(failure);
  }

  private end(failure: string | undefined): void {
    const { tally } = this.driver;
    const usage = stats(tally, this.totalUsage, this.started);
    const soFar = tally.lastText ? ` Its last message: ${tally.lastText}` : '';
    let end: TaskEnd;
    if (failure) {
      this.status = 'failed';
      end = { status: 'failed', summary: failure, resultText: tally.lastText || failure, usage };
    } else if (this.task.abort.signal.aborted) {
      this.status = 'stopped';
      const why = this.stopReason ? ` (${this.stopReason})` : '';
      end = {
        status: 'stopped',
        summary: `Teammate "${this.name}" was stopped${why} after ${tally.toolUses} tool use(s).${soFar}`,
        resultText: tally.lastText,
        usage,
      };
    } else {
      this.status = 'shutdown';
      const how = this.shutdownApproved
        ? "shut down at the lead's request"
        : 'was idle when the session ended and shut down';
      end = {
        status: 'completed',
        summary: `Teammate "${this.name}" ${how}.${soFar}`,
        resultText: tally.lastText,
        usage,
      };
    }
    this.lastActivity = Date.now();
    this.deps.registry.finish(this.task.id, end);
    this.deps.onChange(this);
  }

  /** Runs TeammateIdle hooks (input: sdk.d.ts TeammateIdleHookInput) as it is about to go idle. */
  private async idleHook(signal: AbortSignal): Promise<{ block?: string; stop?: string } | undefined> {
    const hooks = this.p.parent.pipeline.hooks;
    if (!hooks?.has('TeammateIdle')) return undefined;
    try {
      const out = await hooks.run(
        'TeammateIdle',
        {
          agent_id: this.p.agentId,
          agent_type: this.agentType,
          teammate_name: this.name,
          team_name: this.deps.teamName,
        },
        { signal },
      );
      if (out.stop) return { stop: out.stop.reason ?? '' };
      return out.blockReason !== undefined ? { block: out.blockReason } : undefined;
    } catch (err) {
      this.deps.onProblem(`teammate ${this.name}: TeammateIdle hook failed: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Unread mail as one user turn, or null. A mailbox that cannot be read is reported, not fatal. */
  private async takeMail(): Promise<string | null> {
    try {
      const mail = await this.deps.mailbox.takeUnread(this.name);
      return mail.length ? inboxTurn(mail) : null;
    } catch (err) {
      this.deps.onProblem(`teammate ${this.name}: cannot read its inbox: ${(err as Error).message}`);
      return null;
    }
  }

  private sleep(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, IDLE_POLL_MS);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  /** One run over its conversation, through the one driver; its usage counts for the session, its limits hold. */
  private async runOnce(transcript: Transcript): Promise<LoopOutcome> {
    // A fresh config per run, derived from its spec like any child's: its turn limit is what is
    // left of it; its budget the session's, checked against the ledger every agent records into.
    const cfg = deriveChildConfig(this.p.parent, {
      ...this.p.spec,
      maxTurns: this.driver.turnsLeft(),
      // Mail that arrives while it works joins its conversation before its next model call.
      betweenTurns: async () => {
        const mail = await this.takeMail();
        if (mail === null) return undefined;
        transcript.appendMessage({ type: 'user', message: { role: 'user', content: mail } });
        this.lastActivity = Date.now();
        return mail;
      },
    });
    try {
      return await this.driver.runTo(cfg, async (ev: LoopEvent) => {
        if (ev.type === 'assistant') this.lastActivity = Date.now();
        recordEvent(transcript, ev);
        await this.deps.emitEvent(ev);
        if (ev.type === 'assistant')
          this.deps.registry.progress(
            this.task.id,
            stats(this.driver.tally, cfg.usage, this.started),
            this.driver.tally.lastTool,
          );
      });
    } finally {
      this.totalUsage.merge(cfg.usage);
    }
  }
}
