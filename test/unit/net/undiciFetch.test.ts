// undiciFetch (src/net/undici.ts) fetches over undici 7's connections whatever sits in the global
// dispatcher slot: Node's own undici puts its Agent there at the first `new Headers()`, and undici 7
// would use that one (the connection layer whose TLS 1.3 refusals can hang). A dispatcher of
// undici 7's own (outboundAgent.ts's proxy or client-certificate one) is used as it is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadUndici, undiciFetch } from '../../../src/net/undici.js';

const SLOT = Symbol.for('undici.globalDispatcher.1');
const slot = globalThis as unknown as Record<symbol, unknown>;

async function server(): Promise<{ url: string; close: () => Promise<void> }> {
  const s: Server = createServer((_req, res) => res.end('answered'));
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

describe('undiciFetch', () => {
  const saved = slot[SLOT];
  afterEach(() => {
    slot[SLOT] = saved;
  });

  it("passes over a global dispatcher that is not undici 7's (Node's own Agent) for an Agent of its own", async () => {
    const s = await server();
    // What Node's undici leaves in the slot, as far as undici 7 can tell: not one of its classes.
    let used = 0;
    slot[SLOT] = {
      dispatch: () => {
        used++;
        throw new Error('the foreign dispatcher was used');
      },
    };
    try {
      const res = await undiciFetch(s.url);
      expect(await res.text()).toBe('answered');
      expect(used).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("uses undici 7's own global dispatcher (a proxy's or a client certificate's) as it is", async () => {
    const u = loadUndici();
    const s = await server();
    let used = 0;
    class Counting extends u.Agent {
      dispatch(...args: Parameters<InstanceType<typeof u.Agent>['dispatch']>) {
        used++;
        return super.dispatch(...args);
      }
    }
    const counting = new Counting();
    u.setGlobalDispatcher(counting);
    try {
      const res = await undiciFetch(s.url);
      expect(await res.text()).toBe('answered');
      expect(used).toBe(1);
    } finally {
      await counting.close();
      await s.close();
    }
  });
});
