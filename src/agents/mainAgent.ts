// `--agent NAME` (the SDK's `agent` option): the main thread runs as a named agent — its prompt
// replaces the default system prompt, its tool list narrows the offered tools, its model is the
// session's unless --model was given. The SDK sends its `agents` in initialize, after the flags, so
// the name is looked up when the first run starts (or at start when no initialize can come).
import type { AgentDef } from './definitions.js';

export class UnknownMainAgentError extends Error {}

export function findMainAgent(name: string, lookup: (name: string) => AgentDef | undefined, known: string[]): AgentDef {
  const def = lookup(name);
  if (!def)
    throw new UnknownMainAgentError(
      `--agent ${name}: no agent of that name (this session has: ${known.join(', ') || 'none'})`,
    );
  return def;
}

/** Whether the agent may use this tool: its `tools` list (names, or `Name(…)` rules) and `disallowedTools`. */
export function agentAllowsTool(def: AgentDef, toolName: string): boolean {
  const base = (entry: string) => entry.replace(/\(.*$/, '').trim();
  if (def.disallowedTools?.some((d) => base(d) === toolName)) return false;
  if (def.tools === undefined || def.tools.includes('*')) return true;
  return def.tools.some((t) => base(t) === toolName);
}
