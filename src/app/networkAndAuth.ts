// The session's outbound network and credentials: the proxy and client-certificate dispatcher
// (src/net/outboundAgent.ts) and the settings' credential commands. Which provider and key source
// the init line and initialize report is the config's (sessionConfig.ts), resolved before.
import { installOutboundAgent } from '../net/outboundAgent.js';
import { setAuthSettings } from '../loop/providers/authSettings.js';
import { prepareProviderClient } from '../loop/modelClient.js';
import type { ApiProvider } from '../loop/providers/select.js';
import type { Settings } from '../settings/schema.js';
import { debugLog } from '../util/log.js';

/** Throws an Error naming the variable when a proxy or certificate setting is unusable. */
export async function setupNetworkAndAuth(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  apiProvider: ApiProvider,
): Promise<void> {
  const installed = await installOutboundAgent(env);
  if (installed) debugLog('api', () => `outbound connections: ${installed}`);
  setAuthSettings({
    apiKeyHelper: settings.apiKeyHelper,
    awsAuthRefresh: settings.awsAuthRefresh,
    awsCredentialExport: settings.awsCredentialExport,
    gcpAuthRefresh: settings.gcpAuthRefresh,
  });
  debugLog('api', () => `API provider: ${apiProvider}`);
  // Bedrock asks for its inference profiles at start, as the reference does, so the first request
  // rarely waits for them.
  if (apiProvider === 'bedrock') prepareProviderClient(env);
}
