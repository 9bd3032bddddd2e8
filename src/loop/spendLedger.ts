// The session's one spend ledger. Every model call of the session is recorded here once, when its
// usage arrives, whichever run made it: the main turn, a foreground or background subagent, a fork,
// a teammate, a side call (WebFetch, WebSearch, compaction, a progress summary, a prompt
// suggestion). The budget check reads what the session has spent. Each result reports, as the
// reference does (measured: two turns of $0.00315 report 0.00315, then 0.0063), the session's
// running totals in `total_cost_usd` and `modelUsage`, and in `usage` what was recorded since the
// result before it. A run's own accumulator (its task row, its tool result) is
// made by `account()`, so its calls reach the ledger as they are counted, and merging accumulators
// never counts a call twice.
import { type ApiUsage, UsageAccumulator, type UsageSink } from './usage.js';

export class SpendLedger implements UsageSink {
  private readonly session = new UsageAccumulator();
  private unreported = new UsageAccumulator();

  /** An accumulator for one run (or side call) whose every call is also recorded here. */
  account(): UsageAccumulator {
    return new UsageAccumulator(this);
  }

  /** One call's usage (UsageAccumulator.addUsage calls it). */
  record(model: string, usage: ApiUsage | null | undefined): void {
    this.session.addUsage(model, usage);
    this.unreported.addUsage(model, usage);
  }

  /** What the session has spent so far, every run's calls included (the budget's measure, /cost). */
  get spentUsd(): number {
    return this.session.totalCostUSD;
  }

  /** The session's running per-model totals (every result's `modelUsage`). */
  get sessionTotals(): UsageAccumulator {
    return this.session;
  }

  /** What was recorded since the last call (a result's `usage`); starts afresh. */
  takeUnreported(): UsageAccumulator {
    const taken = this.unreported;
    this.unreported = new UsageAccumulator();
    return taken;
  }
}
