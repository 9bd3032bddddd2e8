// One way for a test server to listen on a free local port and to close with every socket it
// accepted, so a test's close never waits on a keep-alive connection.
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Listening {
  /** `<scheme>://127.0.0.1:<port>`. */
  url: string;
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Closes the server, every socket it accepted and every socket given to `track`. */
  close: () => Promise<void>;
  /** A socket of its own (a proxy's upstream) that close() ends too. */
  track: (s: Socket) => void;
}

/** `server` (an http, https or net server) listening on a free port of 127.0.0.1. */
export async function listenTracked(server: Server, scheme: 'http' | 'https' = 'http'): Promise<Listening> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  server.on('connection', track);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${scheme}://${address}`,
    address,
    track,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}
