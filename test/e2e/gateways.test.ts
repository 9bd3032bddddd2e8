// Gateways, proxies, certificates and apiKeyHelper, end to end: bin/agent against the fake
// Messages API reached through a local HTTP proxy, a TLS server with a test CA (and one that wants
// a client certificate), and with its key from a helper command.
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { lastToolResults, type RecordedRequest, startFakeApi, text, toolUse } from '../fake-api/server.js';
import { startMcpHttpServer } from '../cloud-fakes/mcpHttpServer.js';
import { startTestProxy } from '../cloud-fakes/proxy.js';
import { makeTestPki, startTlsFront } from '../cloud-fakes/tls.js';
import { STREAM_ARGS, tempDir, userLine } from './harness.js';
import { providerIt, providerRunner } from './providerFixture.js';

const initializeLine = `${JSON.stringify({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize' } })}\n`;

/** A run in its own folders, with no proxy variables but the test's. */
const run = providerRunner(() => ({
  HTTP_PROXY: undefined,
  HTTPS_PROXY: undefined,
  http_proxy: undefined,
  https_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
  NODE_EXTRA_CA_CERTS: undefined,
  AGENT_MAX_RETRIES: '0',
}));

describe.concurrent('a gateway in front of the API', () => {
  providerIt(
    'ANTHROPIC_BASE_URL with ANTHROPIC_AUTH_TOKEN and ANTHROPIC_CUSTOM_HEADERS: the token as a bearer, the headers on every request',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([toolUse('Bash', { command: 'true' }), text('through the gateway')]));
      const r = await run(
        [...STREAM_ARGS, '--allowedTools', 'Bash'],
        {
          ANTHROPIC_API_KEY: undefined,
          ANTHROPIC_BASE_URL: `${api.url}`,
          ANTHROPIC_AUTH_TOKEN: 'gateway-token',
          ANTHROPIC_CUSTOM_HEADERS: 'X-Team: platform\nX-Cost-Center: 42',
        },
        initializeLine + userLine('hi'),
      );
      expect(r.json().find((m) => m.type === 'result')).toMatchObject({ result: 'through the gateway' });
      // The token is the account's tokenSource; there is no API key (measured from the reference).
      expect(r.json().find((m) => m.subtype === 'init')?.apiKeySource).toBe('none');
      expect(r.json().find((m) => m.type === 'control_response')?.response.response.account).toEqual({
        tokenSource: 'ANTHROPIC_AUTH_TOKEN',
        apiProvider: 'firstParty',
      });
      expect(api.requests).toHaveLength(2);
      for (const q of api.requests) {
        expect(q.headers.authorization).toBe('Bearer gateway-token');
        expect(q.headers['x-api-key']).toBeUndefined();
        expect(q.headers['x-team']).toBe('platform');
        expect(q.headers['x-cost-center']).toBe('42');
      }
    },
  );
});

describe.concurrent('HTTP proxies', () => {
  providerIt(
    'HTTP_PROXY carries the API traffic to an http:// base URL as absolute-URI requests; NO_PROXY bypasses it',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([text('via the proxy'), text('direct')]));
      const proxy = servers.add(await startTestProxy());
      const via = await run(['-p', 'hi'], { ANTHROPIC_BASE_URL: api.url, HTTP_PROXY: proxy.url });
      expect(via.stdout).toContain('via the proxy');
      expect(proxy.seen).toEqual([`POST ${api.url}/v1/messages`]);
      const direct = await run(['-p', 'hi'], {
        ANTHROPIC_BASE_URL: api.url,
        HTTP_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1',
      });
      expect(direct.stdout).toContain('direct');
      expect(proxy.seen).toHaveLength(1);
    },
  );

  providerIt('HTTPS_PROXY tunnels an https:// base URL with CONNECT', async ({ servers }) => {
    const pki = makeTestPki(tempDir('agent-gw-'));
    const { front: tls } = await servers.fixture([text('tunnelled')], (api) => startTlsFront(pki, api.url));
    const proxy = servers.add(await startTestProxy());
    const r = await run(['-p', 'hi'], {
      ANTHROPIC_BASE_URL: tls.url,
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: pki.caCert,
    });
    expect(r.stdout).toContain('tunnelled');
    expect(proxy.seen).toEqual([`CONNECT ${new URL(tls.url).host}`]);
  });

  providerIt('WebFetch and an MCP server over HTTP go through HTTP_PROXY too', async ({ servers }) => {
    const pageUrl = `${await servers.page('<html><body><p>The proxied answer is 42.</p></body></html>')}/page`;
    const mcp = await startMcpHttpServer();
    try {
      const script = [
        toolUse('WebFetch', { url: pageUrl, prompt: 'What is the answer?' }),
        toolUse('mcp__calc__add', { a: 2, b: 3 }),
        text('both through the proxy'),
      ];
      let main = 0;
      // WebFetch's page question is a call of its own (the small model): it gets its answer.
      const api = servers.add(
        await startFakeApi((req) => (req.body.model === 'claude-haiku-5-5' ? text('page says 42') : script[main++])),
      );
      const proxy = servers.add(await startTestProxy());
      const r = await run(
        [
          ...STREAM_ARGS,
          '--allowedTools',
          'WebFetch,mcp__calc__add',
          '--mcp-config',
          JSON.stringify({ mcpServers: { calc: { type: 'http', url: mcp.url } } }),
        ],
        { ANTHROPIC_BASE_URL: api.url, HTTP_PROXY: proxy.url },
        userLine('fetch and add'),
      );
      expect(r.code, r.stderr).toBe(0);
      const results = r
        .json()
        .flatMap((m) =>
          m.type === 'user' && Array.isArray(m.message.content)
            ? m.message.content.filter((b: { type: string }) => b.type === 'tool_result')
            : [],
        );
      expect(JSON.stringify(results[0].content)).toContain('page says 42');
      expect(JSON.stringify(results[1].content)).toContain('5');
      expect(proxy.seen).toContain(`GET ${pageUrl}`);
      expect(proxy.seen).toContain(`POST ${mcp.url}`);
      expect(proxy.seen.filter((s) => s === `POST ${api.url}/v1/messages`)).toHaveLength(api.requests.length);
      // Everything the MCP server saw came through the proxy.
      expect(mcp.seen.filter((s) => s.startsWith('POST'))).toHaveLength(
        proxy.seen.filter((s) => s === `POST ${mcp.url}`).length,
      );
    } finally {
      await mcp.close();
    }
  });

  providerIt('an unusable proxy URL stops the start, naming the variable', async () => {
    const r = await run(['-p', 'hi'], { HTTPS_PROXY: 'not a url' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('HTTPS_PROXY is not a URL');
  });
});

describe.concurrent('certificates', () => {
  providerIt('a server signed by a private CA is reached only with NODE_EXTRA_CA_CERTS', async ({ servers }) => {
    const pki = makeTestPki(tempDir('agent-gw-'));
    const { api, front: tls } = await servers.fixture([text('trusted now')], (api) => startTlsFront(pki, api.url));
    const refused = await run(['-p', 'hi'], { ANTHROPIC_BASE_URL: tls.url });
    expect(refused.code).not.toBe(0);
    expect(api.requests).toHaveLength(0);
    const trusted = await run(['-p', 'hi'], { ANTHROPIC_BASE_URL: tls.url, NODE_EXTRA_CA_CERTS: pki.caCert });
    expect(trusted.stdout).toContain('trusted now');
  });

  providerIt(
    'NODE_EXTRA_CA_CERTS is read at the first TLS connection, not at start; Bash gets the variable as the host gave it',
    async ({ servers }) => {
      const pki = makeTestPki(tempDir('agent-gw-'));
      // The Bash call's parent is the agent: its environ is what Node was started with.
      const show =
        "echo \"ca=[${NODE_EXTRA_CA_CERTS-unset}] was=[${AGENT_CA_WAS-unset}] node-started-with=[$(tr '\\0' '\\n' < /proc/$PPID/environ | grep -c '^NODE_EXTRA_CA_CERTS=')]\"";
      const { front: tls } = await servers.fixture(
        (req: RecordedRequest, i: number) =>
          i === 0 ? toolUse('Bash', { command: show }) : text(JSON.stringify(lastToolResults(req))),
        (api) => startTlsFront(pki, api.url),
      );
      const r = await run(['-p', 'show the certificate setting', '--allowedTools', 'Bash'], {
        ANTHROPIC_BASE_URL: tls.url,
        NODE_EXTRA_CA_CERTS: pki.caCert,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`ca=[${pki.caCert}] was=[unset] node-started-with=[0]`);
    },
  );

  providerIt(
    'mTLS: refused without CLAUDE_CODE_CLIENT_CERT, accepted with it (an encrypted key and its passphrase)',
    async ({ servers }) => {
      const pki = makeTestPki(tempDir('agent-gw-'));
      const { api, front: tls } = await servers.fixture([text('client certificate accepted')], (api) =>
        startTlsFront(pki, api.url, { requireClientCert: true }),
      );
      // The refusal through a TLS 1.2 front of the same API: refused in the handshake itself
      // (test/cloud-fakes/tls.ts says why not under TLS 1.3).
      const tls12 = servers.add(await startTlsFront(pki, api.url, { requireClientCert: true, maxVersion: 'TLSv1.2' }));
      const refused = await run(['-p', 'hi'], { ANTHROPIC_BASE_URL: tls12.url, NODE_EXTRA_CA_CERTS: pki.caCert });
      expect(refused.code).not.toBe(0);
      expect(api.requests).toHaveLength(0);
      const accepted = await run(['-p', 'hi'], {
        ANTHROPIC_BASE_URL: tls.url,
        NODE_EXTRA_CA_CERTS: pki.caCert,
        CLAUDE_CODE_CLIENT_CERT: pki.clientCert,
        CLAUDE_CODE_CLIENT_KEY: pki.clientKey,
        CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: pki.clientKeyPassphrase,
      });
      expect(accepted.stdout).toContain('client certificate accepted');
      expect(tls.clients.at(-1)).toBe('agent test client');
    },
  );
});

describe.concurrent('apiKeyHelper', () => {
  /** A helper that prints key-1, key-2, … and counts its runs in a file. */
  function helperSettings(dir: string) {
    const counter = join(dir, 'runs');
    const script = join(dir, 'helper.sh');
    writeFileSync(counter, '0');
    writeFileSync(script, `#!/bin/sh\nn=$(($(cat '${counter}') + 1))\necho $n > '${counter}'\necho key-$n\n`);
    chmodSync(script, 0o755);
    const settings = join(dir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ apiKeyHelper: script }));
    return { settings, runs: () => Number(readFileSync(counter, 'utf8')) };
  }
  const keyOf = (q: RecordedRequest) => [q.headers['x-api-key'], q.headers.authorization];

  providerIt(
    'its key goes as x-api-key and as a bearer token; it is run again after its TTL, and not before',
    async ({ servers }) => {
      const dir = tempDir('agent-gw-');
      mkdirSync(dir, { recursive: true });
      const h = helperSettings(dir);
      const api = servers.add(
        await startFakeApi([
          toolUse('Bash', { command: 'env' }),
          text('one'),
          toolUse('Bash', { command: 'true' }),
          text('two'),
        ]),
      );
      const config = tempDir('agent-gw-config-');
      const long = await run(
        [...STREAM_ARGS, '--settings', h.settings, '--allowedTools', 'Bash'],
        { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: api.url, CLAUDE_CONFIG_DIR: config },
        initializeLine + userLine('first'),
      );
      const lines = long.json();
      expect(lines.find((m) => m.type === 'system' && m.subtype === 'init')?.apiKeySource).toBe('apiKeyHelper');
      expect(lines.find((m) => m.type === 'control_response')?.response.response.account).toEqual({
        tokenSource: 'apiKeyHelper',
        apiKeySource: 'apiKeyHelper',
        apiProvider: 'firstParty',
      });
      expect(lines.find((m) => m.type === 'result')).toMatchObject({ result: 'one' });
      expect(h.runs()).toBe(1);
      expect(api.requests.map(keyOf)).toEqual([
        ['key-1', 'Bearer key-1'],
        ['key-1', 'Bearer key-1'],
      ]);
      const short = await run(
        [...STREAM_ARGS, '--settings', h.settings, '--allowedTools', 'Bash'],
        { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: api.url, CLAUDE_CODE_API_KEY_HELPER_TTL_MS: '1' },
        userLine('second'),
      );
      expect(short.json().find((m) => m.type === 'result')).toMatchObject({ result: 'two' });
      expect(h.runs()).toBe(3);
      expect(api.requests.slice(2).map(keyOf)).toEqual([
        ['key-2', 'Bearer key-2'],
        ['key-3', 'Bearer key-3'],
      ]);
      // The key is in no log, output or child: Bash printed its environment to the model.
      expect(JSON.stringify(api.requests[1].body.messages.at(-1))).toContain('PATH=');
      expect(JSON.stringify(api.requests[1].body)).not.toContain('key-1');
      expect(long.stdout + long.stderr + short.stdout + short.stderr).not.toContain('key-1');
      // Nor in anything the session wrote to its config folder (the transcript among it).
      const written = readdirSync(config, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(written.some((e) => e.name.endsWith('.jsonl'))).toBe(true);
      for (const e of written) expect(readFileSync(join(e.parentPath, e.name), 'utf8')).not.toContain('key-1');
    },
  );

  providerIt('a 401 runs it again at once, and the request is sent again with the new key', async ({ servers }) => {
    const dir = tempDir('agent-gw-');
    const h = helperSettings(dir);
    const api = servers.add(
      await startFakeApi((q) =>
        q.headers['x-api-key'] === 'key-1'
          ? { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }
          : text('with the rotated key'),
      ),
    );
    const r = await run(['-p', 'hi', '--settings', h.settings], {
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: api.url,
    });
    expect(r.stdout).toContain('with the rotated key');
    expect(h.runs()).toBe(2);
    expect(api.requests.map(keyOf)).toEqual([
      ['key-1', 'Bearer key-1'],
      ['key-2', 'Bearer key-2'],
    ]);
  });

  providerIt('a helper that fails: an error naming apiKeyHelper and its exit, nothing sent', async ({ servers }) => {
    const dir = tempDir('agent-gw-');
    const settings = join(dir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ apiKeyHelper: 'echo no vault here >&2; exit 3' }));
    const api = servers.add(await startFakeApi([text('never')]));
    const r = await run(['-p', 'hi', '--settings', settings], {
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: api.url,
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('apiKeyHelper (echo no vault here >&2; exit 3) exited with 3: no vault here');
    expect(api.requests).toHaveLength(0);
  });
});
