// The set-up the provider and gateway e2e files share: the fake Messages API with a provider's fake
// endpoint in front of it (test/cloud-fakes/), every server a test starts closed when it ends, and
// bin/agent run in a fresh folder with only the environment the file allows.
import type { FakeApi, Script } from '../fake-api/server.js';
import { afterEveryTest } from '../perFile.js';
import { runAgent, startFakeApi, tempDir } from './harness.js';

export type Env = Record<string, string | undefined>;

interface Closable {
  close(): Promise<void>;
}

/** What the running test started: closed when it ends, the last started first. */
const open: Closable[] = [];
afterEveryTest(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

/** `server`, closed when the test ends. */
export function closeAfterTest<C extends Closable>(server: C): C {
  open.push(server);
  return server;
}

/**
 * The fake Messages API answering `script`, and the provider's fake endpoint `front` starts in
 * front of it; both closed when the test ends.
 */
export async function startProviderFixture<F extends Closable>(
  script: Script,
  front: (api: FakeApi) => Promise<F>,
): Promise<{ api: FakeApi; front: F }> {
  const api = closeAfterTest(await startFakeApi(script));
  return { api, front: closeAfterTest(await front(api)) };
}

/**
 * A runner of bin/agent for one file: each run in a fresh folder (its cwd and config dir), with the
 * file's environment (`base`, given that folder: what it unsets and sets) and then the run's own.
 */
export function providerRunner(base: (home: string) => Env) {
  return (args: string[], env: Env = {}, input?: string) => {
    const home = tempDir('agent-provider-');
    return runAgent({ args, input, cwd: home, env: { CLAUDE_CONFIG_DIR: home, ...base(home), ...env } });
  };
}
