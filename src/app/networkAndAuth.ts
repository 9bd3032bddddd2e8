// The session's outbound network and credentials: the proxy and client-certificate dispatcher
// (src/net/outboundAgent.ts), and Bedrock's client built early through the session's model API
// (which holds the settings' credential commands: SessionConfig.auth). Which provider and key
// source the init line and initialize report is the config's (sessionConfig.ts), resolved before.
import { installOutboundAgent } from '../net/outboundAgent.js';
import type { ModelApi } from '../loop/modelClient.js';
import type { ApiProvider } from '../loop/providers/select.js';
import { debugLog } from '../util/log.js';

/** Throws an Error naming the variable when a proxy or certificate setting is unusable. */
export async function setupNetworkAndAuth(
  env: NodeJS.ProcessEnv,
  apiProvider: ApiProvider,
  api: ModelApi,
): Promise<void> {
  const installed = await installOutboundAgent(env);
  if (installed) debugLog('api', () => `outbound connections: ${installed}`);
  debugLog('api', () => `API provider: ${apiProvider}`);
  // Bedrock asks for its inference profiles at start, as the reference does, so the first request
  // rarely waits for them.
  if (apiProvider === 'bedrock') api.prepare();
}
