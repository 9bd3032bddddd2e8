// acceptEdits for shell commands: the file-system commands (mkdir, touch, rm, rmdir, mv, cp, sed)
// run without asking when every path they touch lies inside the working directories, as the
// reference's acceptEdits does. Measured against the reference: in a compound, read-only parts
// (`touch x && ls`) and output redirects to files inside the working directories
// (`touch x; echo hi > y`) go along; any other command (chmod, ln, npm …) still asks, and so does
// anything we cannot read as plain words (substitutions, `$VAR` or `~user` in a path, heredocs).
// Deny and ask rules are checked before this, so they still win.
import { type ParsedBash, pathArguments, type SimpleCommand } from '../util/shellCommand.js';
import { expandGlob, inWorkingDirs, resolvePath, type WorkingDir } from './paths.js';
import { isReadOnlyBashCommand } from '../../tools/bashReadOnly.js';

const FILE_COMMANDS = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'mv', 'cp', 'sed']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export type AcceptEditsShell =
  | { allowed: true }
  /** `outside`: the first path that lies outside the working directories, when that is the reason. */
  | { allowed: false; outside?: string };

/** The operands of a file command that name paths (sed's script is not one). */
function pathOperands(name: string, part: SimpleCommand): string[] {
  const { reads, writes } = pathArguments(part);
  if (name !== 'sed') return [...reads, ...writes];
  // sed: the first operand is the script unless one came with -e/--expression or -f/--file.
  const args = part.words.slice(1);
  const operands: string[] = [];
  let scriptGiven = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-e' || a === '--expression' || a === '-f' || a === '--file') {
      scriptGiven = true;
      if (a === '-f' || a === '--file') operands.push(args[i + 1] ?? '');
      i++;
      continue;
    }
    if (a.startsWith('--expression=')) {
      scriptGiven = true;
      continue;
    }
    if (a.startsWith('--file=')) {
      scriptGiven = true;
      operands.push(a.slice('--file='.length));
      continue;
    }
    if (a.startsWith('-') && a !== '-') continue;
    operands.push(a);
  }
  const files = scriptGiven ? operands : operands.slice(1);
  return [...files, ...writes];
}

/** A path whose shell expansion we cannot see: `$HOME/x`, `~user/x`, `{a,/etc}`. */
function opaque(arg: string): boolean {
  return /[$`{]/.test(arg) || (arg.startsWith('~') && arg !== '~' && !arg.startsWith('~/'));
}

/** The first path outside the working directories, '' for a path we cannot judge, or undefined. */
function outsidePath(args: string[], cwd: string, dirs: WorkingDir[]): string | undefined {
  for (const arg of args) {
    if (arg === '' || opaque(arg)) return '';
    const candidates = /[*?[]/.test(arg) ? [arg, ...expandGlob(arg, cwd)] : [arg];
    for (const c of candidates) {
      const p = resolvePath(c, cwd);
      if (!inWorkingDirs(p, dirs)) return p.real;
    }
  }
  return undefined;
}

function partAllowed(part: SimpleCommand, cwd: string, dirs: WorkingDir[]): AcceptEditsShell {
  const [name] = part.words;
  if (name === undefined || ASSIGNMENT.test(name)) return { allowed: false };
  if (FILE_COMMANDS.has(name)) {
    const out = outsidePath(pathOperands(name, part), cwd, dirs);
    return out === undefined ? { allowed: true } : { allowed: false, ...(out ? { outside: out } : {}) };
  }
  // A read-only command, perhaps writing its output to a file inside the working directories.
  const withoutRedirects: SimpleCommand = { words: part.words, redirects: [], writesFile: false };
  if (!isReadOnlyBashCommand(part.words.map(shellWord).join(' ')) || !partReadOnlyWords(withoutRedirects)) {
    return { allowed: false };
  }
  const out = outsidePath([...pathArguments(part).reads, ...pathArguments(part).writes], cwd, dirs);
  return out === undefined ? { allowed: true } : { allowed: false, ...(out ? { outside: out } : {}) };
}

/** Read-only judged on the words alone: no assignment prefix (`PAGER=… git log`). */
function partReadOnlyWords(part: SimpleCommand): boolean {
  return part.words.length > 0 && !ASSIGNMENT.test(part.words[0]);
}

/** One word quoted for the shell again, so the read-only check parses it as the same word. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Would acceptEdits let this whole command run? Every part must pass. */
export function acceptEditsAllowsShell(parsed: ParsedBash, cwd: string, dirs: WorkingDir[]): AcceptEditsShell {
  if (parsed.unsafe.length > 0 || parsed.parts.length === 0) return { allowed: false };
  // Something must write: a command that only reads is not acceptEdits' business.
  if (!parsed.parts.some((p) => FILE_COMMANDS.has(p.words[0] ?? '') || p.writesFile)) return { allowed: false };
  for (const part of parsed.parts) {
    const verdict = partAllowed(part, cwd, dirs);
    if (!verdict.allowed) return verdict;
  }
  return { allowed: true };
}
