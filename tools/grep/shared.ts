// Grep's shared pieces: the search spec and hit types, limits, rg's --type table and the pattern compiler.
import { ToolError } from '../tool.js';

export type GrepImpl = 'rg' | 'js';

/** Longer matched/context lines are cut: minified files would otherwise fill the output. */
export const GREP_MAX_LINE_CHARS = 500;
/** Files bigger than this are not searched by the JS impl (it reads a file whole). */
export const JS_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Files-mode lists stop growing here. */
export const MAX_FILES = 100_000;
/** A search runs at most this long; what it found by then is returned (content/count: marked timed out). */
export const RG_TIMEOUT_MS = 60_000;

/** What an impl is asked to find. */
export interface SearchSpec {
  /** Directory the search runs in; results are absolute paths under it. */
  root: string;
  /** A single file to search (absolute), or undefined for the whole of `root`. */
  file?: string;
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  globs: string[];
  type?: string;
  before: number;
  after: number;
  signal: AbortSignal;
  /** Files the session may not read are left out of every result. */
  readable?: (absPath: string) => boolean;
}

export interface HitLine {
  line: number;
  text: string;
  match: boolean;
}

export interface FileHits {
  path: string;
  lines: HitLine[];
  /** Matched lines in this file. */
  count: number;
}

export interface ContentResult {
  files: FileHits[];
  timedOut: boolean;
}

export function capLine(text: string): string {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  return t.length > GREP_MAX_LINE_CHARS ? `${t.slice(0, GREP_MAX_LINE_CHARS)} [... line truncated]` : t;
}

/** rg's `--type` definitions for the common types (a subset of `rg --type-list`). */
export const TYPE_GLOBS: Record<string, string[]> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  cpp: [
    '*.[ChH]',
    '*.[ChH].in',
    '*.[ch]pp',
    '*.[ch]pp.in',
    '*.[ch]xx',
    '*.[ch]xx.in',
    '*.cc',
    '*.cc.in',
    '*.hh',
    '*.hh.in',
    '*.inl',
  ],
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  dart: ['*.dart'],
  go: ['*.go'],
  h: ['*.h', '*.hpp'],
  html: ['*.ejs', '*.htm', '*.html'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mkdn'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.phtml'],
  py: ['*.py'],
  ruby: ['*.gemspec', '*.rb', '*.rbw', '.irbrc', 'Gemfile', 'Rakefile', 'config.ru'],
  rust: ['*.rs'],
  scala: ['*.sbt', '*.scala'],
  sh: ['*.bash', '*.csh', '*.ksh', '*.sh', '*.tcsh', '*.zsh'],
  sql: ['*.psql', '*.sql'],
  swift: ['*.swift'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx'],
  txt: ['*.txt'],
  xml: ['*.dtd', '*.rng', '*.sch', '*.xhtml', '*.xjb', '*.xml', '*.xml.dist', '*.xsd', '*.xsl', '*.xslt'],
  yaml: ['*.yaml', '*.yml'],
};

/** Build the JS RegExp for a ripgrep pattern. Unicode mode first (as Rust regex), else plain. */
export function compilePattern(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
  // Rust regex takes leading inline flags, `(?i)foo`; JS only takes them as RegExp flags.
  const inline = /^\(\?([ims]+)\)/.exec(pattern);
  if (inline) {
    pattern = pattern.slice(inline[0].length);
    if (inline[1].includes('i')) ignoreCase = true;
  }
  const dotAll = multiline || inline?.[1].includes('s');
  const flags = (ignoreCase ? 'i' : '') + (multiline ? 'gm' : '') + (dotAll ? 's' : '');
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (err) {
      throw new ToolError(`Invalid regex pattern: ${(err as Error).message}`);
    }
  }
}
