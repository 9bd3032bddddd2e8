// The built-in tools a session offers: --tools picks the set, plain names in --disallowedTools
// remove tools, and a tool the reference has but this build does not is an error, never a silent
// omission.
import { toolAnswersTo } from '../../tools/registry.js';
import type { Tool } from '../../tools/tool.js';
import type { CliOptions } from '../cli/options.js';
import { toolRefusedBy } from '../loop/providers/features.js';
import type { ApiProvider } from '../loop/providers/select.js';
import { debugLog, logWarning } from '../util/log.js';

/** Tools the reference offers that this build does not have yet. */
const NOT_BUILT_TOOLS: ReadonlySet<string> = new Set(['SlashCommand']);

/**
 * Throws naming a tool that is not built; an unknown name is told on stderr and ignored. A tool the
 * provider cannot serve (WebSearch on Bedrock) is left out: told on stderr when --tools names it,
 * else in the debug log only (the reference leaves it out without a word).
 */
export function selectTools(
  all: Tool[],
  o: Pick<CliOptions, 'tools' | 'disallowedTools'>,
  provider: ApiProvider = 'firstParty',
): Tool[] {
  let tools = all.filter((t) => {
    const why = toolRefusedBy(provider, t.name);
    if (!why) return true;
    const asked = o.tools?.split(/[ ,]+/).some((n) => toolAnswersTo(t, n)) === true;
    if (asked) logWarning(`--tools: ${t.name} is not offered: ${why}`);
    else debugLog('api', () => `${t.name} is not offered: ${why}`);
    return false;
  });
  const offered = tools;
  if (o.tools !== undefined && o.tools !== 'default') {
    const wanted = new Set(o.tools.split(/[ ,]+/).filter(Boolean));
    const unbuilt = [...wanted].filter((n) => NOT_BUILT_TOOLS.has(n));
    if (unbuilt.length)
      throw new Error(`--tools: ${unbuilt.join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not built yet`);
    const unknown = [...wanted].filter((n) => !all.some((t) => toolAnswersTo(t, n)));
    if (unknown.length) logWarning(`--tools: unknown tool(s) ignored: ${unknown.join(', ')}`);
    tools = offered.filter((t) => [...wanted].some((n) => toolAnswersTo(t, n)));
  }
  const removed = o.disallowedTools.filter((r) => !r.includes('('));
  return tools.filter((t) => !removed.some((n) => toolAnswersTo(t, n)));
}
