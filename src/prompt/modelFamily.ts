// The model names the environment block tells the model: its own name and id, and the ids of the
// current Claude family (so code it writes against the API picks a current model). The family
// below is the one the reference CLI's own prompt lists (measured: its system prompt against the
// fake API, v2.1.330); keep it in step with the model table when a new family ships.

export const CURRENT_FAMILY: ReadonlyArray<{ name: string; id: string }> = [
  { name: 'Fable 5.2', id: 'claude-fable-5-2' },
  { name: 'Opus 5.5', id: 'claude-opus-5-5' },
  { name: 'Sonnet 5.5', id: 'claude-sonnet-5-5' },
  { name: 'Haiku 5.5', id: 'claude-haiku-5-5' },
];

/**
 * A readable name for a model id: `claude-opus-5-5` → `Claude Opus 5.5`, with any date suffix
 * (`-20250929`) or context tag (`[1m]`) left out; an id of another shape is its own name.
 */
export function modelDisplayName(id: string): string {
  const m = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?(?:\[[^\]]*\])?$/.exec(id);
  if (!m) return id;
  const family = m[1][0].toUpperCase() + m[1].slice(1);
  return `Claude ${family} ${m[3] === undefined ? m[2] : `${m[2]}.${m[3]}`}`;
}
