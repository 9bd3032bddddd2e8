// Requires one of the bundles built beside the CLI's (dist/tui.cjs, dist/otel.cjs, dist/sandbox.cjs)
// through a V8 code cache kept next to it (`<name>.cache`), as bin/agent runs the CLI's bundle: a
// start that loads it skips most parsing and compiling (30-40 ms of CPU for otel and sandbox, most
// of the UI's first frame). Node 20 keeps no compile cache for ES modules, and importing one also
// sets up its ESM loader, which a CommonJS start never pays for. The build removes the caches
// (scripts/bundle.mjs) and remakes them by real runs (scripts/warm-cache.mjs); a run whose cache is
// missing or rejected by V8 (another Node version) writes it at exit. A missing or unwritable cache
// only costs speed. `AGENT_CODE_CACHE=off` reads and writes none; `write` rewrites it at exit (the
// build's warm-up). A Script has no module loader: a bundle run so may not use import() (the build
// checks, scripts/bundle.mjs).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

export function requireCachedBundle<T>(file: string, env: NodeJS.ProcessEnv = process.env): T {
  const cacheFile = file.replace(/\.cjs$/, '.cache');
  const useCache = env.AGENT_CODE_CACHE !== 'off';
  let cachedData: Buffer | undefined;
  if (useCache) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      /* not made yet: compiled from source, and the cache is written at exit */
    }
  }
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`,
    {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
    },
  );
  if (env.AGENT_CODE_CACHE === 'write' || (useCache && (!cachedData || script.cachedDataRejected)))
    // At exit the cache also holds the functions this run compiled, not just the top level.
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
  return mod.exports as T;
}

/**
 * The bundle `name` beside the CLI's (dist/), through its code cache; run from the sources, where
 * no such bundle is beside this module, what `fallback` loads instead (the package itself).
 */
export function requireBundleBeside<T>(name: string, fallback: () => T): T {
  const bundled = typeof __dirname === 'string' ? join(__dirname, name) : undefined;
  return bundled && existsSync(bundled) ? requireCachedBundle<T>(bundled) : fallback();
}
