// Read-only shell commands run without asking, as in the reference: in `default` mode (and any mode
// that asks) a Bash command whose every part only reads — `ls`, `cat f`, `git status`, `grep x f`,
// `ls && pwd`, `cat f | grep h` — is allowed when every path it names lies inside the working
// directories (the caller checks the paths and asks with blocked_path otherwise). Measured against
// the reference (docs/permissions-and-hooks.md): redirections, command substitutions, `;`-joined
// writes, `find -delete`, `env`, `uniq`, `awk` and unknown commands (`npm test`) still ask. Deny and
// ask rules are decided before this, so they still win. The list of reading commands and their
// argument checks is readOnlyBash.ts's (the one that decides which calls may run side by side).
import { quote } from '../util/shellQuote.js';
import type { SimpleCommand } from '../util/shellCommand.js';
import { isReadOnlyBashCommand } from '../../tools/bashReadOnly.js';

/** Read-only as far as running them goes, but the reference asks about them (measured), and so do we. */
const ASKED_ANYWAY = new Set([
  // The environment may hold secrets.
  'env',
  'printenv',
  // `uniq IN OUT` writes OUT.
  'uniq',
]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** One simple command of a parsed Bash line: does it only read, with nothing redirected? */
export function shellPartOnlyReads(part: SimpleCommand): boolean {
  if (part.writesFile || part.redirects.length > 0) return false;
  const [name] = part.words;
  if (name === undefined || ASSIGNMENT.test(name) || ASKED_ANYWAY.has(name)) return false;
  return isReadOnlyBashCommand(quote(part.words));
}
