// Where the session's credentials come from, in the fields the init line (`apiKeySource`) and
// initialize's `account` (sdk.d.ts AccountInfo) carry. Measured from the reference per provider and
// credential: an API key and the apiKeyHelper are `apiKeySource`; a bearer token
// (ANTHROPIC_AUTH_TOKEN, else the helper's key, which is sent as one too) is `tokenSource`; a cloud
// provider reports its `apiProvider` alone, its credentials being the cloud's own.
import type { ApiProvider } from './select.js';

export interface AccountInfo {
  tokenSource?: string;
  apiKeySource?: string;
  apiProvider: ApiProvider;
}

/** The init line's `apiKeySource`: `ANTHROPIC_API_KEY`, else `apiKeyHelper`, else `none` (a token alone, a cloud provider). */
export function apiKeySource(provider: ApiProvider, env: NodeJS.ProcessEnv, apiKeyHelper?: string): string {
  if (provider !== 'firstParty') return 'none';
  if (env.ANTHROPIC_API_KEY?.trim()) return 'ANTHROPIC_API_KEY';
  return apiKeyHelper?.trim() ? 'apiKeyHelper' : 'none';
}

/** initialize's `account`: `apiKeySource` only when there is one, as the reference leaves it out. */
export function accountInfo(provider: ApiProvider, env: NodeJS.ProcessEnv, apiKeyHelper?: string): AccountInfo {
  if (provider !== 'firstParty') return { apiProvider: provider };
  const key = apiKeySource(provider, env, apiKeyHelper);
  const tokenSource = env.ANTHROPIC_AUTH_TOKEN?.trim()
    ? 'ANTHROPIC_AUTH_TOKEN'
    : apiKeyHelper?.trim()
      ? 'apiKeyHelper'
      : 'none';
  return { tokenSource, ...(key !== 'none' ? { apiKeySource: key } : {}), apiProvider: provider };
}
