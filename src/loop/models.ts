// Model aliases a person or host may use, resolved to the ids the Messages API takes.
const ALIASES: Record<string, string> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

export function resolveModel(model: string): string {
  return ALIASES[model.toLowerCase()] ?? model;
}

/** The models a host may offer its user (initialize's `models`): the session's default and each alias. */
export function modelChoices(
  sessionDefault: string,
): Array<{ value: string; resolvedModel: string; displayName: string; description: string }> {
  const title = (s: string) => s[0].toUpperCase() + s.slice(1);
  return [
    {
      value: 'default',
      resolvedModel: sessionDefault,
      displayName: 'Default',
      description: `The session's default model (${sessionDefault})`,
    },
    ...Object.entries(ALIASES).map(([alias, id]) => ({
      value: alias,
      resolvedModel: id,
      displayName: title(alias),
      description: `Claude ${title(alias)} (${id})`,
    })),
  ];
}
