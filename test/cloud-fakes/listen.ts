// One way for a test server to listen on a free local port and to close with every socket it
// accepted, so a test's close never waits on a keep-alive connection.
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export async function listenTracked(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sockets) s.destroy();
      }),
  };
}
