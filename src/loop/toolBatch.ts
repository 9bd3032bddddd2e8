// Runs the tool calls of one assistant turn: consecutive concurrency-safe calls together, the
// others one at a time; results keep the order of the tool_use blocks. While a call runs longer
// than a couple of seconds, a tool_progress event goes out at most once a second.
import type { Tool } from '../../tools/tool.js';
import { findTool, validateInput } from '../../tools/registry.js';
import { AsyncQueue } from '../util/asyncQueue.js';
import type { LoopEvent } from './events.js';
import type { LoopConfig } from './agentLoop.js';
import { runToolUse, toResultBlock, type PipelineOutcome, type ToolResultBlock, type ToolUseBlock } from './toolPipeline.js';

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

/** A tool's progress may carry a loop event to forward (a subagent's messages). */
export interface ForwardedEvent {
  loopEvent: LoopEvent;
}

export async function* runToolBatch(
  toolUses: ToolUseBlock[],
  cfg: LoopConfig,
  parentToolUseId: string | null,
): AsyncGenerator<LoopEvent, BatchOutcome, void> {
  const outcomes: PipelineOutcome[] = [];
  for (const group of partition(toolUses, cfg.tools)) {
    if (cfg.signal.aborted) {
      for (const b of group) outcomes.push({ toolResult: toResultBlock(b.id, 'Interrupted by user', true) });
      continue;
    }
    const groupOutcomes = yield* runGroup(group, cfg, parentToolUseId);
    outcomes.push(...groupOutcomes);
    if (groupOutcomes.some((o) => o.stopRun)) {
      // The host stopped the run: the calls not yet made are answered, never left dangling.
      const done = new Set(outcomes.map((o) => o.toolResult.tool_use_id));
      for (const b of toolUses)
        if (!done.has(b.id)) outcomes.push({ toolResult: toResultBlock(b.id, 'Not run: the run was stopped', true) });
      break;
    }
  }
  const stop = outcomes.find((o) => o.stopRun)?.stopRun;
  return {
    results: outcomes.map((o) => o.toolResult),
    data: outcomes.map((o) => o.data),
    extraContent: outcomes.flatMap((o) => (o.additionalContext ?? []).map((text) => ({ type: 'text' as const, text }))),
    ...(stop ? { stopRun: stop } : {}),
  };
}

async function* runGroup(
  group: ToolUseBlock[],
  cfg: LoopConfig,
  parentToolUseId: string | null,
): AsyncGenerator<LoopEvent, PipelineOutcome[], void> {
  const queue = new AsyncQueue<LoopEvent>();
  const outcomes = new Array<PipelineOutcome>(group.length);
  const started = Date.now();
  const running = new Set(group.map((b) => b.id));
  let remaining = group.length;

  group.forEach((block, i) => {
    void (async () => {
      try {
        // Inside the try: a context that cannot be made (an environment fault) is this call's error.
        const gen = runToolUse(block, cfg.toolContext(block.id), cfg.pipeline);
        for (;;) {
          const step = await gen.next();
          if (step.done) {
            outcomes[i] = step.value;
            break;
          }
          const fwd = (step.value.data as ForwardedEvent | undefined)?.loopEvent;
          if (fwd) queue.push(fwd);
          // A tool's own progress (an MCP server's notifications/progress): a tool_progress now.
          if ((step.value.data as { toolProgress?: boolean } | undefined)?.toolProgress)
            queue.push({ parentToolUseId, type: 'tool_progress', toolUseId: block.id, toolName: block.name, elapsedSeconds: Math.round((Date.now() - started) / 100) / 10 });
        }
      } catch (err) {
        outcomes[i] = {
          toolResult: toResultBlock(block.id, `Error: ${err instanceof Error ? err.message : String(err)}`, true),
        };
      } finally {
        running.delete(block.id);
        if (--remaining === 0) queue.close();
      }
    })();
  });

  const ticker = setInterval(() => {
    const elapsed = Date.now() - started;
    if (elapsed < PROGRESS_AFTER_MS) return;
    for (const b of group)
      if (running.has(b.id))
        queue.push({
          parentToolUseId,
          type: 'tool_progress',
          toolUseId: b.id,
          toolName: b.name,
          elapsedSeconds: Math.round(elapsed / 100) / 10,
        });
  }, PROGRESS_EVERY_MS);
  try {
    for await (const ev of queue) yield ev;
  } finally {
    clearInterval(ticker);
  }
  for (let i = 0; i < group.length; i++)
    yield { parentToolUseId, type: 'tool_result', block: outcomes[i].toolResult, data: outcomes[i].data };
  return outcomes;
}

/** Consecutive concurrency-safe calls form one group; every other call is a group of its own. */
function partition(toolUses: ToolUseBlock[], tools: Tool[]): ToolUseBlock[][] {
  const groups: ToolUseBlock[][] = [];
  let safeRun: ToolUseBlock[] = [];
  for (const b of toolUses) {
    if (isConcurrencySafe(b, tools)) {
      safeRun.push(b);
      continue;
    }
    if (safeRun.length) groups.push(safeRun);
    safeRun = [];
    groups.push([b]);
  }
  if (safeRun.length) groups.push(safeRun);
  return groups;
}

function isConcurrencySafe(block: ToolUseBlock, tools: Tool[]): boolean {
  const tool = findTool(tools, block.name);
  if (!tool) return false;
  const parsed = validateInput(tool, block.input);
  if (!parsed.success) return false;
  try {
    return tool.isConcurrencySafe(parsed.data);
  } catch {
    return false;
  }
}
