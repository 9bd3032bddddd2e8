// Drives the agent loop in memory: a LoopConfig with sensible test defaults, and a collector.
import { agentLoop, type LoopConfig } from '../../../src/loop/agentLoop.js';
import type { HistoryMessage, LoopEvent, LoopOutcome } from '../../../src/loop/events.js';
import { SpendLedger } from '../../../src/loop/spendLedger.js';
import { toolApiSchema } from '../../../tools/registry.js';
import type { Tool } from '../../../tools/tool.js';

export function loopConfig(tools: Tool[], over: Partial<LoopConfig> = {}, model = 'claude-sonnet-5-5'): LoopConfig {
  const spend = over.spend ?? new SpendLedger();
  const usage = spend.account();
  const signal = over.signal ?? new AbortController().signal;
  return {
    model: () => model,
    system: 'test',
    tools,
    apiTools: tools.map(toolApiSchema),
    spend,
    maxOutputTokens: 1000,
    signal,
    usage,
    toolContext: (toolUseId) => ({
      cwd: '/',
      signal,
      sessionId: 's',
      readFiles: new Map(),
      scratchDir: '/tmp',
      toolUseId,
    }),
    pipeline: { tools },
    parentToolUseId: null,
    // Unit tests give the loop an in-memory model (scriptedModel.ts); none given is a test bug.
    callModel: () => {
      throw new Error('loopConfig: no callModel given');
    },
    ...over,
  };
}

/** Runs the loop to its end, collecting every event it yields. */
export async function collectLoop(
  history: HistoryMessage[],
  cfg: LoopConfig,
): Promise<{ events: LoopEvent[]; outcome: LoopOutcome }> {
  const events: LoopEvent[] = [];
  const gen = agentLoop(history, cfg);
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, outcome: step.value };
    events.push(step.value);
  }
}
