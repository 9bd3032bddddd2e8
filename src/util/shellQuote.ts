// shell-quote, loaded from node_modules at its first use (scripts/bundle.mjs keeps it out of the
// bundle). It makes a random token when it loads, which must differ in every process: loaded into
// the start-up snapshot (scripts/snapshot.cjs) it would be the same at every start.
import type * as ShellQuote from 'shell-quote';
import { loadExternal } from './loadExternal.js';

let loaded: typeof ShellQuote | undefined;

function shellQuote(): typeof ShellQuote {
  loaded ??= loadExternal<typeof ShellQuote>('shell-quote');
  return loaded;
}

export const parse: typeof ShellQuote.parse = (...args: Parameters<typeof ShellQuote.parse>) =>
  shellQuote().parse(...args);
export const quote: typeof ShellQuote.quote = (args) => shellQuote().quote(args);
export type { ParseEntry } from 'shell-quote';
