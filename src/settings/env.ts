// The settings `env` key: variables set for the whole session, so the runtime itself (e.g.
// CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS) and every child it starts (Bash, hooks, MCP servers) see
// them. Applied once at start, before anything reads the environment or spawns a child.
import type { Settings } from './schema.js';

/** Sets each variable of `settings.env` in `env`; returns the names set, for the debug log. */
export function applySettingsEnv(settings: Settings, env: NodeJS.ProcessEnv): string[] {
  const vars = settings.env ?? {};
  for (const [name, value] of Object.entries(vars)) env[name] = value;
  return Object.keys(vars);
}
