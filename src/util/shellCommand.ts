// Splits a Bash command into the simple commands it would run, with shell-quote doing the
// word parsing. shell-quote does not treat a newline as a separator, reads `$(` as a plain `$`
// word plus `(`, keeps backticks inside words and hides `$(…)` inside double quotes; so a small
// quote-aware scan runs first, turns unquoted newlines into `;`, strips comments and flags every
// construct that executes hidden code. A flagged command never matches an allow rule.
import { parse, type ParseEntry } from './shellQuote.js';

export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** Words after expansion-free parsing; `$VAR` stays literal. */
  words: string[];
  redirects: Redirect[];
  /** An output redirect to a real file (not /dev/null, not an fd). */
  writesFile: boolean;
}

export interface ParsedBash {
  parts: SimpleCommand[];
  /** Constructs that run code we cannot see as a simple command (substitutions, heredocs…). */
  unsafe: string[];
  /** Bodies of `$(…)`, backticks and process substitutions, for deny checks. */
  substitutions: string[];
}

interface Scan {
  normalized: string;
  unsafe: string[];
  substitutions: string[];
}

/** Index just past the `)` that closes the `(` at `open`, quote-aware; -1 if unbalanced. */
function closeParen(s: string, open: number): number {
  let depth = 0;
  let single = false;
  let double = false;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (single) {
      if (c === "'") single = false;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'" && !double) single = true;
    else if (c === '"') double = !double;
    else if (!double && c === '(') depth++;
    else if (!double && c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function closeBacktick(s: string, open: number): number {
  for (let i = open + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') return i + 1;
  }
  return -1;
}

const WORD_START_BEFORE = /[\s;&|()<>]/;

function scan(cmd: string): Scan {
  const unsafe: string[] = [];
  const substitutions: string[] = [];
  let out = '';
  let single = false;
  let double = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    const next = cmd[i + 1];
    if (single) {
      out += c;
      if (c === "'") single = false;
      continue;
    }
    if (c === '\\') {
      // A backslash-newline outside single quotes is a line continuation: both vanish.
      if (next === '\n') {
        i++;
        continue;
      }
      out += c + (next ?? '');
      i++;
      continue;
    }
    if (c === '`') {
      unsafe.push('backtick command substitution');
      const end = closeBacktick(cmd, i);
      substitutions.push(cmd.slice(i + 1, end === -1 ? cmd.length : end - 1));
      out += c;
      continue;
    }
    if (c === '$' && next === '(') {
      unsafe.push('$(…) command substitution');
      const end = closeParen(cmd, i + 1);
      substitutions.push(cmd.slice(i + 2, end === -1 ? cmd.length : end - 1));
      out += c;
      continue;
    }
    if (double) {
      out += c;
      if (c === '"') double = false;
      continue;
    }
    if (c === "'") single = true;
    else if (c === '"') double = true;
    else if ((c === '<' || c === '>') && next === '(') {
      unsafe.push('process substitution');
      const end = closeParen(cmd, i + 1);
      substitutions.push(cmd.slice(i + 2, end === -1 ? cmd.length : end - 1));
    } else if (c === '<' && next === '<') {
      // `<<<` is a here-string (a word, harmless); `<<` starts a heredoc whose body we skip.
      if (cmd[i + 2] !== '<') unsafe.push('heredoc');
      const len = cmd[i + 2] === '<' ? 3 : 2;
      out += cmd.slice(i, i + len);
      i += len - 1;
      continue;
    } else if (c === '\n') {
      out += ' ; ';
      continue;
    } else if (c === '#' && (i === 0 || WORD_START_BEFORE.test(cmd[i - 1]))) {
      // A comment runs to the end of the line; quotes inside it mean nothing.
      while (i + 1 < cmd.length && cmd[i + 1] !== '\n') i++;
      continue;
    }
    out += c;
  }
  if (single || double) unsafe.push('unterminated quote');
  return { normalized: out, unsafe, substitutions };
}

const SEPARATORS = new Set(['&&', '||', ';', ';;', '|', '|&', '&', '(', ')', '<(', '>(']);
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '>&']);
const READ_REDIRECTS = new Set(['<', '<&', '<<<', '<<']);

function isFdTarget(op: string, target: string): boolean {
  return (op === '>&' || op === '<&') && /^(\d+|-)$/.test(target);
}

function entryText(e: ParseEntry): string | undefined {
  if (typeof e === 'string') return e;
  if ('op' in e && e.op === 'glob') return (e as { pattern: string }).pattern;
  return undefined;
}

function splitParts(normalized: string, unsafe: string[]): SimpleCommand[] {
  let entries: ParseEntry[];
  try {
    // Keep `$VAR` literal: we judge the text the shell would be given, never our own env.
    entries = parse(normalized, (name) => `$${name}`);
  } catch (err) {
    unsafe.push(`unparseable (${(err as Error).message})`);
    return [];
  }
  const parts: SimpleCommand[] = [];
  let cur: SimpleCommand = { words: [], redirects: [], writesFile: false };
  const flush = () => {
    if (cur.words.length > 0 || cur.redirects.length > 0) parts.push(cur);
    cur = { words: [], redirects: [], writesFile: false };
  };
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const text = entryText(e);
    if (text !== undefined) {
      cur.words.push(text);
      continue;
    }
    if (typeof e !== 'object' || !('op' in e)) continue; // comments are stripped by scan()
    const op = e.op;
    if (SEPARATORS.has(op)) {
      flush();
      continue;
    }
    if (WRITE_REDIRECTS.has(op) || READ_REDIRECTS.has(op)) {
      // `2>&1`: shell-quote hands the fd over as a word of its own.
      const last = cur.words[cur.words.length - 1];
      if (last !== undefined && /^\d+$/.test(last) && cur.words.length > 1) cur.words.pop();
      const nextEntry = entries[i + 1];
      const target = nextEntry === undefined ? undefined : entryText(nextEntry);
      if (target === undefined) {
        unsafe.push(`redirect ${op} without a target`);
        continue;
      }
      i++;
      cur.redirects.push({ op, target });
      if (WRITE_REDIRECTS.has(op) && !isFdTarget(op, target) && target !== '/dev/null') cur.writesFile = true;
      continue;
    }
    unsafe.push(`shell operator ${op}`);
    flush();
  }
  flush();
  return parts;
}

export function parseBashCommand(command: string): ParsedBash {
  const s = scan(command);
  const parts = splitParts(s.normalized, s.unsafe);
  return { parts, unsafe: s.unsafe, substitutions: s.substitutions };
}

/**
 * Every simple command the shell might run, substitutions included (best effort, for deny
 * rules: a hidden `touch X` inside `$(…)` still meets `Bash(touch:*)` denied).
 */
export function allParts(command: string, depth = 0): SimpleCommand[] {
  const parsed = parseBashCommand(command);
  const out = [...parsed.parts];
  if (depth < 5) for (const sub of parsed.substitutions) out.push(...allParts(sub, depth + 1));
  return out;
}

/** A Bash rule's specifier, compiled: prefix (`npm test:*`, `ls *`) or exact words. */
export interface BashPattern {
  words: string[];
  prefix: boolean;
  /** The specifier is itself compound: only the exact same text matches. */
  exactText?: string;
}

export function compileBashPattern(content: string): BashPattern {
  let text = content.trim();
  let prefix = false;
  if (text.endsWith(':*')) {
    prefix = true;
    text = text.slice(0, -2);
  } else if (text.endsWith(' *')) {
    prefix = true;
    text = text.slice(0, -2);
  }
  const parsed = parseBashCommand(text);
  if (parsed.unsafe.length > 0 || parsed.parts.length !== 1 || parsed.parts[0].redirects.length > 0) {
    return { words: [], prefix: false, exactText: normalizeSpaces(content) };
  }
  return { words: parsed.parts[0].words, prefix };
}

function normalizeSpaces(s: string): string {
  return s.trim().replace(/\s+/g, ' ');
}

/** Does one simple command match the pattern? A command writing a file never matches. */
export function partMatches(pattern: BashPattern, part: SimpleCommand): boolean {
  if (pattern.exactText !== undefined) return false;
  if (part.writesFile) return false;
  if (part.words.length < pattern.words.length) return false;
  if (!pattern.prefix && part.words.length !== pattern.words.length) return false;
  return pattern.words.every((w, i) => part.words[i] === w);
}

/** Whole-command match, for compound specifiers (`Bash(git log | head)`). */
export function wholeMatches(pattern: BashPattern, command: string): boolean {
  return pattern.exactText !== undefined && normalizeSpaces(command) === pattern.exactText;
}

/** A rule that would allow this simple command next time: `npm test:*`, `echo:*`. */
export function suggestPrefix(part: SimpleCommand): string {
  const [first, second] = part.words;
  if (second !== undefined && /^[a-z][\w-]*$/.test(second) && SUBCOMMAND_TOOLS.has(first))
    return `${first} ${second}:*`;
  return `${first}:*`;
}

// Commands whose second word is a subcommand worth keeping in a suggested prefix.
const SUBCOMMAND_TOOLS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'npx',
  'git',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'uv',
  'bun',
  'deno',
  'dotnet',
  'gradle',
  'mvn',
]);

/** Arguments of a simple command that may name files (for Read deny rules and working dirs). */
export function pathArguments(part: SimpleCommand): { reads: string[]; writes: string[] } {
  const reads: string[] = [];
  for (const w of part.words.slice(1)) {
    if (w === '' || w === '-' || w === '--') continue;
    if (w.startsWith('-')) {
      const eq = w.indexOf('=');
      if (eq !== -1 && eq < w.length - 1) reads.push(w.slice(eq + 1));
      continue;
    }
    reads.push(w);
  }
  const writes: string[] = [];
  for (const r of part.redirects) {
    if (isFdTarget(r.op, r.target) || r.target === '/dev/null') continue;
    if (WRITE_REDIRECTS.has(r.op)) writes.push(r.target);
    else if (r.op === '<') reads.push(r.target);
  }
  return { reads, writes };
}
