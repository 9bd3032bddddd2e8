// Runs the tool calls of one assistant turn, each as soon as its tool_use block is complete: the
// loop adds a call at its content_block_stop, while the model may still be streaming the next
// block. The rules of order hold whatever the timing:
// - a concurrency-safe call starts at once, unless a not-safe call before it has not finished;
// - any other call starts only after every earlier call of the turn has finished;
// - results keep the order of the tool_use blocks.
// Events the calls produce (a subagent's messages, tool_progress after a couple of seconds, at
// most once a second) are held until the loop has emitted the assistant message, then streamed.
import type { CallPreparation } from '../../tools/toolCall.js';
import type { LoopEvent } from './events.js';
import type { LoopConfig } from './agentLoop.js';
import {
  prepareToolUse,
  resolveToolAlias,
  withOwnName,
  runToolUse,
  toResultBlock,
  type PipelineOutcome,
  type ToolResultBlock,
  type ToolUseBlock,
} from './toolPipeline.js';

const PROGRESS_AFTER_MS = 2000;
const PROGRESS_EVERY_MS = 1000;

export interface BatchOutcome {
  results: ToolResultBlock[];
  /** Each result's host-facing data (`tool_use_result`), aligned with `results`. */
  data: unknown[];
  /** Text blocks (hooks' additional context) sent after the results in the same user message. */
  extraContent: Array<{ type: 'text'; text: string }>;
  stopRun?: { reason: string };
}

interface Entry {
  block: ToolUseBlock;
  /** The call validated once, here (undefined: no such tool); the pipeline runs it as prepared. */
  prepared: CallPreparation | undefined;
  safe: boolean;
  started: boolean;
  startedAt: number;
  outcome?: PipelineOutcome;
}

export class ToolExecutor {
  private readonly entries: Entry[] = [];
  /** Each with what wakes a call waiting for it to be out (see start). */
  private events: Array<{ ev: LoopEvent; out?: () => void }> = [];
  private stopped: { reason: string } | undefined;
  /** Wakes finish() when a call ends. */
  private notify: (() => void) | null = null;

  constructor(
    private readonly cfg: LoopConfig,
    private readonly parentToolUseId: string | null,
  ) {}

  /** How many calls have started (the loop must not let the model client retry after one did). */
  get startedCount(): number {
    return this.entries.filter((e) => e.started).length;
  }

  has(id: string): boolean {
    return this.entries.some((e) => e.block.id === id);
  }

  /** A complete tool_use block: it starts now if the rules allow, else as soon as they do. */
  add(called: ToolUseBlock): void {
    if (this.has(called.id)) return;
    const block = withOwnName(resolveToolAlias(called, this.cfg.pipeline.toolAliases?.()), this.cfg.tools);
    const prepared = prepareToolUse(block, this.cfg.tools);
    const safe = prepared?.ok === true && prepared.call.concurrencySafe;
    this.entries.push({ block, prepared, safe, started: false, startedAt: 0 });
    this.schedule();
  }

  private push(ev: LoopEvent): void {
    this.events.push({ ev });
    this.notify?.();
  }

  /** Resolves once the event has gone out (or the run is interrupted: nothing will take it then). */
  private pushAndWait(ev: LoopEvent): Promise<void> {
    return new Promise<void>((resolve) => {
      const signal = this.cfg.signal;
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      if (signal.aborted) {
        this.push(ev);
        return resolve();
      }
      signal.addEventListener('abort', done, { once: true });
      this.events.push({ ev, out: done });
      this.notify?.();
    });
  }

  private schedule(): void {
    let earlierUnfinished = false;
    let earlierUnsafeUnfinished = false;
    for (const e of this.entries) {
      if (!e.started) {
        if (this.stopped) {
          e.started = true;
          e.outcome = { toolResult: toResultBlock(e.block.id, 'Not run: the run was stopped', true) };
        } else if (this.cfg.signal.aborted) {
          e.started = true;
          e.outcome = { toolResult: toResultBlock(e.block.id, 'Interrupted by user', true) };
        } else if (e.safe ? !earlierUnsafeUnfinished : !earlierUnfinished) this.start(e);
        else break;
      }
      if (!e.outcome) {
        earlierUnfinished = true;
        if (!e.safe) earlierUnsafeUnfinished = true;
      }
    }
  }

  private start(e: Entry): void {
    e.started = true;
    e.startedAt = Date.now();
    void (async () => {
      try {
        // Inside the try: a context that cannot be made (an environment fault) is this call's error.
        const gen = runToolUse(e.block, this.cfg.toolContext(e.block.id), this.cfg.pipeline, e.prepared);
        for (;;) {
          const step = await gen.next();
          if (step.done) {
            e.outcome = step.value;
            break;
          }
          // An event of an agent the call runs, in its place; else the call's own progress (an MCP
          // server's notifications/progress): a tool_progress now.
          // An agent's line waits until it is out (its events are held until the caller's reply
          // has ended): the agent goes on only then, so its own calls are never asked about
          // (can_use_tool, hook callbacks) before the line that holds them.
          if (step.value.type === 'forward') await this.pushAndWait(step.value.event);
          else
            this.push({
              parentToolUseId: this.parentToolUseId,
              type: 'tool_progress',
              toolUseId: e.block.id,
              toolName: e.block.name,
              elapsedSeconds: Math.round((Date.now() - e.startedAt) / 100) / 10,
            });
        }
      } catch (err) {
        e.outcome = {
          toolResult: toResultBlock(e.block.id, `Error: ${err instanceof Error ? err.message : String(err)}`, true),
        };
      } finally {
        if (e.outcome?.stopRun) this.stopped ??= e.outcome.stopRun;
        this.schedule();
        this.notify?.();
      }
    })();
  }

  /**
   * Streams the calls' events until every call has finished, then one tool_result event per call
   * in block order. `blocks` are all the turn's tool_use blocks (any not added yet are added now).
   */
  async *finish(blocks: ToolUseBlock[]): AsyncGenerator<LoopEvent, BatchOutcome, void> {
    for (const b of blocks) this.add(b);
    const ticker = setInterval(() => {
      const now = Date.now();
      for (const e of this.entries)
        if (e.started && !e.outcome && now - e.startedAt >= PROGRESS_AFTER_MS)
          this.push({
            parentToolUseId: this.parentToolUseId,
            type: 'tool_progress',
            toolUseId: e.block.id,
            toolName: e.block.name,
            elapsedSeconds: Math.round((now - e.startedAt) / 100) / 10,
          });
    }, PROGRESS_EVERY_MS);
    let ready: typeof this.events = [];
    try {
      for (;;) {
        ready = this.events;
        this.events = [];
        for (const { ev, out } of ready) {
          yield ev;
          out?.();
        }
        // Events pushed while those were consumed come out first: the calls that pushed them may
        // have ended meanwhile, and stopping on "all ended" alone would drop them.
        if (this.events.length) continue;
        if (this.entries.every((e) => e.outcome)) break;
        await new Promise<void>((resolve) => (this.notify = resolve));
        this.notify = null;
      }
    } finally {
      clearInterval(ticker);
      // Closed early: a call waiting for its line must not wait forever.
      for (const { out } of [...ready, ...this.events]) out?.();
    }
    const order = new Map(blocks.map((b, i) => [b.id, i]));
    const outcomes = this.entries
      .slice()
      .sort((a, b) => (order.get(a.block.id) ?? Infinity) - (order.get(b.block.id) ?? Infinity))
      .map((e) => e.outcome!);
    for (const o of outcomes)
      yield { parentToolUseId: this.parentToolUseId, type: 'tool_result', block: o.toolResult, data: o.data };
    return {
      results: outcomes.map((o) => o.toolResult),
      data: outcomes.map((o) => o.data),
      extraContent: outcomes.flatMap((o) =>
        (o.additionalContext ?? []).map((text) => ({ type: 'text' as const, text })),
      ),
      ...(this.stopped ? { stopRun: this.stopped } : {}),
    };
  }
}

/** Runs a whole turn's calls at once (no streaming): what the executor does when all arrive together. */
export async function* runToolBatch(
  toolUses: ToolUseBlock[],
  cfg: LoopConfig,
  parentToolUseId: string | null,
): AsyncGenerator<LoopEvent, BatchOutcome, void> {
  return yield* new ToolExecutor(cfg, parentToolUseId).finish(toolUses);
}
