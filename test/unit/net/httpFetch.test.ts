// The fetch the SDK is given for the Messages API (src/net/httpFetch.ts) and the Headers the SDK
// packages get in the bundle (src/net/webHeaders.ts), held to what Node's own fetch and Headers do.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpResponse, httpFetch, MadeResponse, makeHttpFetch } from '../../../src/net/httpFetch.js';
import { WebHeaders } from '../../../src/net/webHeaders.js';
import { isFormData, isWebReadableStream } from '../../../src/net/webStreams.js';

describe('WebHeaders', () => {
  it('agrees with the global Headers on names, joined values, trimming and order', () => {
    const ops = (h: {
      append(n: string, v: string): void;
      set(n: string, v: string): void;
      delete(n: string): void;
    }) => {
      h.append('X-Beta', ' one ');
      h.append('x-beta', 'two\t');
      h.set('Content-Type', 'application/json');
      h.append('accept', '*/*');
      h.set('X-Gone', '1');
      h.delete('x-GONE');
    };
    const ours = new WebHeaders();
    const theirs = new Headers();
    ops(ours);
    ops(theirs);
    expect([...ours]).toEqual([...theirs]);
    expect(ours.get('X-BETA')).toBe(theirs.get('x-beta'));
    expect(ours.get('missing')).toBeNull();
    expect(ours.has('content-type')).toBe(true);
    expect([...ours.keys()]).toEqual(['accept', 'content-type', 'x-beta']);
  });

  it('takes records, arrays of pairs and either class, and the global Headers and fetch take it', () => {
    const fromRecord = new WebHeaders({ 'X-A': '1', 'x-b': ['2', '3'], skipped: undefined });
    expect([...fromRecord]).toEqual([
      ['x-a', '1'],
      ['x-b', '2, 3'],
    ]);
    expect([...new WebHeaders([['Y', 'z']])]).toEqual([['y', 'z']]);
    expect(new WebHeaders(new Headers({ Q: 'r' })).get('q')).toBe('r');
    expect(new Headers(fromRecord as unknown as HeadersInit).get('x-b')).toBe('2, 3');
  });

  it('counts the global Headers as an instance (the SDK packages test headers they are handed with instanceof)', () => {
    expect(new Headers({ a: 'b' }) instanceof WebHeaders).toBe(true);
    expect(new WebHeaders() instanceof WebHeaders).toBe(true);
    expect({ a: 'b' } instanceof WebHeaders).toBe(false);
    expect(new Map([['a', 'b']]) instanceof WebHeaders).toBe(false);
  });

  it('refuses a name that is not a token and a value with a line break, naming the fault', () => {
    expect(() => new WebHeaders({ 'bad name': 'x' })).toThrow(/"bad name" is not a valid header name/);
    expect(() => new WebHeaders().set('x', 'a\r\nInjected: yes')).toThrow(/CR or LF/);
  });
});

describe('isWebReadableStream', () => {
  it('is the SDK test it replaces: true of a web ReadableStream only, not of bytes, strings or Node streams', async () => {
    const { Readable } = await import('node:stream');
    expect(isWebReadableStream(new ReadableStream())).toBe(true);
    expect(isWebReadableStream(Readable.toWeb(Readable.from(['x'])))).toBe(true);
    for (const other of [Buffer.from('x'), '{}', null, undefined, {}, Readable.from(['x']), { getReader: 1 }])
      expect(isWebReadableStream(other)).toBe(false);
  });
});

describe('isFormData', () => {
  it('is the SDK test it replaces: true of a FormData only, not of the JSON params, URLSearchParams or bytes', () => {
    expect(isFormData(new FormData())).toBe(true);
    for (const other of [
      { model: 'm', messages: [] },
      new URLSearchParams('a=1'),
      Buffer.from('x'),
      '{}',
      null,
      undefined,
    ])
      expect(isFormData(other)).toBe(false);
  });
});

describe('MadeResponse', () => {
  it("is `new Response(body, init)` for the SDK: status, ok, headers, the body's bytes as they come, url ''", async () => {
    async function* frames() {
      yield new TextEncoder().encode('event: ping\n');
      yield new TextEncoder().encode('data: {}\n\n');
    }
    const res = new MadeResponse(frames(), {
      status: 200,
      statusText: 'OK',
      headers: new WebHeaders({ 'content-type': 'text/event-stream' }),
    });
    expect(res).toBeInstanceOf(HttpResponse);
    expect([res.status, res.statusText, res.ok, res.url, res.redirected]).toEqual([200, 'OK', true, '', false]);
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    // The wrapper gives it the wire URL so.
    Object.defineProperty(res, 'url', { value: 'https://bedrock.example/model/m/invoke-with-response-stream' });
    expect(res.url).toBe('https://bedrock.example/model/m/invoke-with-response-stream');
    expect(await res.text()).toBe('event: ping\ndata: {}\n\n');
  });

  it('ends the iterable it was made from when its reader stops early (an abort, a stream left unread)', async () => {
    let ended = false;
    async function* frames() {
      try {
        for (;;) yield new Uint8Array([1]);
      } finally {
        ended = true;
      }
    }
    const res = new MadeResponse(frames(), { status: 200 });
    for await (const _ of res.body as AsyncIterable<Uint8Array>) break;
    expect(ended).toBe(true);
  });
});

describe('httpFetch', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  async function serve(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => handler(req, Buffer.concat(chunks).toString(), res));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('sends the method, headers and body, and reads status, headers and JSON back', async () => {
    let seen: { method?: string; headers: IncomingMessage['headers']; body: string } | undefined;
    const url = await serve((req, body, res) => {
      seen = { method: req.method, headers: req.headers, body };
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'request-id': 'req_1' });
      res.end('{"ok":true}');
    });
    const res = await httpFetch(`${url}/v1/messages`, {
      method: 'post',
      headers: new WebHeaders({ 'X-Api-Key': 'k', 'content-type': 'application/json' }),
      body: Buffer.from('{"a":1}'),
    });
    expect(res).toBeInstanceOf(HttpResponse);
    expect(seen).toMatchObject({
      method: 'POST',
      body: '{"a":1}',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json', 'content-length': '7' },
    });
    expect([res.status, res.statusText, res.ok, res.url]).toEqual([201, 'Made', true, `${url}/v1/messages`]);
    expect(res.headers.get('Request-Id')).toBe('req_1');
    expect(await res.json()).toEqual({ ok: true });
    await expect(res.text()).rejects.toThrow(/already been read/);
  });

  it('gives the body as it arrives, before the response has ended', async () => {
    let finish!: () => void;
    const url = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: one\n\n');
      finish = () => res.end('event: two\n\n');
    });
    const res = await httpFetch(url, { method: 'POST', body: '{}' });
    const it = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await it.next()).value)).toBe('event: one\n\n');
    finish();
    expect(String((await it.next()).value)).toBe('event: two\n\n');
    expect((await it.next()).done).toBe(true);
  });

  it('an error status is a response, not a throw, with its body readable', async () => {
    const url = await serve((_req, _body, res) => {
      res.writeHead(429, { 'retry-after': '3' });
      res.end('{"type":"error"}');
    });
    const res = await httpFetch(url, { method: 'POST', body: '{}' });
    expect([res.status, res.ok, res.headers.get('retry-after')]).toEqual([429, false, '3']);
    expect(await res.text()).toBe('{"type":"error"}');
  });

  it('no server is a TypeError "fetch failed" with the socket error as its cause, as Node fetch reports it', async () => {
    const url = await serve(() => {});
    await new Promise((r) => servers.pop()?.close(r));
    const error = await httpFetch(url, { method: 'POST', body: '{}' }).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('an abort before the answer rejects with the AbortError; mid-body it ends the body with it', async () => {
    const hang = await serve(() => {});
    const early = new AbortController();
    setTimeout(() => early.abort(), 50);
    const error = await httpFetch(hang, { method: 'POST', body: '{}', signal: early.signal }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AbortError' });

    const url = await serve((_req, _body, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const late = new AbortController();
    const res = await httpFetch(url, { method: 'POST', body: '{}', signal: late.signal });
    const chunks: string[] = [];
    const read = (async () => {
      for await (const c of res.body as AsyncIterable<Buffer>) {
        chunks.push(String(c));
        late.abort();
      }
    })();
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    expect(chunks).toEqual(['first']);
  });

  it('a connection cut mid-body makes reading the body throw', async () => {
    const url = await serve((req, _body, res) => {
      res.writeHead(200);
      res.write('partial');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const res = await httpFetch(url, { method: 'POST', body: '{}' });
    await expect(res.text()).rejects.toThrow(/aborted|terminated|ECONNRESET/);
  });

  it('follows redirects: 307 keeps the POST and its body, 303 becomes a GET; credentials stay with their origin', async () => {
    const seen: string[] = [];
    const other = await serve((req, _body, res) => {
      seen.push(
        `other ${req.method} ${req.url} key=${req.headers['x-api-key'] ?? '-'} auth=${req.headers.authorization ?? '-'}`,
      );
      res.end('done');
    });
    const url = await serve((req, body, res) => {
      seen.push(`here ${req.method} ${req.url} ${body}`);
      if (req.url === '/a') res.writeHead(307, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(303, { location: `${other}/c` }).end();
    });
    const res = await httpFetch(`${url}/a`, {
      method: 'POST',
      headers: { 'x-api-key': 'secret', authorization: 'Bearer t' },
      body: 'payload',
    });
    expect(await res.text()).toBe('done');
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`${other}/c`);
    expect(seen).toEqual(['here POST /a payload', 'here POST /b payload', 'other GET /c key=- auth=-']);
  });

  it('a compressed body is decoded (gzip, deflate, br), as Node fetch gives it', async () => {
    const json = JSON.stringify({ type: 'message', text: 'x'.repeat(2000) });
    const encoders: Record<string, (b: Buffer) => Buffer> = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
    };
    const url = await serve((req, _body, res) => {
      const encoding = String(req.url).slice(1);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(encoders[encoding]!(Buffer.from(json)));
    });
    for (const encoding of Object.keys(encoders)) {
      const res = await httpFetch(`${url}/${encoding}`);
      expect(await res.text()).toBe(json);
    }
  });

  it('a connection that does not open in time is a timeout the SDK recognises, not a two-minute wait', async ({
    onTestFinished,
  }) => {
    // A listener whose backlog is full: the kernel drops further SYNs, so a connect never completes.
    const sink = spawn('python3', [
      '-c',
      [
        'import socket, time',
        's = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)',
        'fill = []',
        'for i in range(3):',
        '    c = socket.socket(); c.setblocking(False)',
        '    try: c.connect(s.getsockname())',
        '    except BlockingIOError: pass',
        '    fill.append(c)',
        'time.sleep(0.2)',
        'print(s.getsockname()[1], flush=True)',
        'time.sleep(30)',
      ].join('\n'),
    ]);
    onTestFinished(() => {
      sink.kill();
    });
    const port = await new Promise<string>((resolve, reject) => {
      sink.stdout.once('data', (d) => resolve(String(d).trim()));
      sink.once('error', reject);
    });
    const started = Date.now();
    const error = await makeHttpFetch({ connectTimeoutMs: 300 })(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: '{}',
    }).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause).toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
    // The SDK's test for a timeout (client.mjs): /timed? ?out/i on the error and its cause.
    expect(String(error) + String(error.cause)).toMatch(/timed? ?out/i);
  });

  it('what it does not implement goes to the global fetch: another option, a streamed body, a proxy', async () => {
    const url = await serve((_req, _body, res) => res.end('ok'));
    const viaGlobal = [
      await httpFetch(url, { method: 'GET', keepalive: true }),
      await httpFetch(url, { method: 'POST', body: new Blob(['x']) }),
    ];
    const saved = process.env.NO_PROXY;
    process.env.HTTP_PROXY = 'http://127.0.0.1:9';
    process.env.NO_PROXY = '*';
    try {
      viaGlobal.push(await httpFetch(url, { method: 'GET' }));
    } finally {
      delete process.env.HTTP_PROXY;
      if (saved === undefined) delete process.env.NO_PROXY;
      else process.env.NO_PROXY = saved;
    }
    for (const res of viaGlobal) {
      expect(res).toBeInstanceOf(Response);
      expect(await res.text()).toBe('ok');
    }
    expect(await httpFetch(url)).toBeInstanceOf(HttpResponse);
  });
});
