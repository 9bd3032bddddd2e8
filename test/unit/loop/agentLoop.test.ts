// The loop as a library: driven in memory by a scripted model (no HTTP), with tiny fake tools.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LoopConfig } from '../../../src/loop/agentLoop.js';
import { collectLoop, loopConfig } from './loopHarness.js';
import type { HistoryMessage, LoopEvent, LoopOutcome } from '../../../src/loop/events.js';
import { appendUser } from '../../../src/loop/history.js';
import { defineTool, type Tool } from '../../../tools/tool.js';
import { lastUserText, text, type Script } from '../../fake-api/server.js';
import { scriptedModel } from './scriptedModel.js';

const log: string[] = [];

/** A tool that sleeps `ms` and records when it started and ended. */
function sleeper(name: string, concurrencySafe: boolean): Tool {
  return defineTool({
    name,
    description: `sleeps (${name})`,
    inputSchema: z.object({ ms: z.number(), tag: z.string() }),
    isReadOnly: () => concurrencySafe,
    isConcurrencySafe: () => concurrencySafe,
    async *call(input, ctx) {
      log.push(`start ${input.tag}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, input.ms);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
      log.push(`end ${input.tag}`);
      return { content: `slept ${input.tag}`, data: { tag: input.tag } };
    },
  }) as Tool;
}

const tools = [sleeper('SafeSleep', true), sleeper('UnsafeSleep', false)];
let script: Script = [];
let countBefore = 0;
const api = scriptedModel((req, i) =>
  typeof script === 'function' ? (script(req, i) as never) : script[i - countBefore],
);

const config = (over: Partial<LoopConfig> = {}) => loopConfig(tools, { callModel: api.callModel, ...over });

async function drive(
  history: HistoryMessage[],
  cfg: LoopConfig,
): Promise<{ events: LoopEvent[]; outcome: LoopOutcome }> {
  countBefore = api.requests.length;
  return collectLoop(history, cfg);
}

const call = (name: string, tag: string, ms: number) => ({
  type: 'tool_use' as const,
  id: `toolu_${tag}`,
  name,
  input: { ms, tag },
});

describe('agentLoop', () => {
  it('runs consecutive concurrency-safe calls together and the others one at a time, results in block order', async () => {
    log.length = 0;
    script = [
      {
        content: [
          call('SafeSleep', 'a', 150),
          call('SafeSleep', 'b', 50),
          call('UnsafeSleep', 'c', 30),
          call('UnsafeSleep', 'd', 10),
        ],
      },
      text('done'),
    ];
    const history: HistoryMessage[] = [{ role: 'user', content: 'go' }];
    const { events, outcome } = await drive(history, config());
    expect(outcome).toMatchObject({ subtype: 'success', resultText: 'done', numTurns: 2 });
    // a and b overlap; c starts after both; d after c.
    expect(log).toEqual(['start a', 'start b', 'end b', 'end a', 'start c', 'end c', 'start d', 'end d']);
    const results = events
      .filter((e) => e.type === 'tool_result')
      .map((e) => (e as { block: { tool_use_id: string } }).block.tool_use_id);
    expect(results).toEqual(['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d']);
    // One user message carries all four results, in order, back to the model.
    const sent = api.requests[api.requests.length - 1].body.messages[2].content.map(
      (b: { tool_use_id: string }) => b.tool_use_id,
    );
    expect(sent).toEqual(['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d']);
    expect(history).toHaveLength(4);
  });

  it('emits tool_progress at most once a second while a tool runs past two seconds', async () => {
    script = [{ content: [call('UnsafeSleep', 'long', 3300)] }, text('ok')];
    const { events } = await drive([{ role: 'user', content: 'go' }], config());
    const progress = events.filter((e) => e.type === 'tool_progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress.length).toBeLessThanOrEqual(2);
    expect(progress[0]).toMatchObject({ toolUseId: 'toolu_long', toolName: 'UnsafeSleep' });
  }, 10_000);

  it('answers an unknown tool and a schema failure with is_error results and goes on', async () => {
    script = [
      {
        content: [
          { type: 'tool_use', id: 'toolu_x', name: 'NoSuchTool', input: {} },
          { type: 'tool_use', id: 'toolu_y', name: 'SafeSleep', input: { ms: 'soon' } },
        ],
      },
      text('recovered'),
    ];
    const { events, outcome } = await drive([{ role: 'user', content: 'go' }], config());
    const blocks = events
      .filter((e) => e.type === 'tool_result')
      .map((e) => (e as { block: { content: string; is_error?: boolean } }).block);
    expect(blocks[0]).toMatchObject({
      is_error: true,
      content: expect.stringContaining('No such tool available: NoSuchTool'),
    });
    expect(blocks[1]).toMatchObject({ is_error: true, content: expect.stringMatching(/`ms`.*number/) });
    expect(blocks[1].content).toMatch(/The required parameter `tag` is missing/);
    expect(outcome.resultText).toBe('recovered');
  });

  it('feeds a Stop hook block back to the model, with stop_hook_active on the repeat', async () => {
    script = [text('first try'), text('second try')];
    const seen: boolean[] = [];
    const { outcome } = await drive(
      [{ role: 'user', content: 'go' }],
      config({
        stopHook: async (active) => {
          seen.push(active);
          return active ? undefined : { blockReason: 'run the tests first' };
        },
      }),
    );
    expect(seen).toEqual([false, true]);
    expect(outcome.resultText).toBe('second try');
    expect(lastUserText(api.requests[api.requests.length - 1])).toBe('Stop hook feedback:\nrun the tests first');
  });

  it('an abort while tools run ends the run as interrupted, with every tool_use answered', async () => {
    const ac = new AbortController();
    script = [{ content: [call('UnsafeSleep', 'slow', 30_000), call('UnsafeSleep', 'never', 10)] }];
    setTimeout(() => ac.abort(), 100);
    const history: HistoryMessage[] = [{ role: 'user', content: 'go' }];
    const started = Date.now();
    const { outcome } = await drive(history, config({ signal: ac.signal }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome).toMatchObject({ subtype: 'error_during_execution', interrupted: true });
    const answered = (history[2].content as unknown as Array<{ tool_use_id: string }>).map((b) => b.tool_use_id);
    expect(answered).toEqual(['toolu_slow', 'toolu_never']);
  });

  it('validates a tool call once, though the batch, the pipeline and the runner all need it', async () => {
    let checks = 0;
    const counted = defineTool({
      name: 'Counted',
      description: 'counts its validations',
      inputSchema: z.object({ n: z.number() }).refine(() => (checks++, true)),
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      async *call() {
        return { content: 'ok' };
      },
    }) as Tool;
    script = [{ content: [{ type: 'tool_use', id: 'toolu_c', name: 'Counted', input: { n: 1 } }] }, text('done')];
    const { outcome } = await drive(
      [{ role: 'user', content: 'go' }],
      loopConfig([counted], { callModel: api.callModel }),
    );
    expect(outcome.resultText).toBe('done');
    expect(checks).toBe(1);
  });

  it('raises max_tokens above a fixed thinking budget', async () => {
    script = [text('thought')];
    await drive(
      [{ role: 'user', content: 'go' }],
      config({ reasoning: () => ({ thinking: 'enabled', maxThinkingTokens: 5000 }) }),
    );
    const body = api.requests[api.requests.length - 1].body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 5000 });
    expect(body.max_tokens).toBeGreaterThan(5000);
  });
});

describe('appendUser', () => {
  it('keeps roles alternating by merging into a trailing user message', () => {
    const h: HistoryMessage[] = [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }];
    appendUser(h, 'next prompt', []);
    expect(h).toHaveLength(1);
    expect(h[0].content).toEqual([
      { type: 'tool_result', tool_use_id: 't', content: 'x' },
      { type: 'text', text: 'next prompt' },
    ]);
    const fresh: HistoryMessage[] = [];
    appendUser(fresh, 'plain', []);
    expect(fresh).toEqual([{ role: 'user', content: 'plain' }]);
  });
});
