// This session among the user's other local sessions (src/peers): its card is published at start
// (again on each change of permission mode) and taken away at the end. A teammate process is its
// team's, not a peer of its own.
import { join } from 'node:path';
import { PeerDirectory } from '../peers/peerDirectory.js';
import type { PermissionState } from '../permissions/state.js';
import { configDir } from '../util/configDir.js';

export function startPeers(p: {
  env: NodeJS.ProcessEnv;
  sessionId: string;
  cwd: string;
  teammate: boolean;
  permissions: PermissionState;
}): PeerDirectory | undefined {
  if (p.teammate) return undefined;
  const peers = new PeerDirectory({
    dir: join(configDir(p.env), 'peers'),
    sessionId: p.sessionId,
    cwd: p.cwd,
    permissionMode: () => p.permissions.mode,
  });
  peers.register();
  p.permissions.onModeChange(() => peers.register());
  return peers;
}
