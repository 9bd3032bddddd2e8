// A local HTTP proxy that records what goes through it: absolute-URI requests (for http://
// targets) are forwarded, CONNECT tunnels (for https:// targets) are opened to the named host.
import http from 'node:http';
import net, { type Socket } from 'node:net';
import { listenTracked } from './listen.js';

export interface TestProxy {
  url: string;
  /** "GET http://host:port/path" or "CONNECT host:port", in order. */
  seen: string[];
  close(): Promise<void>;
}

/** `redirect` sends a CONNECT for one host:port to another (a fake of a public service). */
export async function startTestProxy(opts: { redirect?: Record<string, string> } = {}): Promise<TestProxy> {
  const seen: string[] = [];
  let track: (s: Socket) => void = () => {};
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('proxy: expected an absolute URI');
      return;
    }
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connect', (req, client: Socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (opts.redirect?.[req.url ?? ''] ?? req.url ?? '').split(':');
    const up = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
    // The tunnel's upstream end closes with the proxy too.
    track(up);
  });
  const listening = await listenTracked(server);
  track = listening.track;
  return { url: listening.url, seen, close: listening.close };
}
