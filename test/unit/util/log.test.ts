// src/util/log.ts is the one module that writes to stderr: warnings a person reads and the debug
// log (--debug, --debug-file), and the one that reads AGENT_DEBUG (internal errors' stacks). A scan
// of the sources keeps it the only one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DebugLogger, debugLoggerFromFlags, logInternalError, parseDebugFilter } from '../../../src/util/log.js';
import { makeTempDir } from '../../tempDirs.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Lines that write to stderr by themselves, as `file:line`. */
function strayStderrWrites(files: Array<[string, string]>): string[] {
  const out: string[] = [];
  for (const [file, text] of files)
    text.split('\n').forEach((line, i) => {
      if (/process\.stderr\.write|console\.(error|warn)\s*\(/.test(line)) out.push(`${file}:${i + 1}`);
    });
  return out;
}

/** Lines that read a debug switch from the environment (AGENT_DEBUG, DEBUG) by themselves, as `file:line`. */
function strayDebugReads(files: Array<[string, string]>): string[] {
  const out: string[] = [];
  for (const [file, text] of files)
    text.split('\n').forEach((line, i) => {
      if (/\benv\s*(\.\s*|\[\s*['"`])(AGENT_)?DEBUG\b|\{[^}]*\b(AGENT_)?DEBUG\b[^}]*\}\s*=\s*[\w.]*env\b/.test(line))
        out.push(`${file}:${i + 1}`);
    });
  return out;
}

/** Every source file in src/ and tools/ but the logger, with its text. */
function sourcesButTheLogger(): Array<[string, string]> {
  return [...sourceFiles('src'), ...sourceFiles('tools')]
    .filter((f) => relative(ROOT, join(ROOT, f)) !== join('src', 'util', 'log.ts'))
    .map((f): [string, string] => [f, readFileSync(join(ROOT, f), 'utf8')]);
}

describe('the logger', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('is the only module in src/ and tools/ that writes to stderr', () => {
    const files = sourcesButTheLogger();
    expect(files.length).toBeGreaterThan(100);
    expect(strayStderrWrites(files)).toEqual([]);
  });

  it('is the only module in src/ and tools/ that reads AGENT_DEBUG or DEBUG', () => {
    const files = sourcesButTheLogger();
    expect(files.length).toBeGreaterThan(100);
    expect(strayDebugReads(files)).toEqual([]);
  });

  it('the debug-switch scan sees every way of reading one', () => {
    expect(
      strayDebugReads([
        ['a.ts', "const on = process.env.AGENT_DEBUG === '1';"],
        ['b.ts', "if (env['AGENT_DEBUG']) x();\nconst d = process.env.DEBUG;"],
        ['c.ts', 'const { AGENT_DEBUG } = process.env;'],
        ['d.ts', "// the stack only with AGENT_DEBUG=1\nlogInternalError(err);\nenv.NODE_DEBUG_X = '1';"],
      ]),
    ).toEqual(['a.ts:1', 'b.ts:1', 'b.ts:2', 'c.ts:1']);
  });

  it('tells an internal error in one line, with its stack only when AGENT_DEBUG=1', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const err = new Error('it broke');
    vi.stubEnv('AGENT_DEBUG', '');
    logInternalError(err);
    logInternalError('a thrown string');
    vi.stubEnv('AGENT_DEBUG', '1');
    logInternalError(err);
    logInternalError('a thrown string');
    expect(lines.slice(0, 2)).toEqual([
      'agent: internal error: it broke\n',
      'agent: internal error: a thrown string\n',
    ]);
    expect(lines[2]).toBe(`agent: internal error: ${err.stack}\n`);
    expect(lines[2]).toMatch(/^agent: internal error: Error: it broke\n\s+at /);
    expect(lines[3]).toBe('agent: internal error: a thrown string\n');
  });

  it('the scan sees a direct write and a console.error', () => {
    expect(
      strayStderrWrites([
        ['a.ts', "const x = 1;\nprocess.stderr.write('agent: x\\n');"],
        ['b.tsx', 'console.error("boom")'],
        ['c.ts', "logWarning('fine')"],
      ]),
    ).toEqual(['a.ts:2', 'b.tsx:1']);
  });

  it('debug lines go to the --debug-file, filtered by category', () => {
    const file = join(makeTempDir('agent-log-'), 'debug.txt');
    const logger = debugLoggerFromFlags({ debug: 'api,hooks', debugFile: file });
    logger.log('api', 'request sent');
    logger.log('mcp', 'left out');
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/\[DEBUG\] \[api\] request sent\n$/);
    expect(text).not.toContain('left out');
  });

  it('is off without --debug flags, and refuses a filter that mixes ! and plain categories', () => {
    expect(debugLoggerFromFlags({}).enabled('api')).toBe(false);
    expect(new DebugLogger([{ write: () => {} }], parseDebugFilter('!mcp')).enabled('mcp')).toBe(false);
    expect(() => parseDebugFilter('api,!mcp')).toThrow(/mixes included and excluded/);
  });
});
