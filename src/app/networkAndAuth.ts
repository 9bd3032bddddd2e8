// The session's outbound network and credentials: the proxy and client-certificate dispatcher
// (src/net/outboundAgent.ts), the settings' credential commands, and which provider and key source
// the init line and initialize report.
import { installOutboundAgent } from '../net/outboundAgent.js';
import { setAuthSettings } from '../loop/providers/authSettings.js';
import { prepareProviderClient } from '../loop/modelClient.js';
import { type ApiProvider, apiProviderFromEnv } from '../loop/providers/select.js';
import { apiKeySource as keySource } from '../loop/providers/keySources.js';
import type { Settings } from '../settings/schema.js';
import { debugLog } from '../util/log.js';

export interface NetworkAndAuth {
  apiProvider: ApiProvider;
  /** Where the API key comes from, in the reference's words ('none' for a token alone or a cloud provider). */
  apiKeySource: string;
}

/** Throws an Error naming the variable when a proxy or certificate setting is unusable. */
export async function setupNetworkAndAuth(settings: Settings, env: NodeJS.ProcessEnv): Promise<NetworkAndAuth> {
  const installed = await installOutboundAgent(env);
  if (installed) debugLog('api', () => `outbound connections: ${installed}`);
  setAuthSettings({
    apiKeyHelper: settings.apiKeyHelper,
    awsAuthRefresh: settings.awsAuthRefresh,
    awsCredentialExport: settings.awsCredentialExport,
    gcpAuthRefresh: settings.gcpAuthRefresh,
  });
  const apiProvider = apiProviderFromEnv(env);
  debugLog('api', () => `API provider: ${apiProvider}`);
  // Bedrock asks for its inference profiles at start, as the reference does, so the first request
  // rarely waits for them.
  if (apiProvider === 'bedrock') prepareProviderClient(env);
  const apiKeySource = keySource(apiProvider, env, settings.apiKeyHelper);
  return { apiProvider, apiKeySource };
}
