// bin/agent's shell lines run the agent with glibc's mmap threshold fixed (a long session's request
// bodies would otherwise stay in malloc's arenas: see docs/performance.md) and with huge pages for
// malloc's large blocks (GLIBC_TUNABLES: the start-up snapshot's blob is read in one). The settings
// are the agent's own: what the host gave (set or not) is what Bash and other children see.
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { startAgent, startFakeApi, STREAM_ARGS, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;

const SHOW =
  'echo "threshold=[${MALLOC_MMAP_THRESHOLD_-unset}] was=[${AGENT_MALLOC_WAS-unset}] tunables=[${GLIBC_TUNABLES-unset}] twas=[${AGENT_TUNABLES_WAS-unset}]"';

async function session(hostValue: string | undefined, hostTunables?: string) {
  let agentEnviron = '';
  let pid = 0;
  api = await startFakeApi((_req, i) => {
    // The environment the agent process was started with (bin/agent's shell lines applied).
    if (i === 0) agentEnviron = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return i === 0 ? toolUse('Bash', { command: SHOW }) : text('done');
  });
  const p = startAgent({
    api,
    args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
    env: { MALLOC_MMAP_THRESHOLD_: hostValue, GLIBC_TUNABLES: hostTunables },
  });
  pid = p.child.pid!;
  p.sendRaw(userLine('show the allocator setting'));
  p.endInput();
  expect((await p.exited).code).toBe(0);
  return { agentEnviron: agentEnviron.split('\0'), bashSaw: JSON.stringify(lastToolResults(api.requests[1])) };
}

it.runIf(existsSync('/proc/self/environ'))(
  'the agent runs with the fixed mmap threshold; a Bash child sees no allocator setting when the host set none',
  async () => {
    const { agentEnviron, bashSaw } = await session(undefined);
    expect(agentEnviron).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    expect(agentEnviron).toContain('GLIBC_TUNABLES=glibc.malloc.hugetlb=1');
    expect(bashSaw).toContain('threshold=[unset] was=[unset] tunables=[unset] twas=[unset]');
  },
);

it.runIf(existsSync('/proc/self/environ'))("a host's own MALLOC_MMAP_THRESHOLD_ reaches Bash unchanged", async () => {
  const { agentEnviron, bashSaw } = await session('65536');
  expect(agentEnviron).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  expect(bashSaw).toContain('threshold=[65536] was=[unset]');
});

it.runIf(existsSync('/proc/self/environ'))(
  "the agent adds huge pages to a host's GLIBC_TUNABLES; Bash gets the host's unchanged",
  async () => {
    // (glibc rewrites the variable in the process's own copy as it reads it: /proc shows only part.)
    const { bashSaw } = await session(undefined, 'glibc.malloc.check=0');
    expect(bashSaw).toContain('tunables=[glibc.malloc.check=0] twas=[unset]');
  },
);
