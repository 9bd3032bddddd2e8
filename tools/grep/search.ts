// Grep's dispatch: picks the rg or JS impl, runs it and drops files the session may not read.
import { jsContent, jsFiles } from './js.js';
import { findRg, rgContent, rgFiles } from './rg.js';
import type { ContentResult, GrepImpl, SearchSpec } from './shared.js';

/** AGENT_GREP_IMPL=rg|js forces an impl; otherwise rg when installed. */
export function defaultGrepImpl(): GrepImpl {
  const forced = process.env.AGENT_GREP_IMPL;
  if (forced === 'rg' || forced === 'js') return forced;
  return findRg() ? 'rg' : 'js';
}

/** Files holding a match, in no particular order. */
export async function searchFiles(spec: SearchSpec, impl: GrepImpl): Promise<string[]> {
  const files = await (impl === 'rg' ? rgFiles(spec) : jsFiles(spec));
  return spec.readable ? files.filter(spec.readable) : files;
}

/** Hits per file in rg --sort path order; stops after about `wantLines` lines (0 = all). */
export async function searchContent(
  spec: SearchSpec,
  impl: GrepImpl,
  wantLines: number,
  keepLines = true,
): Promise<ContentResult> {
  const found = await (impl === 'rg' ? rgContent(spec, wantLines, keepLines) : jsContent(spec, wantLines, keepLines));
  return spec.readable ? { ...found, files: found.files.filter((f) => spec.readable!(f.path)) } : found;
}
