// The YAML front matter of a markdown file (agents, commands, skills, output styles): one reader,
// so every kind of file accepts the same block and says the same thing when it is wrong.

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export interface FrontMatter {
  /** The block's mapping ({} when the file has none and none is required). */
  meta: Record<string, unknown>;
  /** The text after the block, trimmed. */
  body: string;
}

/**
 * Splits `text` into its front matter and body; throws with a readable reason (no block where one
 * is `required`, YAML that does not parse, a block that is not a mapping).
 */
export function splitFrontMatter(
  text: string,
  parseYaml: (t: string) => unknown,
  { required = false } = {},
): FrontMatter {
  const m = FRONT_MATTER.exec(text);
  if (!m) {
    if (required) throw new Error('no front matter (the file must start with a --- block)');
    return { meta: {}, body: text.trim() };
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(m[1]);
  } catch (err) {
    throw new Error(`front matter is not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  // An empty block is no keys, unless the file must name some.
  if (parsed === null && !required) parsed = {};
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('front matter must be a mapping');
  return { meta: parsed as Record<string, unknown>, body: text.slice(m[0].length).trim() };
}
