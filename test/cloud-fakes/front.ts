// A cloud provider's endpoint in front of the fake Messages API: it checks each request as the
// cloud would (signature, token, path, body), rewrites it to the Messages API shape, and forwards
// it to the fake API (test/fake-api/server.ts), which scripts the replies. What it checked is kept
// in `seen`, one entry per request, for the test to assert on.
import http from 'node:http';
import type { FakeApi } from '../fake-api/server.js';
import { listenTracked } from './listen.js';

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** null when the cloud would accept it, else why it refused. */
  refused: string | null;
}

/**
 * What the front does with one request: refuse it (status, body), answer it itself (a call the
 * cloud serves without the model), or forward it to the fake API.
 */
export type FrontDecision =
  | { refuse: { status: number; body: unknown; headers?: Record<string, string> } }
  | { answer: { body: unknown } }
  | {
      forward: { body: unknown; beta?: string };
      reply?: (upstream: Response, res: http.ServerResponse) => Promise<void>;
    };

export interface Front {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startFront(
  api: FakeApi,
  decide: (req: Omit<SeenRequest, 'refused'>) => FrontDecision | Promise<FrontDecision>,
): Promise<Front> {
  const seen: SeenRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const base = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    try {
      const d = await decide(base);
      if ('refuse' in d) {
        seen.push({ ...base, refused: JSON.stringify(d.refuse.body) });
        res.writeHead(d.refuse.status, { 'content-type': 'application/json', ...d.refuse.headers });
        res.end(JSON.stringify(d.refuse.body));
        return;
      }
      seen.push({ ...base, refused: null });
      if ('answer' in d) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(d.answer.body));
        return;
      }
      const upstream = await fetch(`${api.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(d.forward.beta ? { 'anthropic-beta': d.forward.beta } : {}),
        },
        body: JSON.stringify(d.forward.body),
      });
      if (upstream.status !== 200 || !d.reply) {
        const headers: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') headers[k] = v;
        });
        res.writeHead(upstream.status, headers);
        res.end(Buffer.from(await upstream.arrayBuffer()));
        return;
      }
      await d.reply(upstream, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `cloud fake: ${(err as Error).message}` }));
    }
  });
  return { ...(await listenTracked(server)), seen };
}

/** The SSE events of a Messages API stream, as { event, data } pairs. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}
