// The session runner: a queue of prompts, one loop run and one `result` per turn, all in one
// session whose history grows. Prompts that arrive while a run is going wait, and then go to the
// model together as the next turn (promptBatch.ts).
import type { Tool, ToolContext, FileReadRecord } from '../../tools/tool.js';
import type { LoopConfig, StopHookVerdict } from '../loop/agentLoop.js';
import { makeOutcome, type HistoryMessage, type LoopOutcome } from '../loop/events.js';
import { faultOutcome, RunDriver } from '../loop/runDriver.js';
import type { UsageAccumulator } from '../loop/usage.js';
import { SpendLedger } from '../loop/spendLedger.js';
import type { PermissionDenial, PipelineDeps } from '../loop/toolPipeline.js';
import type { PermissionMode } from '../protocol/inbound.js';
import { AsyncQueue } from '../util/asyncQueue.js';
import { appendUser } from '../loop/history.js';
import type { SessionEvent, SessionInit } from './events.js';
import type { SystemBlocks } from '../prompt/systemPrompt.js';
import type { TaskRecord } from '../tasks/registry.js';
import { manualCompact, runPreCompactHooks } from '../loop/compaction.js';
import { parseSlash, type SlashOutcome } from '../commands/slashCommands.js';
import type { EffortLevel } from '../loop/pricing.js';
import type { ThinkingMode } from '../loop/requestOptions.js';
import { batchQueued, mergePromptContents, type QueuedPrompt, type UserContent } from './promptBatch.js';
import { gatePrompts } from './promptGate.js';
import type { CallModel } from '../loop/model.js';
import type { ToolSearchSetting } from '../loop/deferredTools.js';
import { ToolOffer } from './toolOffer.js';
import { type PromptSources, runPromptSources } from './promptSources.js';
import { contextWindow } from '../loop/pricing.js';
import { sessionTmpDir } from '../util/configDir.js';
import { TurnTiming } from './turnTiming.js';
import { suggestNextPrompt } from './promptSuggestion.js';
import { logWarning } from '../util/log.js';
import { TurnScope } from './turnScope.js';

export type { UserContent } from './promptBatch.js';

export interface SessionSettings {
  sessionId: string;
  cwd: string;
  model: string;
  fallbackModel?: string;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** --thinking, --max-thinking-tokens (set_max_thinking_tokens changes it), --effort. */
  thinking?: ThinkingMode;
  maxThinkingTokens?: number;
  effort?: EffortLevel;
  /** CLAUDE_CODE_MAX_OUTPUT_TOKENS: an upper bound on max_tokens; else the model's ceiling. */
  maxOutputTokens?: number;
  betas?: string[];
  /** The output style in use (system/init's output_style). */
  outputStyle?: string;
  /** --task-budget: tokens (see LoopConfig.taskBudget). */
  taskBudget?: number;
  includePartialMessages: boolean;
  /** The offered tools now: a new array when they change (MCP servers, --agent), else the same one. */
  tools: () => Tool[];
  /** ENABLE_TOOL_SEARCH: when MCP tools are deferred behind ToolSearch (default auto, 10 %). */
  toolSearch?: ToolSearchSetting;
  /** StructuredOutput, when the host gave a JSON schema: offered to the main agent only. */
  structuredOutputTool?: Tool;
  mcpServers: Array<{ name: string; status: string }>;
  agents: string[];
  apiKeySource: string;
  version: string;
  /** `sandbox.enabled` was set: whether Bash commands really run sandboxed (init reports it). */
  sandbox?: { enabled: boolean; active: boolean; reason?: string };
}

/** Besides these: where turns come from between results (background tasks, the team, cron, peers; promptSources.ts). */
export interface SessionHooks extends PromptSources {
  /**
   * Where an error result's reason is told to a person (default: a line on stderr). The terminal
   * mode already shows it in its own output.
   */
  reportError?: (text: string) => void;
  /** promptSuggestions: whether the host asked for them and nothing switched them off (read after each turn). */
  promptSuggestions?: () => boolean;
  /** Build the system prompt at the start of each run (after initialize may have changed it). */
  systemPrompt: () => SystemBlocks;
  /** Pipeline dependencies (permissions, hooks, host questions) for this run. */
  pipeline: () => PipelineDeps;
  /** UserPromptSubmit: may block the prompt (its reason is the result) or add context. */
  beforePrompt?: (
    prompt: UserContent,
    signal: AbortSignal,
    uuid: string | undefined,
  ) => Promise<{ blockReason?: string; additionalContext?: string[] }>;
  stopHook?: (stopHookActive: boolean, signal: AbortSignal) => Promise<StopHookVerdict | undefined>;
  /** Services that some tools need (background tasks, subagents, todos). */
  services?: ToolContext['services'];
  /** The live permission mode (set_permission_mode or a host's updatedPermissions change it). */
  permissionMode: () => PermissionMode;
  /** The model client: the session's Messages API, which --record and --replay wrap or replace. */
  callModel: CallModel;
  /** The id requests for a model are sent with, for the init line (on Bedrock, its inference profile's). */
  sentModelId: (model: string) => string | Promise<string>;
  /** Awaited before each run's system/init (MCP servers still connecting; the tools they add). */
  beforeRun?: () => Promise<void>;
  /** Slash commands: a prompt `/name …` is run by them (src/commands); undefined → a plain prompt. */
  slashCommand?: (text: string) => Promise<SlashOutcome | undefined>;
  /** What a turn changes for itself (a command's or a loaded skill's allowed-tools and model). */
  turn?: TurnScope;
  /** The slash commands' names, for system/init. */
  slashCommandNames?: () => string[];
  /** The skills the model can load (system/init's `skills`). */
  skillNames?: () => string[];
  /** The loaded plugins (system/init's `plugins`). */
  plugins?: () => Array<{ name: string; path: string }>;
}

/** The text of a prompt that is a slash command, else undefined. */
function slashText(p: QueuedPrompt): string | undefined {
  if (p.notification) return undefined;
  const c = p.content;
  const text =
    typeof c === 'string'
      ? c
      : Array.isArray(c) && c.length === 1 && c[0]?.type === 'text'
        ? String((c[0] as { text?: unknown }).text ?? '')
        : undefined;
  return text !== undefined && parseSlash(text) ? text : undefined;
}

export class SessionRunner {
  readonly history: HistoryMessage[] = [];
  readonly readFiles = new Map<string, FileReadRecord>();
  readonly scratchDir: string;
  private readonly queue = new AsyncQueue<QueuedPrompt>();
  private current: AbortController | null = null;
  /** The session's one spend ledger: every run's calls, the budget's measure, each result's cost. */
  readonly spend = new SpendLedger();
  /** Every denial of the running prompt, its subagents' included. */
  private readonly denials: PermissionDenial[] = [];
  private lastIsError = false;
  /** Turns that ended with a result (suggestions start after the first). */
  private turnsDone = 0;
  /** The prompt suggestion being made, if any: dropped when the next turn starts. */
  private suggesting: { abort: AbortController; done: Promise<void> } | null = null;
  /** What the main loop offers the model (tool search may withhold MCP tools); rebuilt when the tools change. */
  private readonly offer: ToolOffer;
  private readonly turn: TurnScope;

  constructor(
    readonly settings: SessionSettings,
    private readonly hooks: SessionHooks,
    private readonly emit: (event: SessionEvent) => Promise<void>,
  ) {
    this.scratchDir = sessionTmpDir(settings.sessionId);
    this.turn = hooks.turn ?? new TurnScope();
    this.offer = new ToolOffer(settings, () => contextWindow(this.turn.model ?? this.settings.model));
  }

  /**
   * Queue a prompt. It runs after the ones before it, merged with the others waiting when its turn
   * comes; nothing queued is ever dropped.
   */
  submit(content: UserContent, uuid?: string): void {
    this.queue.push({ content, ...(uuid ? { uuid } : {}) });
  }

  /** No more prompts will come (stdin EOF): the queued ones still run. */
  endInput(): void {
    this.queue.close();
  }

  get running(): boolean {
    return this.current !== null;
  }

  private readonly idleWaiters: Array<() => void> = [];

  /** Resolves when no turn is running (at once if none is): its result has been emitted. */
  whenIdle(): Promise<void> {
    if (!this.current) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  get pending(): number {
    return this.queue.size;
  }

  /** The tools the next request sends, and the deferred ones it does not (for get_context_usage). */
  offeredToolSchemas(): { tools: LoopConfig['apiTools']; deferredTools: LoopConfig['apiTools'] } {
    return this.offer.schemas();
  }

  /** Whether the last result was an error (for the exit code). */
  get lastResultWasError(): boolean {
    return this.lastIsError;
  }

  /** What the session has spent so far, every run and side call included (/cost). */
  spentSoFar(): number {
    return this.spend.spentUsd;
  }

  /**
   * perTaskStopAffordance: the host has a stop control for each task, so an interrupt stops the
   * turn and spares background agents and workflows (each can still be stopped with stop_task). Without it, an
   * interrupt stops every background task: nothing else could stop a runaway one.
   */
  spareAgentsOnInterrupt = false;

  /** Abort the running prompt (interrupt): its result comes within a second. */
  interrupt(): boolean {
    const spared = (t: TaskRecord) => t.kind === 'local_agent' || t.kind === 'local_workflow';
    void this.hooks.background?.stopAll(this.spareAgentsOnInterrupt ? spared : undefined);
    if (!this.current) return false;
    this.current.abort();
    return true;
  }

  /**
   * Run turns until the input has ended and nothing is left to wait for: the input's prompts, and
   * after each result background notices, team mail, cron prompts and peer messages as turns of
   * their own (promptSources.ts says when the session is done).
   */
  async run(): Promise<void> {
    try {
      await runPromptSources(this.queue, this.hooks, {
        runQueued: (first) => this.runQueued(first),
        runTurn: (prompts) => this.runTurn(prompts),
      });
    } finally {
      // The last turn's suggestion still reaches the host (it arrives after the result, as documented).
      await this.suggesting?.done;
    }
  }

  /** `first` and every prompt queued behind it, as few turns as keep their order. */
  private async runQueued(first: QueuedPrompt): Promise<void> {
    // A slash command is a turn of its own, in its place among the prompts around it.
    let plain: QueuedPrompt[] = [];
    for (const p of [first, ...this.queue.drain()]) {
      if (!this.hooks.slashCommand || slashText(p) === undefined) {
        plain.push(p);
        continue;
      }
      for (const turn of batchQueued(plain)) await this.runTurn(turn);
      plain = [];
      await this.runTurn([p]);
    }
    for (const turn of batchQueued(plain)) await this.runTurn(turn);
  }

  /** One turn of one or more prompts (merged), and its one result. */
  private async runTurn(prompts: QueuedPrompt[]): Promise<void> {
    // A suggestion for the prompt that has now come is of no use.
    this.suggesting?.abort.abort();
    const started = Date.now();
    this.timing = new TurnTiming();
    const abort = new AbortController();
    this.current = abort;
    const usage = this.spend.account();
    this.turn.begin();
    try {
      // An interrupt does not wait for slow MCP servers: the run then ends as interrupted.
      if (this.hooks.beforeRun)
        await Promise.race([
          this.hooks.beforeRun(),
          new Promise((r) => abort.signal.addEventListener('abort', r, { once: true })),
        ]);
      const init = this.init();
      // On Bedrock the init line says the profile id requests are sent with (it may wait for the list).
      const sent = this.hooks.sentModelId(init.model);
      if (typeof sent !== 'string') init.model = await sent;
      await this.emit({ type: 'init', init });
      const slash = prompts.length === 1 ? slashText(prompts[0]) : undefined;
      const command = slash !== undefined ? await this.hooks.slashCommand!(slash) : undefined;
      if (command && command.kind !== 'prompt') {
        const outcome =
          command.kind === 'local'
            ? makeOutcome(command.isError ? 'error_during_execution' : 'success', command.text)
            : await this.compactNow(command.instructions, abort.signal, usage);
        await this.emitResult(outcome, started);
        return;
      }
      if (command) {
        prompts = [{ ...prompts[0], content: command.prompt }];
        this.turn.apply(command.allowedTools, command.model);
      }
      // Each prompt on its own: one that cannot be sent, or that a hook blocks, is left out.
      const { sendable, context, refused } = await gatePrompts(
        prompts,
        this.hooks.beforePrompt,
        (ev) => this.emit(ev),
        abort.signal,
      );
      let outcome: LoopOutcome;
      if (sendable.length === 0) {
        outcome = makeOutcome('error_during_execution', refused.join('\n'));
      } else {
        for (const reason of refused) logWarning(`${reason}`);
        appendUser(this.history, mergePromptContents(sendable), context);
        outcome = await this.drive(abort.signal, usage);
      }
      await this.emitResult(outcome, started);
      if (this.turnsDone++ > 0 && outcome.subtype === 'success') this.suggestNext(outcome);
    } catch (err) {
      // A bug or an environment fault must not take the session down: it is this turn's error
      // result, as the run driver makes it of a fault inside the run.
      await this.emitResult(faultOutcome(err, abort.signal), started);
    } finally {
      this.turn.end();
      this.current = null;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** promptSuggestions: start the side call for this result's suggestion (not in plan mode, not after an error). */
  private suggestNext(outcome: LoopOutcome): void {
    if (outcome.interrupted || !this.hooks.promptSuggestions?.() || this.hooks.permissionMode() === 'plan') return;
    const abort = new AbortController();
    const usage = this.spend.account();
    const cfg = this.loopConfig(abort.signal, usage);
    const model = this.settings.model;
    const done = suggestNextPrompt({
      callModel: cfg.callModel,
      model,
      system: cfg.system,
      tools: cfg.apiTools,
      betas: cfg.betas,
      history: [...this.history],
      signal: abort.signal,
    })
      .then(async (made) => {
        if (!made) return;
        // In the ledger now: the next result counts it.
        usage.add(made.message.model || model, made.message.usage);
        if (made.suggestion !== undefined && !abort.signal.aborted)
          await this.emit({ type: 'prompt_suggestion', suggestion: made.suggestion });
      })
      .catch((err: Error) => {
        if (!abort.signal.aborted) logWarning(`prompt suggestion failed: ${err.message}`);
      })
      .finally(() => {
        if (this.suggesting?.abort === abort) this.suggesting = null;
      });
    this.suggesting = { abort, done };
  }

  /** The running turn's timing fields (result line). */
  private timing = new TurnTiming();

  /** /compact: one summary call now; the result tells what happened. */
  private async compactNow(instructions: string, signal: AbortSignal, usage: UsageAccumulator): Promise<LoopOutcome> {
    const cfg = this.loopConfig(signal, usage);
    const gen = manualCompact(this.history, cfg, cfg.model(), instructions);
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        const r = step.value;
        const durationApiMs = r.durationMs;
        return r.compacted
          ? makeOutcome('success', 'Conversation compacted.', { durationApiMs })
          : makeOutcome('error_during_execution', `/compact: not compacted: ${r.error ?? 'unknown reason'}`, {
              durationApiMs,
            });
      }
      await this.emit(step.value);
    }
  }

  /** The main conversation's run: the one driver, over the session's history, its events told as they come. */
  private async drive(signal: AbortSignal, usage: UsageAccumulator): Promise<LoopOutcome> {
    return new RunDriver(this.history).runTo(this.loopConfig(signal, usage), (ev) => {
      if (
        ev.type === 'assistant_block' ||
        ev.type === 'assistant' ||
        (ev.type === 'stream_event' && this.settings.includePartialMessages)
      )
        this.timing.contentFrame();
      return this.emit(ev);
    });
  }

  private loopConfig(signal: AbortSignal, usage: UsageAccumulator): LoopConfig {
    const s = this.settings;
    const tools = this.offer.tools();
    const deps = this.hooks.pipeline();
    return {
      model: () => this.turn.model ?? this.settings.model,
      fallbackModel: s.fallbackModel,
      system: this.hooks.systemPrompt(),
      callModel: this.timing.wrap(this.hooks.callModel, (req) => this.requesting(req.caller)),
      tools,
      apiTools: this.offer.apiTools(),
      deferredTools: this.offer.deferred,
      maxTurns: s.maxTurns,
      maxBudgetUsd: s.maxBudgetUsd,
      spend: this.spend,
      reasoning: () => ({
        thinking: this.settings.thinking,
        maxThinkingTokens: this.settings.maxThinkingTokens,
        effort: this.settings.effort,
      }),
      maxOutputTokens: s.maxOutputTokens,
      betas: s.betas,
      taskBudget: s.taskBudget,
      signal,
      usage,
      toolContext: (toolUseId) => ({
        cwd: s.cwd,
        signal,
        sessionId: s.sessionId,
        readFiles: this.readFiles,
        // Created by the tool that first needs it, so an unusable TMPDIR costs that tool, not the run.
        scratchDir: this.scratchDir,
        toolUseId,
        services: this.hooks.services,
      }),
      // Subagents run with this pipeline too, so their denials land in this prompt's result.
      pipeline: { ...deps, tools, onDenial: (d) => this.denials.push(d) },
      parentToolUseId: null,
      stopHook: this.hooks.stopHook ? (active) => this.hooks.stopHook!(active, signal) : undefined,
      preCompactHook: (trigger, sig) => runPreCompactHooks(deps.hooks, trigger, sig, deps.onSystemMessage),
    };
  }

  /** What system/init tells at the start of each run. */
  init(): SessionInit {
    const s = this.settings;
    return {
      cwd: s.cwd,
      // Every tool the model can reach, deferred ones included (ToolSearch only when it is useful).
      tools: this.offer.toolNames(),
      mcpServers: s.mcpServers,
      model: s.model,
      permissionMode: this.hooks.permissionMode(),
      slashCommands: this.hooks.slashCommandNames?.() ?? [],
      skills: this.hooks.skillNames?.() ?? [],
      plugins: this.hooks.plugins?.() ?? [],
      apiKeySource: s.apiKeySource,
      outputStyle: s.outputStyle ?? 'default',
      agents: s.agents,
      version: s.version,
      // What a host may feature-detect (sdk.d.ts): reload_plugins honours refuse_if_busy.
      capabilities: ['reload_plugins_refuse_if_busy_v1'],
      ...(s.sandbox ? { sandbox: s.sandbox } : {}),
    };
  }

  /** With partial messages on, a host is told each time the main agent's request goes out (system/status requesting). */
  private requesting(caller: string | null | undefined): void {
    if (this.settings.includePartialMessages && caller === null)
      void this.emit({ type: 'notice', notice: { subtype: 'status', status: 'requesting' } });
  }

  /** The turn's result: the session's running cost and per-model totals, and the usage since the last result. */
  private async emitResult(outcome: LoopOutcome, started: number): Promise<void> {
    const usage = this.spend.takeUnreported();
    const session = this.spend.sessionTotals;
    const isError = outcome.subtype !== 'success';
    this.lastIsError = isError;
    if (isError && !outcome.interrupted)
      (this.hooks.reportError ?? ((t: string) => logWarning(`${t}`)))(outcome.resultText);
    await this.emit({
      type: 'result',
      result: {
        outcome,
        durationMs: Date.now() - started,
        timing: this.timing.fields(),
        costUsd: session.totalCostUSD,
        usage: usage.totals(),
        modelUsage: session.modelUsage(),
        permissionDenials: this.denials.splice(0),
      },
    });
  }
}
