// src/util/log.ts is the one module that writes to stderr: warnings a person reads and the debug
// log (--debug, --debug-file). A scan of the sources keeps it the only one.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DebugLogger, debugLoggerFromFlags, parseDebugFilter } from '../../../src/util/log.js';
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

describe('the logger', () => {
  it('is the only module in src/ and tools/ that writes to stderr', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('tools')]
      .filter((f) => relative(ROOT, join(ROOT, f)) !== join('src', 'util', 'log.ts'))
      .map((f): [string, string] => [f, readFileSync(join(ROOT, f), 'utf8')]);
    expect(files.length).toBeGreaterThan(100);
    expect(strayStderrWrites(files)).toEqual([]);
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
