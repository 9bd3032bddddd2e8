// What a task (a background shell, a subagent, a teammate) tells the host, in the domain's words:
// part of the agent-event vocabulary of the tool contract (agentEvents.ts). The task registry
// (src/tasks) makes them; the loop carries a foreground subagent's own among its messages
// (LoopEvent `task`); src/session/wire.ts alone turns them into protocol lines (task_started,
// task_updated, task_notification, task_progress, background_tasks_changed).

export type TaskKind = 'local_bash' | 'local_agent' | 'in_process_teammate' | 'local_workflow';
export type TaskStatus = 'running' | 'completed' | 'failed' | 'stopped';
export type TaskEndStatus = Exclude<TaskStatus, 'running'>;

/** What a task used so far: tokens (every kind), tool calls, milliseconds since it started. */
export interface TaskUsage {
  totalTokens: number;
  toolUses: number;
  durationMs: number;
}

/** A workflow agent's state in its progress row. */
export type WorkflowAgentState = 'queued' | 'start' | 'done' | 'error';

/** A workflow's agent, as its progress shows it (src/workflows/workflowRun.ts keeps them). */
export interface WorkflowAgentRow {
  type: 'workflow_agent';
  index: number;
  label: string;
  phaseIndex?: number;
  phaseTitle?: string;
  agentId?: string;
  agentType?: string;
  model?: string;
  state: WorkflowAgentState;
  queuedAt: number;
  startedAt?: number;
  promptPreview: string;
  tokens?: number;
  toolCalls?: number;
  durationMs?: number;
  resultPreview?: string;
  error?: string;
}

/** A workflow's phase, as its progress shows it. */
export interface WorkflowPhaseRow {
  type: 'workflow_phase';
  index: number;
  title: string;
}

/** One row of a workflow's progress: a phase, or an agent with its state. */
export type WorkflowProgressRow = WorkflowPhaseRow | WorkflowAgentRow;

export type TaskEvent =
  | {
      kind: 'started';
      taskId: string;
      toolUseId: string;
      description: string;
      taskType: TaskKind;
      subagentType?: string;
      /** Whether it was registered in the background; a later move is `backgrounded`. */
      backgrounded: boolean;
      /** A subagent's nesting depth: 1 when the main thread spawned it. */
      spawnDepth?: number;
      /** What a subagent was asked (a workflow: its script). */
      prompt?: string;
      /** A workflow's meta.name. */
      workflowName?: string;
    }
  /** Its end, as a patch for hosts that keep a task map. */
  | { kind: 'ended'; taskId: string; status: TaskEndStatus; endTime: number; error?: string }
  /** A foreground task moved to the background. */
  | { kind: 'backgrounded'; taskId: string }
  /** Its end, told with its summary and output file. */
  | {
      kind: 'notification';
      taskId: string;
      toolUseId: string;
      status: TaskEndStatus;
      outputFile: string;
      summary: string;
      usage?: TaskUsage;
    }
  | {
      kind: 'progress';
      taskId: string;
      toolUseId: string;
      description: string;
      subagentType?: string;
      usage: TaskUsage;
      lastToolName?: string;
      /** agentProgressSummaries: the agent's model's one-line account of what it is doing. */
      summary?: string;
      /** A workflow's phases and agents so far (src/workflows/workflowRun.ts). */
      workflowProgress?: WorkflowProgressRow[];
    }
  /** Every live background task after a start, a move or an end (a level: the host replaces its set). */
  | {
      kind: 'live';
      tasks: Array<{ taskId: string; taskType: TaskKind; subagentType?: string; description: string }>;
    };
