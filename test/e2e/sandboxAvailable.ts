// Whether the Bash sandbox can run on this machine: the sandbox e2e tests are skipped, with the
// reason printed, where bubblewrap, socat or ripgrep is missing or user namespaces are off.
import { spawnSync } from 'node:child_process';
import http from 'node:http';

export function which(cmd: string): string | undefined {
  const r = spawnSync('which', [cmd], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Why the sandbox cannot be tested here, or undefined when it can. */
export function sandboxUnavailableReason(): string | undefined {
  const missing = ['bwrap', 'socat', 'rg'].filter((c) => !which(c));
  if (missing.length) return `${missing.join(', ')} not on PATH (apt-get install bubblewrap socat ripgrep)`;
  const r = spawnSync(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-user',
      '--unshare-pid',
      '--unshare-net',
      '--',
      'true',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return `bubblewrap cannot create namespaces here: ${r.stderr.trim()}`;
  return undefined;
}

/** A server on the host's loopback, outside any sandbox; `curl` reaches it through the proxy (or not). */
export interface HostServer {
  server: http.Server;
  port: number;
  /** Requests it answered. */
  hits(): number;
  /** A curl of it that goes through the sandbox's proxy (its loopback would otherwise be exempt). */
  viaProxy: string;
}

export async function startHostServer(reply = 'hello from the host\n'): Promise<HostServer> {
  let hits = 0;
  const server = http.createServer((_q, s) => {
    hits++;
    s.end(reply);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  return { server, port, hits: () => hits, viaProxy: `curl --noproxy '' -sS --max-time 5 http://127.0.0.1:${port}/` };
}
