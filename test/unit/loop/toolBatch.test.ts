// The streaming tool executor (src/loop/toolBatch.ts) on its own, in memory: calls arrive one by
// one as their tool_use blocks complete, and the test decides when each tool finishes (gates, no
// sleeps), so every ordering rule is checked at the exact moment it matters:
// - a concurrency-safe call starts at once unless an earlier not-safe call is unfinished;
// - any other call waits for every earlier call of the turn;
// - results come back in block order, whatever order the calls finished in;
// - a call starts when it is added, before the reply (finish) is complete.
// Then, through the loop with the in-memory model: a tool starts while the reply still streams.
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolExecutor } from '../../../src/loop/toolBatch.js';
import type { LoopEvent } from '../../../src/loop/events.js';
import type { BatchOutcome } from '../../../src/loop/toolBatch.js';
import { agentLoop } from '../../../src/loop/agentLoop.js';
import { defineTool, type Tool } from '../../../tools/tool.js';
import { text } from '../../fake-api/server.js';
import { loopConfig } from './loopHarness.js';
import { scriptedModel } from './scriptedModel.js';

let log: string[] = [];
let gates = new Map<string, () => void>();

/** A tool that logs its start, then waits until the test opens its gate (or the run aborts). */
function gated(name: string, concurrencySafe: boolean): Tool {
  return defineTool({
    name,
    description: `waits for its gate (${name})`,
    inputSchema: z.object({ tag: z.string() }),
    isReadOnly: () => concurrencySafe,
    isConcurrencySafe: () => concurrencySafe,
    async *call(input, ctx) {
      log.push(`start ${input.tag}`);
      await new Promise<void>((resolve) => {
        gates.set(input.tag, resolve);
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      log.push(`end ${input.tag}`);
      return { content: `done ${input.tag}`, data: { tag: input.tag } };
    },
  }) as Tool;
}

const tools = [gated('Safe', true), gated('Unsafe', false)];
const block = (name: 'Safe' | 'Unsafe', tag: string) => ({ id: `toolu_${tag}`, name, input: { tag } });

/** Lets started calls run up to their gates (a few event-loop turns). */
const settle = () => new Promise<void>((r) => setTimeout(r, 5));

async function open(tag: string): Promise<void> {
  await settle();
  const gate = gates.get(tag);
  if (!gate) throw new Error(`${tag} has not started (log: ${log.join(', ')})`);
  gate();
  await settle();
}

/** Drains finish(): its events, and the outcome. */
function finishAll(exec: ToolExecutor, blocks: ReturnType<typeof block>[]) {
  const events: LoopEvent[] = [];
  const done = (async (): Promise<BatchOutcome> => {
    const gen = exec.finish(blocks);
    for (;;) {
      const step = await gen.next();
      if (step.done) return step.value;
      events.push(step.value);
    }
  })();
  return { events, done };
}

beforeEach(() => {
  log = [];
  gates = new Map();
});

describe('ToolExecutor', () => {
  it('starts a call as soon as it is added, before the turn is finished', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    exec.add(block('Safe', 'a'));
    await settle();
    expect(log).toEqual(['start a']);
    expect(exec.startedCount).toBe(1);
    await open('a');
    const { done } = finishAll(exec, [block('Safe', 'a')]);
    expect((await done).results.map((r) => r.content)).toEqual(['done a']);
  });

  it('runs concurrency-safe calls together, even when they arrive apart', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    exec.add(block('Safe', 'a'));
    await settle();
    exec.add(block('Safe', 'b'));
    await settle();
    expect(log).toEqual(['start a', 'start b']); // b did not wait for a
    await open('b');
    await open('a');
    const { done } = finishAll(exec, [block('Safe', 'a'), block('Safe', 'b')]);
    expect((await done).results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
  });

  it('starts a not-safe call only after every earlier call has finished, and holds later safe calls behind it', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    const blocks = [block('Safe', 'a'), block('Safe', 'b'), block('Unsafe', 'w'), block('Safe', 'c')];
    for (const b of blocks) exec.add(b);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    await open('a');
    expect(log).toEqual(['start a', 'start b', 'end a']); // w still waits for b
    await open('b');
    expect(log.slice(-2)).toEqual(['end b', 'start w']); // c (safe) waits for the unsafe w
    await open('w');
    expect(log.slice(-2)).toEqual(['end w', 'start c']);
    await open('c');
    const { done } = finishAll(exec, blocks);
    expect((await done).results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_w', 'toolu_c']);
  });

  it('runs two not-safe calls one after the other', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    const blocks = [block('Unsafe', 'x'), block('Unsafe', 'y')];
    const { done } = finishAll(exec, blocks);
    await settle();
    expect(log).toEqual(['start x']);
    await open('x');
    expect(log).toEqual(['start x', 'end x', 'start y']);
    await open('y');
    await done;
  });

  it('keeps block order in the results and tool_result events when later calls finish first', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    const blocks = [block('Safe', 'a'), block('Safe', 'b'), block('Safe', 'c')];
    const { events, done } = finishAll(exec, blocks);
    await open('c');
    await open('b');
    await open('a');
    expect(log.filter((l) => l.startsWith('end'))).toEqual(['end c', 'end b', 'end a']);
    const outcome = await done;
    expect(outcome.results.map((r) => r.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
    expect(outcome.data).toEqual([{ tag: 'a' }, { tag: 'b' }, { tag: 'c' }]);
    const resultEvents = events
      .filter((e) => e.type === 'tool_result')
      .map((e) => (e as { block: { tool_use_id: string } }).block.tool_use_id);
    expect(resultEvents).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
  });

  it('never runs a call twice: a block added again, or given again to finish, is the same call', async () => {
    const exec = new ToolExecutor(loopConfig(tools), null);
    exec.add(block('Safe', 'a'));
    exec.add(block('Safe', 'a'));
    const { done } = finishAll(exec, [block('Safe', 'a')]);
    await open('a');
    expect((await done).results).toHaveLength(1);
    expect(log).toEqual(['start a', 'end a']);
  });

  it('answers calls that had not started with "Interrupted by user" after an abort', async () => {
    const ctl = new AbortController();
    const exec = new ToolExecutor(loopConfig(tools, { signal: ctl.signal }), null);
    const blocks = [block('Unsafe', 'x'), block('Unsafe', 'y')];
    const { done } = finishAll(exec, blocks);
    await settle();
    ctl.abort();
    const outcome = await done;
    expect(log).toEqual(['start x', 'end x']); // y never started
    expect(outcome.results[1]).toMatchObject({
      tool_use_id: 'toolu_y',
      is_error: true,
      content: 'Interrupted by user',
    });
  });

  it('delivers every event a call produced, also those that came while the consumer was busy and the call then ended', async () => {
    // An MCP tool reports progress twice and returns at once; the host-side consumer is slow. The
    // second progress and the call's end both land while the first event is being handled: the
    // second must still come out before the result (it was once dropped, a host saw one of two).
    const reporting = defineTool({
      name: 'Reporting',
      description: 'reports progress twice, then returns',
      inputSchema: z.object({ tag: z.string() }),
      isReadOnly: () => false,
      isConcurrencySafe: () => false,
      async *call() {
        yield { type: 'progress' };
        yield { type: 'progress' };
        return { content: 'reported' };
      },
    }) as Tool;
    const exec = new ToolExecutor(loopConfig([reporting]), null);
    const gen = exec.finish([{ id: 'toolu_r', name: 'Reporting', input: { tag: 'r' } }]);
    const types: string[] = [];
    for (;;) {
      const step = await gen.next();
      if (step.done) break;
      types.push(step.value.type);
      await settle(); // the consumer handles each event slowly
    }
    expect(types).toEqual(['tool_progress', 'tool_progress', 'tool_result']);
  });
});

describe('the loop with a streamed reply', () => {
  it('starts a tool when its block completes, while the next block is still streaming', async () => {
    const model = scriptedModel((_req, i) =>
      i === 0
        ? {
            content: [
              { type: 'tool_use', id: 'toolu_a', name: 'Safe', input: { tag: 'a' } },
              { type: 'tool_use', id: 'toolu_b', name: 'Safe', input: { tag: 'b' } },
            ],
            chunkDelayMs: 60,
          }
        : text('done'),
    );
    const cfg = loopConfig(tools, { callModel: model.callModel });
    const gen = agentLoop([{ role: 'user', content: 'go' }], cfg);
    // Each gate opens as soon as its tool starts, so the turn can finish.
    const opener = setInterval(() => {
      for (const [tag, g] of gates) {
        g();
        gates.delete(tag);
      }
    }, 5);
    try {
      for (;;) {
        const step = await gen.next();
        if (step.done) {
          expect(step.value.subtype).toBe('success');
          break;
        }
        const ev = step.value;
        if (ev.type === 'stream_event' && (ev.event.type === 'content_block_start' || ev.event.type === 'message_stop'))
          log.push(`${ev.event.type}${ev.event.type === 'content_block_start' ? ` ${ev.event.index}` : ''}`);
        if (ev.type === 'assistant') log.push('assistant message');
      }
    } finally {
      clearInterval(opener);
    }
    // a started before block 1 had even begun streaming; b before the reply was complete.
    expect(log.indexOf('start a')).toBeGreaterThan(log.indexOf('content_block_start 0'));
    expect(log.indexOf('start a')).toBeLessThan(log.indexOf('content_block_start 1'));
    expect(log.indexOf('start b')).toBeLessThan(log.indexOf('assistant message'));
  });
});
