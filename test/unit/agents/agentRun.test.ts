// The one end of a subagent task (AgentRun.end): which end a task gets from its outcome and its
// abort, and what it says; and a background run's events to the session, then that end.
import { describe, expect, it } from 'vitest';
import { AgentRun, type AgentRunDeps } from '../../../src/agents/agentRun.js';
import type { Prepared } from '../../../src/agents/prepareAgent.js';
import { makeOutcome, type LoopEvent, type LoopOutcome } from '../../../src/loop/events.js';
import { UsageAccumulator } from '../../../src/loop/usage.js';
import type { TaskEnd } from '../../../src/tasks/registry.js';
import type { Transcript } from '../../../src/transcript/transcript.js';

function setup(aborted = false) {
  const ends: TaskEnd[] = [];
  const emitted: LoopEvent[] = [];
  const deps = {
    registry: { finish: (_id: string, end: TaskEnd) => ends.push(end), progress: () => {} },
    emitEvent: (ev: LoopEvent) => void emitted.push(ev),
  } as unknown as AgentRunDeps;
  const ctl = new AbortController();
  if (aborted) ctl.abort();
  const p = {
    def: { name: 'general-purpose' },
    agentId: 'a1',
    model: 'm',
    history: [{ role: 'user', content: 'go' }],
    cfg: { signal: ctl.signal, usage: new UsageAccumulator() },
    parent: { pipeline: {} },
  } as unknown as Prepared;
  const transcript = { appendMessage: () => {}, close: () => {} } as unknown as Transcript;
  return { run: new AgentRun(deps, p, 'a1', transcript), ends, emitted };
}

const stop = { stopSummary: 'Agent "x" was stopped' };

describe('AgentRun.end', () => {
  it('a success completes with its final text; an empty one says so when asked', async () => {
    const { run, ends } = setup();
    await run.end(makeOutcome('success', 'done'), stop);
    await run.end(makeOutcome('success', '  '), { ...stop, emptyAnswer: '(nothing)' });
    expect(ends.map((e) => [e.status, e.summary, e.resultText])).toEqual([
      ['completed', 'done', 'done'],
      ['completed', '(nothing)', '(nothing)'],
    ]);
    expect(ends[0].usage).toMatchObject({ toolUses: 0, totalTokens: 0 });
  });

  it('a failure says why; an interrupted run says it was interrupted; no outcome: "Agent failed"', async () => {
    const { run, ends } = setup();
    await run.end(makeOutcome('error_during_execution', 'boom'), stop);
    await run.end(makeOutcome('error_during_execution', 'x', { interrupted: true }), stop);
    await run.end(undefined, stop);
    expect(ends.map((e) => [e.status, e.summary])).toEqual([
      ['failed', 'Agent failed: boom'],
      ['failed', 'Agent was interrupted'],
      ['failed', 'Agent failed'],
    ]);
  });

  it('its own abort ends it stopped; an answer that raced the stop is kept unless the stop wins', async () => {
    const { run, ends } = setup(true);
    await run.end(makeOutcome('error_during_execution', 'x', { interrupted: true }), stop);
    await run.end(makeOutcome('success', 'done'), stop);
    await run.end(makeOutcome('success', 'done'), { ...stop, stopWins: true });
    expect(ends.map((e) => [e.status, e.summary])).toEqual([
      ['stopped', 'Agent "x" was stopped'],
      ['completed', 'done'],
      ['stopped', 'Agent "x" was stopped'],
    ]);
  });

  it('in the background: the events the host may see go to the session, then the one end', async () => {
    const { run, ends, emitted } = setup();
    const text: LoopEvent = {
      type: 'assistant',
      parentToolUseId: 't',
      message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    } as unknown as LoopEvent;
    async function* events(): AsyncGenerator<LoopEvent, LoopOutcome, void> {
      yield text;
      return makeOutcome('success', 'hi');
    }
    await run.inBackground(events(), stop.stopSummary);
    expect(emitted).toEqual([text]);
    expect(ends.map((e) => e.status)).toEqual(['completed']);
  });
});
