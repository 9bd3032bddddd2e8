import { availableParallelism } from 'node:os';

/** agent() calls running at once, per workflow run (the reference's rule: 2 to 16, two cores left free). */
export function agentConcurrency(cpus = availableParallelism()): number {
  return Math.min(16, Math.max(2, cpus - 2));
}
