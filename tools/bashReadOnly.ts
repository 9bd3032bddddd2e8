// Is a Bash command read-only, so that it may run beside other calls of the same turn? Decided on
// the same parse the permission rules use (bashCommand.ts): read-only when every simple command
// in it is on the list below, with its dangerous options absent, no output redirection to a file,
// and every command substitution read-only itself. Anything unsure is not read-only: a wrong "no"
// costs a little time, a wrong "yes" could run a write beside a read.
//
// This only decides concurrency; permissions are decided elsewhere and are not loosened by it.
import { parseBashCommand, type SimpleCommand } from '../src/util/shellCommand.js';

const MAX_DEPTH = 3;

/** Commands that only read, whatever their arguments (unless a check below says otherwise). */
const PLAIN = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'pwd',
  'stat',
  'file',
  'du',
  'df',
  'which',
  'whoami',
  'id',
  'uname',
  'echo',
  'printf',
  'sleep',
  'true',
  'false',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'tree',
  'cut',
  'tr',
  'nl',
  'od',
  'hexdump',
  'jq',
  'diff',
  'cmp',
  'comm',
  'seq',
  'printenv',
  'type',
  'ps',
  'test',
  '[',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'column',
  'fold',
  'rev',
  'paste',
  'expr',
  'hostname',
  'nproc',
  'uptime',
  'free',
  'locale',
  'tac',
  'strings',
  'env',
]);

/** Per-command checks of the arguments, for commands that can write or run code with some options. */
const CHECKS: Record<string, (args: string[]) => boolean> = {
  // `env CMD` runs CMD: only a bare `env` (print the environment) is read-only.
  env: (a) => a.length === 0,
  rg: (a) => !a.some((x) => x === '--pre' || x.startsWith('--pre=')),
  find: (a) => !a.some((x) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(x)),
  sort: (a) => !a.some((x) => x === '-o' || x.startsWith('--output') || /^-[a-zA-Z]*o/.test(x)),
  // `uniq IN OUT` writes OUT.
  uniq: (a) => a.filter((x) => !x.startsWith('-')).length <= 1,
  date: (a) => !a.some((x) => x === '-s' || x.startsWith('--set')),
  xxd: (a) => !a.includes('-r') && a.filter((x) => !x.startsWith('-')).length <= 1,
  git: gitReadOnly,
};

const GIT_READ = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'blame',
  'describe',
  'shortlog',
  'cat-file',
  'grep',
  'ls-tree',
  'merge-base',
  'reflog',
]);
const GIT_BRANCH_WRITES =
  /^(-d|-D|-m|-M|-c|-C|-f|-u|--delete|--move|--copy|--force|--set-upstream-to.*|--unset-upstream|--edit-description|--track.*|--no-track)$/;

function gitReadOnly(args: string[]): boolean {
  let i = 0;
  // Global options: only these; `-c key=value` could point a pager or an alias at any program.
  for (;;) {
    if (args[i] === '--no-pager') i++;
    else if (args[i] === '-C' && args[i + 1] !== undefined) i += 2;
    else break;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (rest.some((x) => x.startsWith('--output') || x === '--ext-diff' || x.startsWith('--exec'))) return false;
  if (sub === undefined) return false;
  if (GIT_READ.has(sub)) return sub !== 'reflog' || rest.length === 0 || rest[0] === 'show';
  // Listing only: a name argument would create a branch or tag.
  if (sub === 'branch') return rest.every((x) => x.startsWith('-') && !GIT_BRANCH_WRITES.test(x));
  if (sub === 'tag') return rest.every((x) => x === '-l' || x === '--list' || x === '-n');
  if (sub === 'remote') return rest.every((x) => x === '-v' || x === '--verbose');
  if (sub === 'stash') return rest[0] === 'list' || rest[0] === 'show';
  if (sub === 'config')
    return (
      rest.length > 0 &&
      rest.every((x) => x === '--get' || x === '--list' || x === '-l' || x === '--get-all' || !x.startsWith('-')) &&
      (rest.includes('--get') || rest.includes('--list') || rest.includes('-l') || rest.includes('--get-all'))
    );
  return false;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function partReadOnly(part: SimpleCommand): boolean {
  if (part.writesFile) return false;
  // `<<` heredocs are flagged unsafe by the parser; `<` and `<<<` only feed stdin.
  let words = part.words;
  while (words.length > 0 && ASSIGNMENT.test(words[0])) words = words.slice(1);
  if (words.length === 0) return part.redirects.length === 0;
  const [name, ...args] = words;
  if (name.includes('$') || name.includes('/')) return false;
  const check = CHECKS[name];
  if (check) return check(args);
  return PLAIN.has(name);
}

/** Command substitutions are judged on their bodies; every other hidden construct is a "no". */
const SUBSTITUTION = /command substitution$/;

export function isReadOnlyBashCommand(command: string, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  const parsed = parseBashCommand(command);
  if (parsed.parts.length === 0) return false;
  if (parsed.unsafe.some((u) => !SUBSTITUTION.test(u))) return false;
  if (!parsed.parts.every(partReadOnly)) return false;
  // (The parser also reports a closing backtick as an empty substitution: empty runs nothing.)
  return parsed.substitutions.every((s) => s.trim() === '' || isReadOnlyBashCommand(s, depth + 1));
}
