// A tool starts a child loop through ctx.loop: the child's config comes from deriveChildConfig.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deriveChildConfig, deriveChildServices } from '../../../src/loop/childLoop.js';
import { UsageAccumulator } from '../../../src/loop/usage.js';
import type { LoopOutcome } from '../../../src/loop/events.js';
import { defineTool, type Tool, type ToolServices } from '../../../tools/tool.js';
import type { TodoStore } from '../../../tools/todoWrite.js';
import { systemText, text, toolUse } from '../../fake-api/server.js';
import { collectLoop, loopConfig } from './loopHarness.js';
import { scriptedModel } from './scriptedModel.js';

describe('child loops', () => {
  it('a tool spawns a child through ctx.loop: same model client, its own prompt, tools and usage, events scoped to the tool_use', async () => {
    const childOutcomes: LoopOutcome[] = [];
    const childUsage = new UsageAccumulator();
    const spawner = defineTool({
      name: 'Spawn',
      description: 'runs a child loop',
      inputSchema: z.object({ prompt: z.string() }),
      isReadOnly: () => true,
      isConcurrencySafe: () => false,
      async *call(input, ctx) {
        const child = ctx.loop!.spawn({
          model: 'claude-haiku-4-5',
          system: 'child system',
          tools: [],
          signal: ctx.signal,
          usage: childUsage,
          toolContext: (id) => ({ ...ctx, toolUseId: id }),
          parentToolUseId: ctx.toolUseId,
        });
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
    const { outcome } = await collectLoop(
      [{ role: 'user', content: 'start' }],
      loopConfig([spawner], { callModel: model.callModel, maxBudgetUsd: 5 }),
    );
    expect(outcome.resultText).toBe('parent done');
    expect(childOutcomes[0].resultText).toBe('child says hi');
    const childReq = model.requests.find((r) => systemText(r) === 'child system')!;
    expect(childReq.body).toMatchObject({
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go, child' }] }],
    });
    expect(childReq.body.tools).toBeUndefined();
    expect(childUsage.totals().output_tokens).toBe(5);
    // The tool result carries the child's answer back to the parent.
    expect(JSON.stringify(model.requests[2].body.messages)).toContain('child says hi');
  });

  it("deriveChildConfig: own identity and limits, the parent's model client, budget, pipeline and compaction", () => {
    const parentUsage = new UsageAccumulator();
    const callModel = () => (async function* () {})();
    const pre = async () => undefined;
    const parent = loopConfig([], {
      callModel,
      maxTurns: 9,
      maxBudgetUsd: 2,
      spentUsd: () => 1.5,
      betas: ['b1'],
      fallbackModel: 'fb',
      preCompactHook: pre,
      autoCompactPct: 50,
      usage: parentUsage,
      stopHook: async () => undefined,
    });
    const usage = new UsageAccumulator();
    const signal = new AbortController().signal;
    const child = deriveChildConfig(parent, {
      model: 'm',
      system: 's',
      tools: [],
      signal,
      usage,
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
    expect(child.usage).toBe(usage);
    expect(child.spentUsd()).toBe(1.5);
    expect(
      deriveChildConfig(parent, {
        model: 'm',
        system: 's',
        tools: [],
        signal,
        usage,
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
