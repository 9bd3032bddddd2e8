// shell-quote, run at its first use. It draws a random token as it loads, which must differ in
// every process: run while the start-up snapshot is made (scripts/snapshot.cjs), it would be the
// same at every start. In the bundle the `require` below is esbuild's lazily run copy of the
// package (its source and compiled functions are in the snapshot, its top level runs here, at the
// first call); run from the sources, where this module has no `require`, it is loaded from
// node_modules.
import type * as ShellQuote from 'shell-quote';
import { loadExternal } from './loadExternal.js';

let loaded: typeof ShellQuote | undefined;

function shellQuote(): typeof ShellQuote {
  loaded ??=
    typeof require === 'function'
      ? (require('shell-quote') as typeof ShellQuote)
      : loadExternal<typeof ShellQuote>('shell-quote');
  return loaded;
}

export const parse: typeof ShellQuote.parse = (...args: Parameters<typeof ShellQuote.parse>) =>
  shellQuote().parse(...args);
export const quote: typeof ShellQuote.quote = (args) => shellQuote().quote(args);
export type { ParseEntry } from 'shell-quote';
