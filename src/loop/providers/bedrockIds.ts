// The Bedrock model id of each model the runtime knows, as the reference maps them (measured:
// `--model <id>` on Bedrock, reading the invoke URL). A known model, named by its Anthropic API id
// or its short id, is sent as `<geography>.anthropic.<its Bedrock id>` (or the account's listed
// profile for it: bedrockProfiles.ts); any other id (a user's `ANTHROPIC_DEFAULT_*_MODEL`, an
// inference-profile ARN, an id already in Bedrock's form) is sent exactly as given.

/** [short id, Anthropic API id, Bedrock id without the geography prefix]. */
const KNOWN: ReadonlyArray<readonly [string, string, string]> = [
  ['claude-3-5-haiku', 'claude-3-5-haiku-20241022', 'claude-3-5-haiku-20241022-v1:0'],
  ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'claude-haiku-4-5-20251001-v1:0'],
  ['claude-haiku-5-5', 'claude-haiku-5-5', 'claude-haiku-5-5'],
  ['claude-3-5-sonnet', 'claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-20241022-v2:0'],
  ['claude-3-7-sonnet', 'claude-3-7-sonnet-20250219', 'claude-3-7-sonnet-20250219-v1:0'],
  ['claude-sonnet-4-0', 'claude-sonnet-4-20250514', 'claude-sonnet-4-20250514-v1:0'],
  ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929-v1:0'],
  ['claude-sonnet-4-6', 'claude-sonnet-4-6', 'claude-sonnet-4-6'],
  ['claude-sonnet-5', 'claude-sonnet-5', 'claude-sonnet-5'],
  ['claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-sonnet-5-5'],
  ['claude-opus-4-0', 'claude-opus-4-20250514', 'claude-opus-4-20250514-v1:0'],
  ['claude-opus-4-1', 'claude-opus-4-1-20250805', 'claude-opus-4-1-20250805-v1:0'],
  ['claude-opus-4-5', 'claude-opus-4-5-20251101', 'claude-opus-4-5-20251101-v1:0'],
  ['claude-opus-4-6', 'claude-opus-4-6', 'claude-opus-4-6-v1'],
  ['claude-opus-4-7', 'claude-opus-4-7', 'claude-opus-4-7'],
  ['claude-opus-4-8', 'claude-opus-4-8', 'claude-opus-4-8'],
  ['claude-opus-5', 'claude-opus-5', 'claude-opus-5'],
  ['claude-opus-5-5', 'claude-opus-5-5', 'claude-opus-5-5'],
  ['claude-fable-5', 'claude-fable-5', 'claude-fable-5'],
  ['claude-fable-5-1', 'claude-fable-5-1', 'claude-fable-5-1'],
  ['claude-fable-5-2', 'claude-fable-5-2', 'claude-fable-5-2'],
];

let byName: Map<string, string> | null = null;

/** A known model's Bedrock id without the geography prefix (`claude-opus-4-6-v1`), or undefined for any other id. */
export function knownBedrockModel(model: string): string | undefined {
  if (!byName) {
    byName = new Map();
    for (const [short, api, bedrock] of KNOWN) {
      byName.set(short, bedrock);
      byName.set(api, bedrock);
    }
  }
  return byName.get(model.toLowerCase());
}

/** The geography prefix of a region's cross-region inference profiles. */
export function geography(region: string): string {
  return region.startsWith('us-gov-')
    ? 'us-gov'
    : region.startsWith('eu-')
      ? 'eu'
      : region.startsWith('ap-')
        ? 'apac'
        : 'us';
}

/**
 * The id a request for `model` is sent with when the account's profiles are not listed: a known
 * model as the cross-region inference profile of the region's geography
 * (`claude-sonnet-5-5` → `us.anthropic.claude-sonnet-5-5`), any other id as given.
 */
export function bedrockModelId(model: string, region: string): string {
  const known = knownBedrockModel(model);
  return known ? `${geography(region)}.anthropic.${known}` : model;
}
