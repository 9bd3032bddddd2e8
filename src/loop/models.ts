// Model aliases a person or host may use, resolved to the ids the Messages API takes.
const ALIASES: Record<string, string> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

export function resolveModel(model: string): string {
  return ALIASES[model.toLowerCase()] ?? model;
}
