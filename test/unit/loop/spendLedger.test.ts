// The session's one spend ledger: every call recorded once, whoever made it; results take what
// came since the last one; merging accumulators never counts a call again.
import { describe, expect, it } from 'vitest';
import { SpendLedger } from '../../../src/loop/spendLedger.js';
import { UsageAccumulator } from '../../../src/loop/usage.js';

// claude-opus-5-5: $4 per million input tokens.
const M = 'claude-opus-5-5';

describe('spend ledger', () => {
  it('each run records its calls once; merging a run into another adds nothing to the ledger', () => {
    const spend = new SpendLedger();
    const turn = spend.account();
    const agent = spend.account();
    turn.add(M, { input_tokens: 250_000 });
    agent.add(M, { input_tokens: 125_000 });
    expect(spend.spentUsd).toBe(1.5);
    // A teammate's total merges its runs: the ledger is not told again.
    new UsageAccumulator(spend).merge(agent);
    turn.merge(agent);
    expect(spend.spentUsd).toBe(1.5);
    expect(turn.totalCostUSD).toBe(1.5);
  });

  it('a result takes what was recorded since the last result; the session total stays', () => {
    const spend = new SpendLedger();
    const background = spend.account();
    spend.account().add(M, { input_tokens: 250_000, output_tokens: 10 });
    background.add('claude-haiku-4-5', { input_tokens: 1_000 });
    const first = spend.takeUnreported();
    expect(first.totals()).toMatchObject({ input_tokens: 251_000, output_tokens: 10 });
    expect(Object.keys(first.modelUsage()).sort()).toEqual(['claude-haiku-4-5', M]);
    // The background agent goes on after the result: its later calls are the next result's.
    background.add('claude-haiku-4-5', { input_tokens: 2_000 });
    const second = spend.takeUnreported();
    expect(second.totals().input_tokens).toBe(2_000);
    expect(Object.keys(second.modelUsage())).toEqual(['claude-haiku-4-5']);
    expect(spend.takeUnreported().totalCostUSD).toBe(0);
    expect(spend.spentUsd).toBeCloseTo(first.totalCostUSD + second.totalCostUSD, 12);
  });
});
