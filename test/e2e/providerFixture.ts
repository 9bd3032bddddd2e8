// The set-up the provider and gateway e2e files share: the fake Messages API with a provider's fake
// endpoint in front of it (test/cloud-fakes/), every server a test starts closed when it ends, and
// bin/agent run in a fresh folder with only the environment the file allows.
//
// These files run their tests side by side (most of a test is waiting on bin/agent), so what a test
// starts belongs to that test: `providerIt`'s `servers` fixture (a ServerScope), closed when that
// test ends, never when another one does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'vitest';
import { type FakeApi, type Script, startFakeApi } from '../fake-api/server.js';
import { runAgent, tempDir } from './harness.js';

export type Env = Record<string, string | undefined>;

interface Closable {
  close(): Promise<void>;
}

/** What one test started: closed when it ends, the last started first. */
export class ServerScope {
  private readonly open: Closable[] = [];

  /** `server`, closed when the test ends. */
  add = <C extends Closable>(server: C): C => {
    this.open.push(server);
    return server;
  };

  /** A cleanup of the test's own (a plain server, a process), run with the servers when the test ends. */
  onClose = (fn: () => unknown): void => {
    this.open.push({ close: async () => void (await fn()) });
  };

  /** A plain HTTP server answering every request with `html` (a page WebFetch reads): its origin. */
  page = async (html: string): Promise<string> => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.onClose(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  /**
   * The fake Messages API answering `script`, and the provider's fake endpoint `front` starts in
   * front of it; both closed when the test ends.
   */
  fixture = async <F extends Closable>(
    script: Script,
    front: (api: FakeApi) => Promise<F>,
  ): Promise<{ api: FakeApi; front: F }> => {
    const api = this.add(await startFakeApi(script));
    return { api, front: this.add(await front(api)) };
  };

  async close(): Promise<void> {
    const errors: unknown[] = [];
    for (const c of this.open.splice(0).reverse())
      await Promise.resolve()
        .then(() => c.close())
        .catch((e) => errors.push(e));
    if (errors.length) throw errors[0];
  }
}

/** `it` with a `servers` fixture: the test's ServerScope, closed after it (safe with `.concurrent`). */
export const providerIt = it.extend<{ servers: ServerScope }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  servers: async ({}, use) => {
    const servers = new ServerScope();
    try {
      await use(servers);
    } finally {
      await servers.close();
    }
  },
});

/**
 * At most `n` of a file's agent processes at once, the others waiting their turn: tests side by side
 * overlap their waits, and this keeps a busy machine from starving every run at once (each run's
 * own bounds, an export at exit or the harness's kill after 20 s, are in real time).
 */
export function agentSlots(n: number) {
  let running = 0;
  const queue: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((r) => queue.push(r));
    else running++;
    try {
      return await fn();
    } finally {
      const next = queue.shift();
      if (next) next();
      else running--;
    }
  };
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
