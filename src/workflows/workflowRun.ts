// One run of a workflow script as a background task (`local_workflow`): registered and announced
// like any task, its script kept under the session's folder, its body run in a worker
// (scriptWorker.ts), each agent() call run here (workflowAgent.ts) a few at a time, and its state
// told to the host as task_progress lines (each with the run's phases and agents so far). It ends
// with the task's notification: the script's return value as the result the model reads, or why
// it failed. It is stopped like any task (TaskStop, stop_task, the session's end).
import { join } from 'node:path';
import { appendFileSync, writeFileSync } from 'node:fs';
import { makeDirs } from '../util/makeDirs.js';
import { agentConcurrency } from './concurrency.js';
import { randomHex } from '../util/ids.js';
import { logWarning } from '../util/log.js';
import { UsageAccumulator } from '../loop/usage.js';
import type { TaskRegistry, TaskUsage } from '../tasks/registry.js';
import type { WorkflowAgentRow, WorkflowPhaseRow } from '../../tools/taskEvents.js';
import type { ParsedScript } from './script.js';
import { runScriptBody, type ScriptOutcome } from './scriptWorker.js';
import { checkAgentOptions, runWorkflowAgent, type AgentCallDeps } from './workflowAgent.js';

/** agent() calls one run may make in all: a backstop against a loop that never ends. */
export const MAX_AGENTS_PER_RUN = 1000;

const PREVIEW_CHARS = 200;

export interface WorkflowRunDeps extends Omit<AgentCallDeps, 'ctx'> {
  registry: TaskRegistry;
  /** The session's folder: scripts go to workflows/scripts/, agents' transcripts to subagents/workflows/<run>/. */
  sessionFolder: () => string;
}

export interface LaunchedRun {
  taskId: string;
  runId: string;
  workflowName: string;
  summary: string;
  transcriptDir: string;
  scriptPath: string;
}

type AgentRow = WorkflowAgentRow;
type PhaseRow = WorkflowPhaseRow;

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

/** The error and the script line it came from (the stack's frame in the script), when known. */
function describeFailure(o: Extract<ScriptOutcome, { ok: false }>): string {
  const at = o.stack?.split('\n').find((l) => l.includes('workflow.js:'));
  return at ? `${o.error}\n${at.trim()}` : o.error;
}

function totalTokens(u: UsageAccumulator): number {
  const t = u.totals();
  return t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens;
}

/** Start a run in the background; returns once its task is registered and its script saved. */
export function launchWorkflow(
  deps: WorkflowRunDeps,
  ctx: AgentCallDeps['ctx'],
  parsed: ParsedScript,
  script: string,
  opts: { args?: unknown; scriptPath?: string },
): LaunchedRun {
  const { meta } = parsed;
  const runId = `wf_${randomHex(4)}-${randomHex(2).slice(0, 3)}`;
  const folder = deps.sessionFolder();
  const transcriptDir = join(folder, 'subagents', 'workflows', runId);
  makeDirs(transcriptDir);
  let scriptPath = opts.scriptPath;
  if (!scriptPath) {
    const dir = join(folder, 'workflows', 'scripts');
    makeDirs(dir);
    scriptPath = join(dir, `${meta.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-${runId}.js`);
    writeFileSync(scriptPath, script);
  }
  const rec = deps.registry.register('local_workflow', {
    description: meta.description,
    toolUseId: ctx.toolUseId,
    prompt: script,
    workflowName: meta.name,
  });
  const run = new WorkflowRun(deps, ctx, parsed, rec.id, rec.abort.signal, transcriptDir, rec.outputFile, opts.args);
  void run.run(script, scriptPath);
  return { taskId: rec.id, runId, workflowName: meta.name, summary: meta.description, transcriptDir, scriptPath };
}

class WorkflowRun {
  private readonly phases: PhaseRow[] = [];
  private readonly agents: AgentRow[] = [];
  private readonly logs: string[] = [];
  private readonly failures: string[] = [];
  private readonly usage = new UsageAccumulator();
  private toolUses = 0;
  private currentPhase: string | undefined;
  private readonly started = Date.now();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly journal: string;

  constructor(
    private readonly deps: WorkflowRunDeps,
    private readonly ctx: AgentCallDeps['ctx'],
    private readonly parsed: ParsedScript,
    private readonly taskId: string,
    private readonly signal: AbortSignal,
    private readonly transcriptDir: string,
    private readonly outputFile: string,
    private readonly args: unknown,
  ) {
    this.journal = join(transcriptDir, 'journal.jsonl');
    this.record({ type: 'launched' });
  }

  async run(script: string, scriptPath: string): Promise<void> {
    const { meta } = this.parsed;
    let outcome: ScriptOutcome;
    try {
      outcome = await runScriptBody(
        this.parsed.body,
        this.args,
        {
          agent: (prompt, opts, phase) => this.agent(prompt, opts, phase),
          phase: (title) => this.phase(title),
          log: (text) => this.log(text),
          spent: () => this.usage.totals().output_tokens,
        },
        this.signal,
        this.parsed.bodyLine,
      );
    } catch (err) {
      outcome = { ok: false, error: `the run failed: ${(err as Error).message}` };
    }
    const usage = this.taskUsage();
    const failed = this.agents.filter((a) => a.state === 'error').length;
    const done = this.agents.filter((a) => a.state === 'done').length;
    // A string result is the text itself; anything else is its JSON.
    const resultJson =
      !outcome.ok || outcome.value === undefined
        ? undefined
        : typeof outcome.value === 'string'
          ? outcome.value
          : JSON.stringify(outcome.value);
    this.writeOutput(script, scriptPath, outcome);
    const stats = `${this.agents.length} agents (${done} done, ${failed} failed), ${usage.totalTokens} tokens, ${Math.round(usage.durationMs / 1000)} s`;
    const failures = this.failures.length ? `\nAgent failures:\n${this.failures.join('\n')}` : '';
    const where = `\nScript: ${scriptPath}\nAgent transcripts and journal: ${this.transcriptDir}`;
    if (outcome.ok) {
      this.deps.registry.finish(this.taskId, {
        status: 'completed',
        summary: `Dynamic workflow "${meta.description}" completed`,
        resultText: `${resultJson ?? '(the script returned nothing)'}\n\n${stats}${failures}${where}`,
        usage,
      });
    } else if (outcome.stopped || this.signal.aborted) {
      this.deps.registry.finish(this.taskId, {
        status: 'stopped',
        summary: `Dynamic workflow "${meta.description}" was stopped`,
        usage,
      });
    } else {
      const error = describeFailure(outcome);
      this.deps.registry.finish(this.taskId, {
        status: 'failed',
        summary: `Dynamic workflow "${meta.description}" failed: ${error}`,
        resultText: `${error}\n\n${stats}${failures}${where}`,
        error,
        usage,
      });
    }
  }

  private async agent(prompt: string, rawOpts: Record<string, unknown>, phase: string | undefined): Promise<unknown> {
    const opts = checkAgentOptions(rawOpts);
    if (this.agents.length >= MAX_AGENTS_PER_RUN)
      throw new Error(
        `agent(): this run has made ${MAX_AGENTS_PER_RUN} agent calls, the most one run may make; end the loop sooner`,
      );
    const phaseTitle = opts.phase ?? phase;
    const row: AgentRow = {
      type: 'workflow_agent',
      index: this.agents.length + 1,
      label: opts.label ?? preview(prompt.split('\n')[0]).slice(0, 60),
      ...(phaseTitle !== undefined ? { phaseTitle, phaseIndex: this.phaseIndex(phaseTitle) } : {}),
      ...(opts.agentType ? { agentType: opts.agentType } : {}),
      state: 'queued',
      queuedAt: Date.now(),
      promptPreview: preview(prompt),
    };
    this.agents.push(row);
    await this.slot();
    try {
      if (this.signal.aborted) throw new Error('the workflow was stopped');
      const agentId = `a${randomHex(8)}`;
      Object.assign(row, { agentId, state: 'start' as const, startedAt: Date.now() });
      this.record({ type: 'started', agentId, label: row.label, ...(phaseTitle ? { phase: phaseTitle } : {}) });
      this.progress(row);
      const res = await runWorkflowAgent(
        { runner: this.deps.runner, catalog: this.deps.catalog, ctx: this.ctx },
        {
          prompt,
          opts,
          agentId,
          transcriptPath: join(this.transcriptDir, `agent-${agentId}.jsonl`),
          signal: this.signal,
        },
      );
      this.usage.merge(res.usage);
      this.toolUses += res.toolUses;
      Object.assign(row, {
        model: res.model,
        tokens: totalTokens(res.usage),
        toolCalls: res.toolUses,
        durationMs: Date.now() - (row.startedAt ?? row.queuedAt),
      });
      if (res.error !== undefined) {
        Object.assign(row, { state: 'error' as const, error: res.error });
        this.failures.push(`[${row.label}] failed: ${res.error}`);
        this.record({ type: 'failed', agentId, error: res.error });
      } else {
        Object.assign(row, { state: 'done' as const, resultPreview: preview(res.value) });
        this.record({ type: 'result', agentId, result: res.value });
      }
      this.progress(row);
      return res.value;
    } catch (err) {
      // A call the script got wrong (options, schema, agent type): its promise rejects with why.
      Object.assign(row, { state: 'error' as const, error: (err as Error).message });
      this.progress(row);
      throw err;
    } finally {
      this.release();
    }
  }

  private phase(title: string): void {
    this.currentPhase = title;
    this.phaseIndex(title);
    this.progress();
  }

  private phaseIndex(title: string): number {
    let row = this.phases.find((p) => p.title === title);
    if (!row) {
      row = { type: 'workflow_phase', index: this.phases.length + 1, title };
      this.phases.push(row);
    }
    return row.index;
  }

  private log(text: string): void {
    this.logs.push(text);
    try {
      appendFileSync(this.outputFile, `${text}\n`);
    } catch (err) {
      logWarning(`workflow ${this.taskId}: cannot write its output file: ${(err as Error).message}`);
    }
    this.progress(undefined, text);
  }

  /**
   * A task_progress line. Its description says what changed: the agent (`<phase>: <label>`), the
   * script's log line, or else the run's description; its rows tell the whole state.
   */
  private progress(row?: AgentRow, logged?: string): void {
    const where = row?.phaseTitle ?? this.currentPhase;
    const description = row ? (where ? `${where}: ${row.label}` : row.label) : (logged ?? this.parsed.meta.description);
    this.deps.registry.progress(this.taskId, this.taskUsage(), row?.label, this.parsed.meta.description, {
      description,
      workflowProgress: [...this.phases, ...this.agents].map((r) => ({ ...r })),
    });
  }

  private taskUsage(): TaskUsage {
    return { totalTokens: totalTokens(this.usage), toolUses: this.toolUses, durationMs: Date.now() - this.started };
  }

  private slot(): Promise<void> {
    if (this.running < agentConcurrency()) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.running++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  /** One line of the run's journal: what each agent was and returned (for a person, or the model, to read). */
  private record(entry: Record<string, unknown>): void {
    try {
      appendFileSync(this.journal, `${JSON.stringify(entry)}\n`);
    } catch (err) {
      logWarning(`workflow ${this.taskId}: cannot write its journal: ${(err as Error).message}`);
    }
  }

  /** The task's output file at the end: the logs so far, then the run as JSON. */
  private writeOutput(script: string, scriptPath: string, outcome: ScriptOutcome): void {
    const body = {
      workflowName: this.parsed.meta.name,
      summary: this.parsed.meta.description,
      status: outcome.ok ? 'completed' : outcome.stopped ? 'stopped' : 'failed',
      scriptPath,
      scriptChars: script.length,
      ...(this.args !== undefined ? { args: this.args } : {}),
      ...(outcome.ok ? { result: outcome.value ?? null } : { error: outcome.error }),
      agentCount: this.agents.length,
      logs: this.logs,
      workflowProgress: [...this.phases, ...this.agents],
      totalTokens: totalTokens(this.usage),
      totalToolCalls: this.toolUses,
      durationMs: Date.now() - this.started,
    };
    try {
      appendFileSync(this.outputFile, `${JSON.stringify(body, null, 2)}\n`);
    } catch (err) {
      logWarning(`workflow ${this.taskId}: cannot write its output file: ${(err as Error).message}`);
    }
  }
}
