// The AWS libraries a Bedrock session runs: the credential chain (@aws-sdk/credential-providers,
// bedrock.ts), the control-plane client (@aws-sdk/client-bedrock, bedrockProfiles.ts) and what the
// bundled Bedrock wrapper imports (@smithy/signature-v4, @smithy/eventstream-serde-node, ...:
// scripts/bundle.mjs `cloud-wrapper-deps`). The build makes them one CommonJS file beside the CLI's
// bundle (dist/aws.cjs), run through its code cache (src/util/cachedBundle.ts): from node_modules
// their few hundred modules cost about 85 ms of CPU at each Bedrock start (resolving, reading,
// compiling), the bundle a fraction of it. Each library in it is run at its first require, as from
// node_modules. Run from the sources (no bundle beside them), the packages themselves.
import { createRequire } from 'node:module';
import { requireBundleBeside } from '../../util/cachedBundle.js';
import { loadExternal } from '../../util/loadExternal.js';

/** The libraries the agent's own code asks for; the build puts each in dist/aws.cjs (and checks). */
export const AWS_LIBRARIES = ['@aws-sdk/credential-providers', '@aws-sdk/client-bedrock'] as const;
export type AwsLibrary = (typeof AWS_LIBRARIES)[number];

/**
 * dist/aws.cjs's exports: for each library (AWS_LIBRARIES), and for each dependency of a wrapper
 * as `<wrapper>|<dependency>`, a function that requires it.
 */
type AwsBundle = Record<string, (() => unknown) | undefined>;

let bundle: AwsBundle | null | undefined;

function fromBundle<T>(key: string, fallback: () => T): T {
  // undefined: not looked for yet; null: none beside this module (run from the sources).
  if (bundle === undefined) bundle = requireBundleBeside<AwsBundle | null>('aws.cjs', () => null);
  if (!bundle) return fallback();
  const load = bundle[key];
  if (!load) throw new Error(`dist/aws.cjs has no ${key}: rebuild (npm run build)`);
  return load() as T;
}

export function awsLibrary<T>(name: AwsLibrary): T {
  return fromBundle(name, () => loadExternal<T>(name));
}

/**
 * `dep` as `wrapper` (an Anthropic cloud wrapper, bundled into the CLI) imports it: resolved from
 * the wrapper's folder, which may hold versions of its own (the Bedrock wrapper's @smithy packages).
 */
export function awsWrapperDep<T>(wrapper: string, dep: string): T {
  return fromBundle(`${wrapper}|${dep}`, () => {
    const here = createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
    return createRequire(here.resolve(wrapper))(dep) as T;
  });
}
