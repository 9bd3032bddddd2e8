// The built-in tools a session offers: --tools picks the set, plain names in --disallowedTools
// remove tools, and a tool the reference has but this build does not is an error, never a silent
// omission.
import type { Tool } from '../../tools/tool.js';
import type { CliOptions } from '../cli/options.js';
import { logWarning } from '../util/log.js';

/** Tools the reference offers that this build does not have yet. */
const NOT_BUILT_TOOLS: ReadonlySet<string> = new Set(['SlashCommand']);

/** Throws naming a tool that is not built; an unknown name is told on stderr and ignored. */
export function selectTools(all: Tool[], o: Pick<CliOptions, 'tools' | 'disallowedTools'>): Tool[] {
  let tools = all;
  if (o.tools !== undefined && o.tools !== 'default') {
    const wanted = new Set(o.tools.split(/[ ,]+/).filter(Boolean));
    const unbuilt = [...wanted].filter((n) => NOT_BUILT_TOOLS.has(n));
    if (unbuilt.length)
      throw new Error(`--tools: ${unbuilt.join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not built yet`);
    const unknown = [...wanted].filter((n) => !all.some((t) => t.name === n));
    if (unknown.length) logWarning(`--tools: unknown tool(s) ignored: ${unknown.join(', ')}`);
    tools = all.filter((t) => wanted.has(t.name));
  }
  const removed = new Set(o.disallowedTools.filter((r) => !r.includes('(')));
  return tools.filter((t) => !removed.has(t.name));
}
