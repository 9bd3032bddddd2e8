// A fault in the turn around the run (a slash command, a hook before the run) is made into the
// turn's result by the run driver's one implementation (faultOutcome): an error result, one stderr
// line, and an interrupted result when the turn had been interrupted.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LoopOutcome } from '../../../src/loop/events.js';
import { SessionRunner, type SessionHooks, type SessionSettings } from '../../../src/session/runner.js';
import type { SessionEvent } from '../../../src/session/events.js';

const settings: SessionSettings = {
  sessionId: 'runner-fault-test',
  cwd: process.cwd(),
  model: 'claude-opus-5-5',
  includePartialMessages: false,
  tools: () => [],
  mcpServers: [],
  agents: [],
  apiKeySource: 'none',
  version: '0.0.0-test',
};

/** One turn of `prompt` whose slash command runs `command`; its result's outcome, what stderr and reportError got. */
async function faultingTurn(command: (runner: SessionRunner) => never) {
  const stderr: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
  const reported: string[] = [];
  const outcomes: LoopOutcome[] = [];
  let runner: SessionRunner | undefined;
  const hooks: SessionHooks = {
    systemPrompt: () => [],
    pipeline: () => {
      throw new Error('the turn never reaches the loop');
    },
    permissionMode: () => 'default',
    callModel: () => {
      throw new Error('the turn never reaches the model');
    },
    sentModelId: (model) => model,
    reportError: (t) => reported.push(t),
    slashCommand: async () => command(runner!),
  };
  runner = new SessionRunner(settings, hooks, async (ev: SessionEvent) => {
    if (ev.type === 'result') outcomes.push(ev.result.outcome);
  });
  runner.submit('/boom');
  runner.endInput();
  await runner.run();
  return { outcomes, stderr, reported };
}

describe('a fault in a session turn', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is the turn error result and one stderr line', async () => {
    const { outcomes, stderr, reported } = await faultingTurn(() => {
      throw new Error('the command broke');
    });
    expect(outcomes).toEqual([
      expect.objectContaining({
        subtype: 'error_during_execution',
        resultText: 'Internal error: the command broke',
        errors: ['Internal error: the command broke'],
      }),
    ]);
    expect(outcomes[0].interrupted).toBeUndefined();
    expect(stderr).toEqual(['agent: internal error: the command broke\n']);
    expect(reported).toEqual(['Internal error: the command broke']);
  });

  it('is an interrupted result, not reported as an error, when the turn had been interrupted', async () => {
    const { outcomes, stderr, reported } = await faultingTurn((runner) => {
      expect(runner.interrupt()).toBe(true);
      throw new Error('cut short');
    });
    expect(outcomes).toEqual([
      expect.objectContaining({ subtype: 'error_during_execution', resultText: 'Internal error: cut short' }),
    ]);
    expect(outcomes[0].interrupted).toBe(true);
    expect(stderr).toEqual(['agent: internal error: cut short\n']);
    expect(reported).toEqual([]);
  });
});
