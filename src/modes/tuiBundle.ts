// Loads the terminal UI's bundle (dist/tui.cjs) as bin/agent loads the CLI's: one CommonJS file run
// through a V8 code cache kept beside it (dist/tui.cache), so the first frame skips parsing and
// compiling most of Ink and React. Node 20 keeps no compile cache for ES modules, and importing
// one also sets up its ESM loader, which a CommonJS start never pays for. The cache is made at
// build time by a real interactive run (scripts/warm-cache.mjs) and remade at exit whenever V8
// rejects it (another Node version) or it is missing; a missing or unwritable cache only costs speed.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

export type TuiModule = typeof import('../tui/main.js');

/** `AGENT_CODE_CACHE`: `off` reads and writes no cache, `write` rewrites it at exit (the build's warm-up). */
export function loadTuiBundle(file: string, cacheFile: string, env: NodeJS.ProcessEnv = process.env): TuiModule {
  const source = readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  if (env.AGENT_CODE_CACHE !== 'off') {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      /* not made yet: compiled from source, and the cache is written at exit */
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  if (
    env.AGENT_CODE_CACHE === 'write' ||
    (env.AGENT_CODE_CACHE !== 'off' && (!cachedData || script.cachedDataRejected))
  )
    // At exit the cache also holds the functions this run compiled (the first frame's), not just the top level.
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        /* read-only install: run without a cache */
      }
    });
  const mod = { exports: {} };
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
  return mod.exports as TuiModule;
}
