// The session's tasks: shells started with Bash run_in_background, subagents started with Task
// (in the background, or in the foreground with the Task call blocking on them) and teammates.
// One registry per session. It announces each task (`system`/`task_started`), reports its end
// (`task_updated`, `task_notification`), keeps the notices the model has not seen yet for the
// runner to feed back, and stops everything on the way out. What it tells is domain-shaped
// (TaskEvent, src/loop/taskEvents.ts); wire.ts makes the protocol lines. A foreground task is announced and
// ended like the others (a host draws its row from them) but is not background work: it is not in
// background_tasks_changed, the model gets its end as the Task call's result rather than a notice,
// and the runner does not wait for it; moved to the background, it becomes all of that.
import { randomHex } from '../util/ids.js';
import { makeDirs } from '../util/makeDirs.js';
import { join } from 'node:path';
import { ChangeSignal } from '../util/changeSignal.js';
import { withTimeout } from '../util/withTimeout.js';

import type {
  TaskEndStatus,
  TaskEvent,
  TaskKind,
  TaskStatus,
  TaskUsage,
  WorkflowProgressRow,
} from '../../tools/taskEvents.js';

export type { TaskEndStatus, TaskEvent, TaskKind, TaskStatus, TaskUsage } from '../../tools/taskEvents.js';

export interface TaskRecord {
  id: string;
  kind: TaskKind;
  status: TaskStatus;
  description: string;
  /** The tool_use that started it (Bash or Task). */
  toolUseId: string;
  /** Where its output goes as it comes (a shell's output; a subagent's JSONL transcript). */
  outputFile: string;
  /** The shell command (local_bash). */
  command?: string;
  /** The agent type (local_agent). */
  subagentType?: string;
  /** A teammate's name: TaskStop and stop_task accept it in place of the id. */
  name?: string;
  /** A Monitor's watch (a local_bash task on the wire, a `monitor` to Stop hooks). */
  monitor?: boolean;
  /** A workflow's meta.name. */
  workflowName?: string;
  /** False while a foreground subagent's Task call blocks on it; true once in the background. */
  backgrounded: boolean;
  /**
   * Where this task's own lines go instead of the registry's `emit`, while set: a foreground
   * subagent's lines travel with its messages, through its Task call. Cleared when it moves.
   */
  route?: (event: TaskEvent) => void;
  abort: AbortController;
  startedAt: number;
  endedAt?: number;
  /** The notification's summary: a subagent's final text, or the shell's one-line verdict. */
  summary?: string;
  /** A subagent's final text (or its error). */
  resultText?: string;
  exitCode?: number | null;
  usage?: TaskUsage;
  /** Resolves once the task has ended and its notification is out. */
  done: Promise<void>;
  /** The model already knows how it ended (it read it with TaskOutput, or stopped it itself). */
  seenByModel: boolean;
}

export interface TaskStart {
  /** The id to use (a foreground subagent's agent id); default: a fresh one. */
  id?: string;
  description: string;
  toolUseId: string;
  command?: string;
  subagentType?: string;
  name?: string;
  /** What a subagent was asked (task_started.prompt). */
  prompt?: string;
  /** A subagent's nesting depth (task_started.spawn_depth): 1 when the main thread spawned it. */
  spawnDepth?: number;
  /** A workflow's meta.name (task_started.workflow_name). */
  workflowName?: string;
  /** A Monitor's watch. */
  monitor?: boolean;
  /** Registered in the foreground: the spawning tool call blocks on it (is_backgrounded: false). */
  foreground?: boolean;
  /** See TaskRecord.route. */
  route?: (event: TaskEvent) => void;
  /** The output file's path, when it lives elsewhere (a foreground subagent's transcript). */
  outputFile?: string;
  /** A file name for the output in the registry's folder (default: <id>.output). */
  fileName?: (id: string) => string;
}

export interface TaskEnd {
  status: TaskEndStatus;
  /** Why a failed task failed, for hosts that keep a task map (task_updated's patch.error). */
  error?: string;
  summary: string;
  resultText?: string;
  exitCode?: number | null;
  usage?: TaskUsage;
}

/** Something a running task reported for the model (see TaskRegistry.event). */
export interface TaskEventNotice {
  taskId: string;
  summary: string;
  text: string;
}

export interface TaskRegistryOptions {
  /** Directory for output files (created on demand). */
  dir: string;
  /** Tells the host (the session adds the envelope). */
  emit: (event: TaskEvent) => void | Promise<void>;
}

export function newTaskId(kind: TaskKind): string {
  const prefix = { local_bash: 'b', in_process_teammate: 't', local_workflow: 'w', local_agent: 'a' }[kind];
  return prefix + randomHex(4);
}

export class TaskRegistry {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly finishers = new Map<string, (end: TaskEnd) => void>();
  /** Ended tasks whose notice the model has not had yet, in the order they ended. */
  private notices: TaskRecord[] = [];
  /** What running tasks reported for the model (a Monitor's output lines), in the order they came. */
  private events: TaskEventNotice[] = [];
  private readonly change = new ChangeSignal();

  constructor(private readonly opts: TaskRegistryOptions) {}

  get dir(): string {
    try {
      makeDirs(this.opts.dir);
    } catch (err) {
      throw new Error(
        `cannot create the directory for task output files ${this.opts.dir} (${(err as Error).message}); set TMPDIR to a writable directory`,
      );
    }
    return this.opts.dir;
  }

  /** Register a running task and announce it. The caller runs it and calls `finish` once. */
  register(kind: TaskKind, start: TaskStart): TaskRecord {
    const id = start.id ?? newTaskId(kind);
    if (this.tasks.has(id)) throw new Error(`task id ${id} is already registered`);
    const file = start.outputFile ?? join(this.dir, start.fileName ? start.fileName(id) : `${id}.output`);
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const rec: TaskRecord = {
      id,
      kind,
      status: 'running',
      description: start.description,
      toolUseId: start.toolUseId,
      outputFile: file,
      ...(start.command !== undefined ? { command: start.command } : {}),
      ...(start.subagentType !== undefined ? { subagentType: start.subagentType } : {}),
      ...(start.name !== undefined ? { name: start.name } : {}),
      ...(start.monitor ? { monitor: true } : {}),
      ...(start.workflowName !== undefined ? { workflowName: start.workflowName } : {}),
      backgrounded: !start.foreground,
      ...(start.route ? { route: start.route } : {}),
      abort: new AbortController(),
      startedAt: Date.now(),
      done,
      seenByModel: false,
    };
    this.tasks.set(id, rec);
    this.finishers.set(id, (end) => {
      this.finishers.delete(id);
      rec.status = end.status;
      rec.summary = end.summary;
      rec.resultText = end.resultText;
      rec.exitCode = end.exitCode;
      rec.usage = end.usage;
      rec.endedAt = Date.now();
      // Hosts that keep a task map merge this patch.
      void this.send(rec, {
        kind: 'ended',
        taskId: id,
        status: end.status,
        endTime: rec.endedAt,
        ...(end.error !== undefined ? { error: end.error } : {}),
      });
      const emitted = this.send(rec, {
        kind: 'notification',
        taskId: id,
        toolUseId: rec.toolUseId,
        status: end.status,
        outputFile: rec.outputFile,
        summary: end.summary,
        ...(end.usage ? { usage: end.usage } : {}),
      });
      // A foreground task's end is the Task call's own result: no notice, and it was never in the level.
      if (rec.backgrounded) {
        this.notices.push(rec);
        this.emitLevel();
      } else rec.seenByModel = true;
      const settle = () => {
        resolveDone();
        this.changed();
      };
      if (emitted && typeof (emitted as Promise<void>).then === 'function')
        (emitted as Promise<void>).then(settle, settle);
      else settle();
    });
    if (rec.backgrounded) this.emitLevel();
    void this.send(rec, {
      kind: 'started',
      taskId: id,
      toolUseId: rec.toolUseId,
      description: rec.description,
      taskType: kind,
      ...(rec.subagentType ? { subagentType: rec.subagentType } : {}),
      backgrounded: rec.backgrounded,
      ...(start.spawnDepth !== undefined ? { spawnDepth: start.spawnDepth } : {}),
      ...(start.prompt !== undefined ? { prompt: start.prompt } : {}),
      ...(start.workflowName !== undefined ? { workflowName: start.workflowName } : {}),
    });
    return rec;
  }

  /**
   * A running foreground task moves to the background: same id, it joins the live set, and the
   * host hears `task_updated {patch: {is_backgrounded: true}}` (not a second task_started).
   */
  moveToBackground(id: string): TaskRecord {
    const rec = this.tasks.get(id);
    if (rec?.status !== 'running') throw new Error(`task ${id} is not running`);
    if (rec.backgrounded) return rec;
    rec.backgrounded = true;
    this.emitLevel();
    // The move still travels the foreground route (after the lines before it); later lines do not.
    void this.send(rec, { kind: 'backgrounded', taskId: id });
    delete rec.route;
    return rec;
  }

  /** Report a task's end (once; later calls are ignored). */
  finish(id: string, end: TaskEnd): void {
    this.finishers.get(id)?.(end);
  }

  /**
   * Emit a progress line for a running task (a background subagent after each of its turns, and
   * with `summary` when agentProgressSummaries made one).
   */
  progress(
    id: string,
    usage: TaskUsage,
    lastToolName?: string,
    summary?: string,
    /** A workflow's: the line's own description, and its phases and agents so far. */
    extra?: { description?: string; workflowProgress?: WorkflowProgressRow[] },
  ): void {
    const rec = this.tasks.get(id);
    if (rec?.status !== 'running') return;
    void this.send(rec, {
      kind: 'progress',
      taskId: id,
      toolUseId: rec.toolUseId,
      description: extra?.description ?? rec.description,
      ...(rec.subagentType ? { subagentType: rec.subagentType } : {}),
      usage,
      ...(lastToolName ? { lastToolName } : {}),
      ...(summary ? { summary } : {}),
      ...(extra?.workflowProgress ? { workflowProgress: extra.workflowProgress } : {}),
    });
  }

  /** By task id, or by a running teammate's name. */
  get(id: string): TaskRecord | undefined {
    const byId = this.tasks.get(id);
    if (byId) return byId;
    for (const t of this.tasks.values()) if (t.name === id && t.status === 'running') return t;
    return undefined;
  }

  list(): TaskRecord[] {
    return [...this.tasks.values()];
  }

  /** Whether any background task (of those `which` picks) is still running. */
  hasRunning(which: (t: TaskRecord) => boolean = () => true): boolean {
    for (const t of this.tasks.values()) if (t.status === 'running' && t.backgrounded && which(t)) return true;
    return false;
  }

  /** Whether an ended task's notice, or a running task's event, still waits for the model. */
  hasNotices(): boolean {
    return this.events.length > 0 || this.notices.some((t) => !t.seenByModel);
  }

  /** A running task reports something the model should hear now (a Monitor's output lines). */
  event(id: string, summary: string, text: string): void {
    const rec = this.tasks.get(id);
    if (rec?.status !== 'running') return;
    this.events.push({ taskId: id, summary, text });
    this.changed();
  }

  /** How many of a task's events wait for the model. */
  pendingEvents(id: string): number {
    return this.events.filter((e) => e.taskId === id).length;
  }

  /** The events not handed out yet; each is handed out once. */
  takeEvents(): TaskEventNotice[] {
    return this.events.splice(0);
  }

  /** The model learned how this task ended through a tool: no separate notice is needed. */
  markSeen(id: string): void {
    const rec = this.get(id);
    if (rec) rec.seenByModel = true;
  }

  /** Ended tasks the model has not heard of yet; each is handed out once. */
  takeNotices(): TaskRecord[] {
    const out = this.notices.filter((t) => !t.seenByModel);
    this.notices = [];
    for (const t of out) t.seenByModel = true;
    return out;
  }

  /** Resolves when a task ends (or after `ms`), whichever comes first. */
  waitForChange(ms: number): Promise<void> {
    return this.change.wait(ms);
  }

  /** Stop one task: abort it and wait (up to `graceMs`) until it has reported its end. */
  async stop(id: string, graceMs = 5000): Promise<TaskRecord | undefined> {
    const rec = this.get(id);
    if (!rec) return undefined;
    if (rec.status === 'running') {
      rec.abort.abort();
      await withTimeout(rec.done, graceMs);
      // A task that does not wind down in time is reported as stopped anyway.
      this.finish(rec.id, { status: 'stopped', summary: stoppedSummary(rec) });
    }
    return rec;
  }

  /**
   * Stop every running background task (exit, interrupt). Each gets its `stopped` notification.
   * Foreground tasks end with the turn that blocks on them.
   */
  async stopAll(graceMs = 1000, spare?: (task: TaskRecord) => boolean): Promise<void> {
    const running = this.list().filter((t) => t.status === 'running' && t.backgrounded && !spare?.(t));
    // Whoever stops everything (an interrupt, the exit) does not want the model woken for it.
    for (const t of running) t.seenByModel = true;
    this.events = this.events.filter((e) => !running.some((t) => t.id === e.taskId));
    await Promise.all(running.map((t) => this.stop(t.id, graceMs)));
  }

  /**
   * `system`/`background_tasks_changed`: every live background task after a start, a move or an
   * end (a level the host replaces its set with, as sdk.d.ts documents).
   */
  private emitLevel(): void {
    const tasks = this.list()
      .filter((t) => t.status === 'running' && t.backgrounded)
      .map((t) => ({
        taskId: t.id,
        taskType: t.kind,
        ...(t.subagentType ? { subagentType: t.subagentType } : {}),
        description: t.description,
      }));
    void this.opts.emit({ kind: 'live', tasks });
  }

  private send(rec: TaskRecord, event: TaskEvent): void | Promise<void> {
    return rec.route ? rec.route(event) : this.opts.emit(event);
  }

  private changed(): void {
    this.change.notify();
  }
}

/** Stop hooks' `background_tasks` and `session_crons` cut a text past this (the SDK's cap and marker). */
const SUMMARY_TEXT_CAP = 1000;

export function capText(text: string): string {
  return text.length > SUMMARY_TEXT_CAP
    ? `${text.slice(0, SUMMARY_TEXT_CAP)}… [+${text.length - SUMMARY_TEXT_CAP} chars]`
    : text;
}

/** One in-flight background task as Stop hooks read it (the SDK's BackgroundTaskSummary). */
export interface BackgroundTaskSummary {
  id: string;
  type: string;
  status: string;
  description: string;
  command?: string;
  agent_type?: string;
  name?: string;
}

const FRIENDLY_TYPE: Record<TaskRecord['kind'], string> = {
  local_bash: 'shell',
  local_agent: 'subagent',
  in_process_teammate: 'teammate',
  local_workflow: 'workflow',
};

/**
 * Stop hooks' `background_tasks`: the session's in-flight background work (running, and in the
 * background: a foreground subagent is part of the turn that is stopping).
 */
export function backgroundTaskSummaries(tasks: TaskRecord[]): BackgroundTaskSummary[] {
  return tasks
    .filter((t) => t.status === 'running' && t.backgrounded)
    .map((t) => {
      const type = t.monitor ? 'monitor' : FRIENDLY_TYPE[t.kind];
      return {
        id: t.id,
        type,
        status: t.status,
        description: capText(t.description),
        ...(type === 'shell' && t.command !== undefined ? { command: capText(t.command) } : {}),
        ...(type === 'subagent' && t.subagentType ? { agent_type: t.subagentType } : {}),
        ...(type === 'workflow' && t.workflowName ? { name: t.workflowName } : {}),
      };
    });
}

export function stoppedSummary(rec: Pick<TaskRecord, 'kind' | 'description' | 'command' | 'name'>): string {
  if (rec.kind === 'local_bash') return `Background command "${rec.description || rec.command}" was stopped`;
  if (rec.kind === 'in_process_teammate') return `Teammate "${rec.name}" was stopped`;
  if (rec.kind === 'local_workflow') return `Dynamic workflow "${rec.description}" was stopped`;
  return `Agent "${rec.description}" was stopped`;
}

/** A running task's event as the model reads it: a `<task-notification>` with the event's text. */
export function eventNoticeText(events: TaskEventNotice[]): string {
  return events
    .map((e) =>
      [
        '<task-notification>',
        `<task-id>${e.taskId}</task-id>`,
        `<summary>${e.summary}</summary>`,
        `<event>${e.text}</event>`,
        '</task-notification>',
      ].join('\n'),
    )
    .join('\n');
}

/** The `<task-notification>` block the model reads on its next turn. */
export function noticeText(tasks: TaskRecord[]): string {
  return tasks
    .map((t) => {
      const lines = [
        '<task-notification>',
        `<task-id>${t.id}</task-id>`,
        `<tool-use-id>${t.toolUseId}</tool-use-id>`,
        `<task-type>${t.kind}</task-type>`,
        `<status>${t.status}</status>`,
        `<summary>${t.summary ?? ''}</summary>`,
      ];
      if (t.resultText !== undefined && t.resultText !== t.summary) lines.push(`<result>${t.resultText}</result>`);
      lines.push(`<output-file>${t.outputFile}</output-file>`, '</task-notification>');
      return lines.join('\n');
    })
    .join('\n');
}
