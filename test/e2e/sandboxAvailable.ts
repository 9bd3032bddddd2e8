// Whether the Bash sandbox can run on this machine: the sandbox e2e tests are skipped, with the
// reason printed, where bubblewrap, socat or ripgrep is missing or user namespaces are off.
import { spawnSync } from 'node:child_process';

export function which(cmd: string): string | undefined {
  const r = spawnSync('which', [cmd], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Why the sandbox cannot be tested here, or undefined when it can. */
export function sandboxUnavailableReason(): string | undefined {
  const missing = ['bwrap', 'socat', 'rg'].filter((c) => !which(c));
  if (missing.length) return `${missing.join(', ')} not on PATH (apt-get install bubblewrap socat ripgrep)`;
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-user', '--unshare-pid', '--unshare-net', '--', 'true'], { encoding: 'utf8' });
  if (r.status !== 0) return `bubblewrap cannot create namespaces here: ${r.stderr.trim()}`;
  return undefined;
}
