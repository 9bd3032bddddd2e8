// How long a permission question may wait for its answer (a person may be deciding): the host's
// can_use_tool, and a teammate's question to its lead. Read when asked, not at load: the start-up
// snapshot (scripts/snapshot.cjs) keeps what loading read.
const DEFAULT_MS = 10 * 60_000;

/** AGENT_PERMISSION_TIMEOUT_MS, else 10 minutes. */
export function permissionTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.AGENT_PERMISSION_TIMEOUT_MS) || DEFAULT_MS;
}
