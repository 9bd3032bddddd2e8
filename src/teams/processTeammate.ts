// A teammate that is its own `agent` process, in a tmux pane or detached (teammate mode tmux or
// detached). The lead starts it with the teammate flags (src/teams/teammateFlags.ts) and from then
// on only the team files join them: its work arrives in its inbox, its messages, idle notices and
// shutdown answer arrive in the lead's. The lead keeps its task record and its status: working from
// a message sent to it until its idle notice, and ended when its process is gone (its pane, or
// what is left of its process group, is then removed).
import { rmSync } from 'node:fs';
import { processAlive as alive } from '../util/processAlive.js';
import type { TaskRecord, TaskRegistry } from '../tasks/registry.js';
import type { MemberStatus } from './teamConfig.js';
import type { StartedTeammate, TeammateStarter } from './teammateStarter.js';
import { logWarning } from '../util/log.js';

export interface ProcessTeammateDeps {
  starter: TeammateStarter;
  registry: TaskRegistry;
  onChange: (t: ProcessTeammate) => void;
  /** The environment file the lead wrote for it (removed once it has ended, in case it never read it). */
  envFile: string;
  /** Whether its shutdown approval is in the lead's inbox (it may exit before the lead reads it). */
  approvedInInbox: () => boolean;
}

/** How often the lead looks whether the process is still there. */
const WATCH_MS = 250;
/** How long a teammate asked to stop (SIGTERM) has before it is killed (its pane, its group). */
const STOP_GRACE_MS = 3000;

export class ProcessTeammate {
  status: MemberStatus = 'working';
  lastActivity = Date.now();
  shutdownApproved = false;
  stopReason: string | undefined;
  private endWhenIdle = false;
  private idleText = '';
  readonly finished: Promise<void>;

  constructor(
    readonly name: string,
    readonly agentType: string,
    readonly task: TaskRecord,
    readonly proc: StartedTeammate,
    private readonly deps: ProcessTeammateDeps,
  ) {
    this.finished = this.watch();
  }

  get backendType(): TeammateStarter['backendType'] {
    return this.deps.starter.backendType;
  }

  get busy(): boolean {
    return this.status === 'working';
  }

  get live(): boolean {
    return this.status === 'working' || this.status === 'idle';
  }

  /** The lead put a message in its inbox: it is at work until its next idle notice. */
  notify(): void {
    if (this.status !== 'idle') return;
    this.status = 'working';
    this.lastActivity = Date.now();
    this.deps.onChange(this);
  }

  /** Its idle notice reached the lead. */
  markIdle(text: string | undefined): void {
    if (text) this.idleText = text;
    if (this.status !== 'working') return;
    this.status = 'idle';
    this.lastActivity = Date.now();
    this.deps.onChange(this);
  }

  /**
   * Its shutdown approval reached the lead: its process ends by itself once its turn is over; one
   * that has not after a grace is ended (SIGTERM, then its pane or group), so the lead never waits on it.
   */
  approvedShutdown(): void {
    if (this.shutdownApproved) return;
    this.shutdownApproved = true;
    const timer = setTimeout(() => this.task.abort.abort(), STOP_GRACE_MS);
    timer.unref();
    void this.finished.then(() => clearTimeout(timer));
  }

  /** The session is over and it is idle: its process is ended (nothing it was doing is cut). */
  endIfIdle(): void {
    this.endWhenIdle = true;
    this.task.abort.abort();
  }

  private async watch(): Promise<void> {
    const { pid } = this.proc;
    const signal = this.task.abort.signal;
    while (alive(pid) && !signal.aborted) await sleep(WATCH_MS, signal);
    if (alive(pid)) {
      // Asked to stop (TaskStop, the teammate timeout, the session's end): SIGTERM, then the rest.
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* gone meanwhile */
      }
      const deadline = Date.now() + STOP_GRACE_MS;
      while (alive(pid) && Date.now() < deadline) await sleep(50);
    }
    this.deps.starter.end(this.proc);
    rmSync(this.deps.envFile, { force: true });
    this.end();
  }

  private end(): void {
    if (!this.shutdownApproved && !this.task.abort.signal.aborted) this.shutdownApproved = this.deps.approvedInInbox();
    const last = this.idleText ? ` Its last message: ${this.idleText}` : '';
    const resultText = this.idleText;
    if (this.shutdownApproved || (this.endWhenIdle && this.status === 'idle')) {
      this.status = 'shutdown';
      const how = this.shutdownApproved
        ? "shut down at the lead's request"
        : 'was idle when the session ended and shut down';
      this.deps.registry.finish(this.task.id, {
        status: 'completed',
        summary: `Teammate "${this.name}" ${how}.${last}`,
        resultText,
      });
    } else if (this.task.abort.signal.aborted) {
      this.status = 'stopped';
      const why = this.stopReason ? ` (${this.stopReason})` : '';
      this.deps.registry.finish(this.task.id, {
        status: 'stopped',
        summary: `Teammate "${this.name}" was stopped${why}; its ${this.deps.starter.where(this.proc)} was ended.${last}`,
        resultText,
      });
    } else {
      this.status = 'failed';
      const summary = `Teammate "${this.name}" ended without being shut down: its ${this.deps.starter.where(this.proc)} exited or was killed.${last}`;
      logWarning(summary);
      this.deps.registry.finish(this.task.id, { status: 'failed', summary, resultText: resultText || summary });
    }
    this.lastActivity = Date.now();
    this.deps.onChange(this);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
