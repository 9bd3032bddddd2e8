// Up/Down through the prompt history and Ctrl+R's search, as pure state changes. The draft being
// typed is kept while browsing and comes back past the newest entry.

export interface Browse {
  /** Index into the entries; entries.length means "the draft". */
  index: number;
  draft: string;
}

/** One step older (-1) or newer (+1); null when there is nowhere to go. */
export function step(
  entries: string[],
  browse: Browse | null,
  text: string,
  dir: -1 | 1,
): { browse: Browse | null; text: string } | null {
  const b = browse ?? { index: entries.length, draft: text };
  const index = b.index + dir;
  if (index < 0 || index > entries.length) return null;
  if (index === entries.length) return { browse: null, text: b.draft };
  return { browse: { ...b, index }, text: entries[index] };
}

export interface Search {
  query: string;
  /** The index of the entry shown, or -1 when nothing matches. */
  match: number;
  /** What the editor held when the search began (Esc puts it back). */
  draft: string;
}

/** The newest entry at or before `from` that contains the query (case-insensitive), or -1. */
export function findOlder(entries: string[], query: string, from: number): number {
  const q = query.toLowerCase();
  for (let i = Math.min(from, entries.length - 1); i >= 0; i--) if (entries[i].toLowerCase().includes(q)) return i;
  return -1;
}
