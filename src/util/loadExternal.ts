// Loads a package kept out of the bundle (scripts/bundle.mjs `external`) from node_modules, or a
// Node built-in not wanted at start, at the moment a session needs it. A plain require: the bundle
// runs in a vm.Script, where a dynamic import() has no loader (Node >= 20.19 also requires a
// package's ESM this way).
import { createRequire } from 'node:module';

export function loadExternal<T>(name: string): T {
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  return createRequire(from)(name) as T;
}
