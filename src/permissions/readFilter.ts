// What a search may show: a Grep or Glob rooted above a denied folder walks into it, so each file
// it reports is checked against the Read deny rules before the model sees it.
import { patternMatchesEither, resolvePath } from './paths.js';
import { READ_RULE_NAMES } from '../../tools/tool.js';
import type { PermissionState } from './state.js';

/** A predicate for absolute paths, or undefined when no Read-family deny rule names a path. */
export function readableFilter(state: PermissionState): ((absPath: string) => boolean) | undefined {
  const rules = state.rules.deny.filter((e) => READ_RULE_NAMES.has(e.rule.toolName) && e.path);
  if (rules.length === 0) return undefined;
  return (absPath) => {
    const p = resolvePath(absPath, state.cwd);
    return !rules.some((e) => state.pathsOf(e).some((pp) => patternMatchesEither(pp, p)));
  };
}
