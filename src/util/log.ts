// The process's one voice on stderr, and the only module that writes there: `agent: …` lines a
// person reads (warnings, skipped input, failures that do not stop the run), and the debug log
// (`--debug [filter]`, `--debug-file PATH`, `--debug-to-stderr`, and AGENT_DEBUG=1 for the stacks of
// internal errors). stdout carries protocol lines only, so nothing here writes there.
// test/unit/util/log.test.ts checks no other module writes to stderr or reads AGENT_DEBUG itself.
import { appendFileSync } from 'node:fs';

/** Writes raw text to stderr (the one place that does); `rest` is `write`'s encoding and callback. */
export function writeStderr(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
  return (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, [chunk, ...rest]);
}

/** One `agent: <message>` line on stderr. */
export function logWarning(message: string): void {
  writeStderr(`agent: ${message}\n`);
}

/**
 * A bug or an environment fault the run survives: one `agent: internal error: …` line, with the
 * stack instead of the message when AGENT_DEBUG=1 asks for it (docs/flags-and-env.md). The
 * variable is read here alone, when an error comes (never at load: the start-up snapshot would keep
 * the build's environment).
 */
export function logInternalError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const withStack = process.env.AGENT_DEBUG === '1' && err instanceof Error && err.stack;
  logWarning(`internal error: ${withStack || message}`);
}

// The debug log: one line per event, tagged with a category (api, hooks, permissions, mcp), to
// stderr or a file. Off by default: `debugLog` is then a cheap no-op.

export type DebugCategory = 'api' | 'hooks' | 'permissions' | 'mcp';

/** "api,hooks" shows only those; "!mcp,!hooks" shows all but those; a mix of both is refused. */
export interface DebugFilter {
  include: string[];
  exclude: string[];
}

export function parseDebugFilter(text: string | undefined): DebugFilter | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const parts = text
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const negated = parts.filter((p) => p.startsWith('!'));
  if (negated.length && negated.length !== parts.length)
    throw new Error(`--debug filter "${text}" mixes included and excluded (!) categories; use one kind`);
  return negated.length ? { include: [], exclude: negated.map((p) => p.slice(1)) } : { include: parts, exclude: [] };
}

export interface DebugSink {
  write(line: string): void;
}

export class DebugLogger {
  constructor(
    private readonly sinks: DebugSink[],
    private readonly filter: DebugFilter | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  enabled(category: DebugCategory): boolean {
    if (!this.sinks.length) return false;
    if (!this.filter) return true;
    if (this.filter.include.length) return this.filter.include.includes(category);
    return !this.filter.exclude.includes(category);
  }

  log(category: DebugCategory, message: string): void {
    if (!this.enabled(category)) return;
    const line = `${this.now().toISOString()} [DEBUG] [${category}] ${message}\n`;
    for (const sink of this.sinks) sink.write(line);
  }
}

let current = new DebugLogger([], undefined);

/** Set once at start from the flags; tests install their own sinks. */
export function setDebugLogger(logger: DebugLogger): void {
  current = logger;
}

export function debugLog(category: DebugCategory, message: string | (() => string)): void {
  if (!current.enabled(category)) return;
  current.log(category, typeof message === 'function' ? message() : message);
}

/** The logger the flags ask for: a file (appended synchronously so nothing is lost at exit), stderr, or both. */
export function debugLoggerFromFlags(o: {
  debug?: string | boolean;
  debugFile?: string;
  debugToStderr?: boolean;
}): DebugLogger {
  const on = o.debug !== undefined || o.debugFile !== undefined || o.debugToStderr === true;
  if (!on) return new DebugLogger([], undefined);
  const filter = parseDebugFilter(typeof o.debug === 'string' ? o.debug : undefined);
  const sinks: DebugSink[] = [];
  if (o.debugFile !== undefined) {
    const path = o.debugFile;
    appendFileSync(path, ''); // fail at start, not silently later, when the file cannot be written
    sinks.push({ write: (line) => appendFileSync(path, line) });
  }
  if (o.debugFile === undefined || o.debugToStderr) sinks.push({ write: writeStderr });
  return new DebugLogger(sinks, filter);
}
