// A process teammate's handover from its lead. A tmux pane starts with the tmux server's
// environment, not its lead's, and the lead's (its API key among it) must reach it without landing
// on any command line; the agents the lead's host defined (`initialize.agents`) exist only in the
// lead's memory. The lead writes both to a private file (0600, in the 0700 team directory) and
// names the file in AGENT_TEAMMATE_ENV_FILE; the teammate reads it first thing, before its flags,
// and removes it. A detached teammate gets its environment the same way.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';

export const ENV_FILE_VAR = 'AGENT_TEAMMATE_ENV_FILE';

/** What tmux sets for the pane itself: the lead's values would point at the lead's pane. */
const PANE_OWN = new Set(['TMUX_PANE', ENV_FILE_VAR]);

const handoverSchema = lazySchema(() =>
  z.object({
    env: z.record(z.string(), z.string()),
    /** The lead host's agent definitions, as `initialize.agents` gave them. */
    agents: z.record(z.string(), z.unknown()).optional(),
  }),
);

/** The host's agents the last handover carried, until taken (src/app/agentSetup.ts). */
let handedAgents: Record<string, unknown> | undefined;

export function writeTeammateEnv(file: string, env: NodeJS.ProcessEnv, agents?: Record<string, unknown>): void {
  const vars = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && !PANE_OWN.has(k)));
  writeFileSync(file, JSON.stringify({ env: vars, ...(agents ? { agents } : {}) }), { mode: 0o600 });
}

/** Applies and removes the file AGENT_TEAMMATE_ENV_FILE names, if any. Throws naming what is wrong. */
export function applyTeammateEnv(env: NodeJS.ProcessEnv = process.env): void {
  const file = env[ENV_FILE_VAR];
  if (!file) return;
  delete env[ENV_FILE_VAR];
  let handover: z.infer<typeof handoverSchema>;
  try {
    handover = handoverSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new Error(`${ENV_FILE_VAR}: cannot read the environment its lead left in ${file}: ${(err as Error).message}`);
  } finally {
    rmSync(file, { force: true });
  }
  for (const [k, v] of Object.entries(handover.env)) if (!PANE_OWN.has(k)) env[k] = v;
  handedAgents = handover.agents;
}

/** The agents the lead's host defined, handed over with the environment (once; then undefined). */
export function takeHandedAgents(): Record<string, unknown> | undefined {
  const agents = handedAgents;
  handedAgents = undefined;
  return agents;
}
