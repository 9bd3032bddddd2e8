// The one run driver, in memory with a scripted model: events to the sink in order, the tally, a
// fault as an error outcome (interrupted when aborted), the end-of-run paths (max turns, budget,
// interrupt), a turn limit held across runs, and the same run as a stream.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deriveChildConfig } from '../../../src/loop/childLoop.js';
import type { LoopEvent } from '../../../src/loop/events.js';
import { RunDriver } from '../../../src/loop/runDriver.js';
import { SpendLedger } from '../../../src/loop/spendLedger.js';
import { defineTool, type Tool } from '../../../tools/tool.js';
import { text, toolUse, type ScriptedReply } from '../../fake-api/server.js';
import { loopConfig } from './loopHarness.js';
import { scriptedModel } from './scriptedModel.js';

/** A ledger that has already recorded `usd` (claude-opus-5-5: $4 per million input tokens). */
function spentAlready(usd: number): SpendLedger {
  const spend = new SpendLedger();
  spend.record('claude-opus-5-5', { input_tokens: usd * 250_000 });
  return spend;
}

const echo = defineTool({
  name: 'Echo',
  description: 'echoes',
  inputSchema: z.object({ say: z.string() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async *call(input) {
    return { content: `echo: ${input.say}` };
  },
}) as Tool;

/** A model that answers from `replies` in order (then fails: the script is exhausted). */
function model(replies: ScriptedReply[]) {
  return scriptedModel((_req, i) => replies[i]);
}

const types = (evs: LoopEvent[]) => evs.map((e) => e.type).filter((t) => t !== 'stream_event');

describe('RunDriver', () => {
  it('drives a run to its outcome: every event to the sink in order, the tally of what the agent did', async () => {
    const m = model([toolUse('Echo', { say: 'a' }, 'toolu_1'), text('all done')]);
    const driver = new RunDriver([{ role: 'user', content: 'go' }]);
    const seen: LoopEvent[] = [];
    const outcome = await driver.runTo(loopConfig([echo], { callModel: m.callModel }), (ev) => {
      seen.push(ev);
    });
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'all done', numTurns: 2, errors: [] });
    expect(outcome).not.toHaveProperty('permissionDenials');
    // Each block as it completes (assistant_block), then the whole reply.
    expect(types(seen)).toEqual(['assistant_block', 'assistant', 'tool_result', 'assistant_block', 'assistant']);
    expect(driver.tally).toEqual({ toolUses: 1, lastTool: 'Echo', lastText: 'all done', turns: 2 });
    // The history the driver was given is the conversation the run extended.
    expect(driver.history.map((h) => h.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('awaits the sink: the next event waits for a slow consumer', async () => {
    const m = model([toolUse('Echo', { say: 'a' }), text('done')]);
    const order: string[] = [];
    await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([echo], { callModel: m.callModel }),
      async (ev) => {
        if (ev.type === 'stream_event') return;
        order.push(`in ${ev.type}`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`out ${ev.type}`);
      },
    );
    expect(order).toEqual([
      'in assistant_block',
      'out assistant_block',
      'in assistant',
      'out assistant',
      'in tool_result',
      'out tool_result',
      'in assistant_block',
      'out assistant_block',
      'in assistant',
      'out assistant',
    ]);
  });

  it('a fault inside the run is an error outcome, never a throw (a sink that fails, a config that throws)', async () => {
    const m = model([text('hi')]);
    const failing = await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([], { callModel: m.callModel }),
      (ev) => {
        if (ev.type === 'assistant') throw new Error('the host went away');
      },
    );
    expect(failing).toMatchObject({
      subtype: 'error_during_execution',
      resultText: 'Internal error: the host went away',
      errors: ['Internal error: the host went away'],
    });
    expect(failing.interrupted).toBeUndefined();

    const broken = loopConfig([], {
      model: () => {
        throw new Error('no model');
      },
    });
    const gen = new RunDriver([{ role: 'user', content: 'go' }]).run(broken);
    const step = await gen.next();
    expect(step).toMatchObject({ done: true, value: { subtype: 'error_during_execution' } });
  });

  it('a fault while the run is aborted is an interrupted outcome', async () => {
    const abort = new AbortController();
    const m = model([text('hi')]);
    const outcome = await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([], { callModel: m.callModel, signal: abort.signal }),
      (ev) => {
        if (ev.type === 'assistant') {
          abort.abort();
          throw new Error('cut short');
        }
      },
    );
    expect(outcome).toMatchObject({ subtype: 'error_during_execution', interrupted: true });
  });

  it('ends on the loop’s limits: max turns, budget, an interrupt before the first call', async () => {
    const loopy = () => model([toolUse('Echo', { say: '1' }), toolUse('Echo', { say: '2' }), text('never')]);
    const turns = await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([echo], { callModel: loopy().callModel, maxTurns: 1 }),
      () => {},
    );
    expect(turns).toMatchObject({ subtype: 'error_max_turns', numTurns: 1 });

    const budget = await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([echo], { callModel: loopy().callModel, maxBudgetUsd: 1, spend: spentAlready(2) }),
      () => {},
    );
    expect(budget.subtype).toBe('error_max_budget_usd');

    const abort = new AbortController();
    abort.abort();
    const stopped = await new RunDriver([{ role: 'user', content: 'go' }]).runTo(
      loopConfig([echo], { callModel: loopy().callModel, signal: abort.signal }),
      () => {},
    );
    expect(stopped).toMatchObject({ subtype: 'error_during_execution', interrupted: true, numTurns: 0 });
  });

  it('holds a turn limit across runs of one conversation (a teammate), each run derived with what is left', async () => {
    const m = model([text('first'), toolUse('Echo', { say: 'x' }), text('not reached')]);
    const parent = loopConfig([echo], { callModel: m.callModel });
    const driver = new RunDriver([], 2);
    const spec = {
      model: 'claude-haiku-4-5',
      system: 'teammate',
      tools: [echo],
      signal: parent.signal,
      toolContext: parent.toolContext,
      parentToolUseId: 'toolu_spawn',
    };
    const runOnce = (prompt: string) => {
      driver.history.push({ role: 'user', content: prompt });
      const cfg = deriveChildConfig(parent, { ...spec, maxTurns: driver.turnsLeft() });
      return driver.runTo(cfg, () => {});
    };
    expect(await runOnce('one')).toMatchObject({ subtype: 'success', resultText: 'first' });
    expect(driver.turnsLeft()).toBe(1);
    expect(driver.turnsSpent).toBe(false);
    expect(await runOnce('two')).toMatchObject({ subtype: 'error_max_turns' });
    expect(driver.turnsSpent).toBe(true);
    expect(driver.turnsLeft()).toBe(0);
    // A failed run keeps the last words the agent did say.
    expect(driver.tally).toMatchObject({ lastText: 'first', toolUses: 1, lastTool: 'Echo', turns: 2 });
  });

  it('run() streams the same run; a consumer that stops pulling ends it cleanly', async () => {
    const m = model([toolUse('Echo', { say: 'a' }), text('done')]);
    const driver = new RunDriver([{ role: 'user', content: 'go' }]);
    const gen = driver.run(loopConfig([echo], { callModel: m.callModel }));
    const seen: LoopEvent[] = [];
    for (;;) {
      const step = await gen.next();
      if (step.done) {
        expect(step.value).toMatchObject({ subtype: 'success', resultText: 'done' });
        break;
      }
      seen.push(step.value);
    }
    // Each block as it completes (assistant_block), then the whole reply.
    expect(types(seen)).toEqual(['assistant_block', 'assistant', 'tool_result', 'assistant_block', 'assistant']);

    const m2 = model([toolUse('Echo', { say: 'a' }), text('done')]);
    const gen2 = new RunDriver([{ role: 'user', content: 'go' }]).run(loopConfig([echo], { callModel: m2.callModel }));
    await gen2.next();
    await expect(gen2.return(undefined as never)).resolves.toMatchObject({ done: true });
  });
});
