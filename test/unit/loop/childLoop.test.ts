// A tool starts a child loop through ctx.loop: the child's config comes from deriveChildConfig.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callingLoop, deriveChildConfig, deriveChildServices, loopHandle } from '../../../src/loop/childLoop.js';
import { SpendLedger } from '../../../src/loop/spendLedger.js';
import type { UsageAccumulator } from '../../../src/loop/usage.js';
import type { LoopOutcome } from '../../../src/loop/events.js';
import { defineTool, type Tool, type ToolServices } from '../../../tools/tool.js';
import type { TodoStore } from '../../../tools/todoWrite.js';
import { systemText, text, toolUse } from '../../fake-api/server.js';
import { collectLoop, loopConfig } from './loopHarness.js';
import { scriptedModel } from './scriptedModel.js';

describe('child loops', () => {
  it('a tool spawns a child through ctx.loop: same model client, its own prompt, tools and usage, events scoped to the tool_use', async () => {
    const childOutcomes: LoopOutcome[] = [];
    let childUsage: UsageAccumulator | undefined;
    const spawner = defineTool({
      name: 'Spawn',
      description: 'runs a child loop',
      inputSchema: z.object({ prompt: z.string() }),
      isReadOnly: () => true,
      isConcurrencySafe: () => false,
      async *call(input, ctx) {
        const child = callingLoop(ctx)!.spawn({
          model: 'claude-haiku-4-5',
          system: 'child system',
          tools: [],
          signal: ctx.signal,
          toolContext: (id) => ({ ...ctx, toolUseId: id }),
          parentToolUseId: ctx.toolUseId,
        });
        childUsage = child.config.usage;
        const gen = child.run([{ role: 'user', content: input.prompt }]);
        for (;;) {
          const step = await gen.next();
          if (step.done) {
            childOutcomes.push(step.value);
            return { content: step.value.resultText };
          }
          expect(step.value.parentToolUseId).toBe(ctx.toolUseId);
        }
      },
    }) as Tool;
    const model = scriptedModel((req) => {
      if (systemText(req) === 'child system') return text('child says hi');
      return model.requests.length === 1
        ? toolUse('Spawn', { prompt: 'go, child' }, 'toolu_spawn')
        : text('parent done');
    });
    const cfg = loopConfig([spawner], { callModel: model.callModel, maxBudgetUsd: 5 });
    const { outcome } = await collectLoop([{ role: 'user', content: 'start' }], cfg);
    expect(outcome.resultText).toBe('parent done');
    expect(childOutcomes[0].resultText).toBe('child says hi');
    const childReq = model.requests.find((r) => systemText(r) === 'child system')!;
    expect(childReq.body).toMatchObject({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go, child' }] }],
    });
    expect(childReq.body.tools).toBeUndefined();
    // The child's calls are its own, and recorded once in the session's ledger with the parent's.
    expect(childUsage!.totals().output_tokens).toBe(5);
    expect(cfg.usage.totals().output_tokens).toBe(10);
    expect(cfg.spend.takeUnreported().totals().output_tokens).toBe(15);
    // The tool result carries the child's answer back to the parent.
    expect(JSON.stringify(model.requests[2].body.messages)).toContain('child says hi');
  });

  it("callingLoop: the loop's own handle from a call's context; a handle the loop did not make is none", () => {
    const cfg = loopConfig([]);
    const handle = loopHandle(cfg, []);
    const ctx = cfg.toolContext('t');
    expect(callingLoop({ ...ctx, loop: handle })?.config).toBe(cfg);
    expect(callingLoop(ctx)).toBeUndefined();
    const foreign = { ...handle };
    expect(callingLoop({ ...ctx, loop: foreign })).toBeUndefined();
  });

  it("deriveChildConfig: own identity and limits, the parent's model client, budget, pipeline and compaction", () => {
    const spend = new SpendLedger();
    spend.record('claude-opus-5-5', { input_tokens: 375_000 });
    const callModel = () => (async function* () {})();
    const pre = async () => undefined;
    const parent = loopConfig([], {
      callModel,
      maxTurns: 9,
      maxBudgetUsd: 2,
      spend,
      betas: ['b1'],
      fallbackModel: 'fb',
      preCompactHook: pre,
      autoCompactPct: 50,
      stopHook: async () => undefined,
    });
    const signal = new AbortController().signal;
    const child = deriveChildConfig(parent, {
      model: 'm',
      system: 's',
      tools: [],
      signal,
      toolContext: parent.toolContext,
      parentToolUseId: 'toolu_1',
    });
    expect(child.model()).toBe('m');
    expect(child).toMatchObject({
      system: 's',
      maxTurns: 9,
      maxBudgetUsd: 2,
      betas: ['b1'],
      fallbackModel: 'fb',
      autoCompactPct: 50,
      parentToolUseId: 'toolu_1',
    });
    expect(child.callModel).toBe(callModel);
    expect(child.preCompactHook).toBe(pre);
    expect(child.stopHook).toBeUndefined();
    // Its own accumulator, recording into the session's one ledger: the budget sees every run.
    expect(child.usage).not.toBe(parent.usage);
    expect(child.spend).toBe(spend);
    expect(child.spend.spentUsd).toBe(1.5);
    child.usage.add('claude-opus-5-5', { input_tokens: 125_000 });
    expect(spend.spentUsd).toBe(2);
    expect(parent.usage.totalCostUSD).toBe(0);
    expect(
      deriveChildConfig(parent, {
        model: 'm',
        system: 's',
        tools: [],
        signal,
        toolContext: parent.toolContext,
        parentToolUseId: 't',
        maxTurns: 3,
      }).maxTurns,
    ).toBe(3);
  });
});

describe('child services', () => {
  it('deriveChildServices: the child has its own id and todos, shares the session services, and never gets the main thread’s', () => {
    const parent = {
      subagents: {},
      tasks: {},
      backgroundShell: {},
      foreground: {},
      sandbox: {},
      todos: {},
      team: {},
      teamMember: 'worker',
      planMode: {},
      worktrees: {},
      fileHistory: {},
      skills: {},
    } as unknown as ToolServices;
    const todos = {} as TodoStore;
    const child = deriveChildServices(parent, { agentId: 'a1', todos });
    expect(child).toEqual({
      agentId: 'a1',
      todos,
      tasks: parent.tasks,
      backgroundShell: parent.backgroundShell,
      sandbox: parent.sandbox,
      team: parent.team,
      teamMember: 'worker',
      taskList: undefined,
      fileHistory: parent.fileHistory,
      subagents: undefined,
      planMode: undefined,
      worktrees: undefined,
      skills: undefined,
      foreground: undefined,
    });
    expect(child.todos).not.toBe(parent.todos);
  });
});
