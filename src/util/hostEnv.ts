// bin/agent's shell lines change a few variables for this process only and save the host's values
// (see bin/agent): the glibc mmap threshold, glibc's tunables (huge pages), and NODE_EXTRA_CA_CERTS
// (read at the first TLS connection, src/net/deferredCa.ts). Here the host's values go back, so
// children (Bash, hooks, MCP servers, teammates) get exactly the environment the host gave.
// `node bin/agent` skips the shell lines: nothing is saved and nothing changes.

const SAVED: Array<[saved: string, name: string]> = [
  ['AGENT_MALLOC_WAS', 'MALLOC_MMAP_THRESHOLD_'],
  ['AGENT_TUNABLES_WAS', 'GLIBC_TUNABLES'],
  ['AGENT_CA_WAS', 'NODE_EXTRA_CA_CERTS'],
];

/** Puts the host's values back; returns the names that had been changed for this process. */
export function restoreHostEnv(env: NodeJS.ProcessEnv = process.env): Set<string> {
  const changed = new Set<string>();
  for (const [saved, name] of SAVED) {
    const was = env[saved];
    if (was === undefined) continue;
    if (was) env[name] = was;
    else delete env[name];
    delete env[saved];
    changed.add(name);
  }
  return changed;
}
