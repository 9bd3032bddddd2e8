// Microsoft Foundry end to end: bin/agent with the real @anthropic-ai/foundry-sdk against a fake
// Foundry endpoint (test/cloud-fakes/foundry.ts) in front of the fake Messages API.
import { describe, expect } from 'vitest';
import { overloaded, text, toolUse } from '../fake-api/server.js';
import { readFileSync } from 'node:fs';
import { startFakeEntra } from '../cloud-fakes/entra.js';
import { startFakeFoundry } from '../cloud-fakes/foundry.js';
import { startTestProxy } from '../cloud-fakes/proxy.js';
import { makeTestPki, startTlsFront } from '../cloud-fakes/tls.js';
import { STREAM_ARGS, tempDir, userLine } from './harness.js';
import { providerIt, providerRunner } from './providerFixture.js';

const initializeLine = `${JSON.stringify({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize' } })}\n`;

/** Only what the test gives: no key of the Anthropic API or of Foundry, no Azure identity. */
const run = providerRunner((home) => ({
  HOME: home,
  HTTP_PROXY: undefined,
  HTTPS_PROXY: undefined,
  http_proxy: undefined,
  https_proxy: undefined,
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_BASE_URL: undefined,
  ANTHROPIC_FOUNDRY_API_KEY: undefined,
  ANTHROPIC_FOUNDRY_RESOURCE: undefined,
  AZURE_CLIENT_ID: undefined,
  AZURE_TENANT_ID: undefined,
  AZURE_CLIENT_SECRET: undefined,
  CLAUDE_CODE_USE_FOUNDRY: '1',
}));

describe.concurrent('Microsoft Foundry', () => {
  providerIt(
    'a streamed multi-turn tool session: POST /anthropic/v1/messages with x-api-key, caching, a retried 529',
    async ({ servers }) => {
      const { api, front: foundry } = await servers.fixture(
        [overloaded(), toolUse('Bash', { command: 'echo from-bash' }), text('all done')],
        (api) => startFakeFoundry(api, { apiKey: 'foundry-key-1' }),
      );
      const r = await run(
        [...STREAM_ARGS, '--allowedTools', 'Bash'],
        { ANTHROPIC_FOUNDRY_BASE_URL: `${foundry.url}/anthropic`, ANTHROPIC_FOUNDRY_API_KEY: 'foundry-key-1' },
        userLine('run the command'),
      );
      expect(r.code).toBe(0);
      const lines = r.json();
      expect(lines.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'all done' });
      expect(lines.filter((m) => m.subtype === 'api_retry').map((m) => m.error_status)).toEqual([529]);
      expect(foundry.seen.map((s) => [s.path.split('?')[0], s.refused, s.headers['x-api-key']])).toEqual(
        Array(3).fill(['/anthropic/v1/messages', null, 'foundry-key-1']),
      );
      // Foundry's default model is Sonnet 4.5, as the reference sends it (measured).
      expect(api.requests.map((q) => q.body.model)).toEqual(Array(3).fill('claude-sonnet-4-5'));
      expect(api.requests[2].billed!.cache_read_input_tokens).toBeGreaterThan(0);
    },
  );

  providerIt(
    'ANTHROPIC_FOUNDRY_RESOURCE names the endpoint: https://<resource>.services.ai.azure.com/anthropic/v1/messages',
    async ({ servers }) => {
      // The resource's public host is reached as a corporate network would: through HTTPS_PROXY (a
      // local proxy that sends that host to a TLS front of the fake) with the test CA trusted.
      const host = 'agent-test-res.services.ai.azure.com';
      const pki = makeTestPki(tempDir('agent-foundry-'), { dnsNames: [host] });
      const { front: foundry } = await servers.fixture([text('from the resource')], (api) =>
        startFakeFoundry(api, { apiKey: 'foundry-key-1' }),
      );
      const tls = servers.add(await startTlsFront(pki, foundry.url));
      const proxy = servers.add(await startTestProxy({ redirect: { [`${host}:443`]: new URL(tls.url).host } }));
      const r = await run(['-p', 'hi'], {
        ANTHROPIC_FOUNDRY_RESOURCE: 'agent-test-res',
        ANTHROPIC_FOUNDRY_API_KEY: 'foundry-key-1',
        HTTPS_PROXY: proxy.url,
        NODE_EXTRA_CA_CERTS: pki.caCert,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('from the resource');
      expect(proxy.seen).toEqual([`CONNECT ${host}:443`]);
      expect(foundry.seen.map((s) => [s.path.split('?')[0], s.refused])).toEqual([['/anthropic/v1/messages', null]]);
    },
  );

  providerIt(
    "without a key, Microsoft Entra ID: @azure/identity's service principal from the environment gets a token, sent as a bearer",
    async ({ servers }) => {
      // login.microsoftonline.com is reached as a corporate network would: through HTTPS_PROXY to a
      // fake authority (test/cloud-fakes/entra.ts) with a certificate from the test CA.
      const pki = makeTestPki(tempDir('agent-foundry-'), { dnsNames: ['login.microsoftonline.com'] });
      const principal = {
        tenantId: '0e6f1c2a-1111-4222-8333-944445555666',
        clientId: 'agent-test-client',
        clientSecret: 'agent-test-secret',
        scope: 'https://cognitiveservices.azure.com/.default',
      };
      const entra = servers.add(
        await startFakeEntra(principal, { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }),
      );
      const proxy = servers.add(await startTestProxy({ redirect: { 'login.microsoftonline.com:443': entra.address } }));
      const { front: foundry } = await servers.fixture(
        [toolUse('Bash', { command: 'true' }), text('with entra')],
        (api) => startFakeFoundry(api, { apiKey: null, bearer: () => entra.issued }),
      );
      const env = {
        ANTHROPIC_FOUNDRY_BASE_URL: `${foundry.url}/anthropic`,
        AZURE_TENANT_ID: principal.tenantId,
        AZURE_CLIENT_ID: principal.clientId,
        AZURE_CLIENT_SECRET: principal.clientSecret,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: pki.caCert,
      };
      const r = await run(['-p', 'hi', '--allowedTools', 'Bash'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('with entra');
      expect(entra.refused).toEqual([]);
      expect(entra.issued).toHaveLength(1); // one token, kept for both requests
      expect(proxy.seen).toEqual(['CONNECT login.microsoftonline.com:443']);
      expect(foundry.seen.map((s) => [s.path.split('?')[0], s.refused, s.headers.authorization])).toEqual(
        Array(2).fill(['/anthropic/v1/messages', null, `Bearer ${entra.issued[0]}`]),
      );

      // A wrong secret: the authority refuses it, and the error names Foundry and Entra ID; nothing is sent.
      const wrong = await run(['-p', 'hi'], { ...env, AZURE_CLIENT_SECRET: 'not-the-secret' });
      expect(wrong.code).not.toBe(0);
      expect(wrong.stdout + wrong.stderr).toMatch(
        /Foundry: no ANTHROPIC_FOUNDRY_API_KEY, and no Microsoft Entra ID credentials found/,
      );
      expect(entra.refused.at(-1)).toMatch(/Invalid client secret/);
      // Neither the secret nor a token is shown.
      expect(r.stdout + r.stderr + wrong.stdout + wrong.stderr).not.toMatch(
        /agent-test-secret|not-the-secret|entra-test-/,
      );
      expect(foundry.seen).toHaveLength(2);
    },
  );

  providerIt('a wrong key: the refusal names Foundry and the setting', async ({ servers }) => {
    const { front: foundry } = await servers.fixture([text('never')], (api) =>
      startFakeFoundry(api, { apiKey: 'foundry-key-1' }),
    );
    const r = await run(['-p', 'hi'], {
      ANTHROPIC_FOUNDRY_BASE_URL: `${foundry.url}/anthropic`,
      ANTHROPIC_FOUNDRY_API_KEY: 'wrong',
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/Foundry: API Error: 401 .*check ANTHROPIC_FOUNDRY_API_KEY/);
  });

  providerIt(
    'no endpoint, or no credentials: errors naming Foundry and the missing setting; nothing is sent',
    async ({ servers }) => {
      const { front: foundry } = await servers.fixture([text('never')], (api) =>
        startFakeFoundry(api, { apiKey: 'foundry-key-1' }),
      );
      const noEndpoint = await run(['-p', 'hi'], { ANTHROPIC_FOUNDRY_API_KEY: 'foundry-key-1' });
      expect(noEndpoint.stdout + noEndpoint.stderr).toContain(
        'Foundry: neither ANTHROPIC_FOUNDRY_RESOURCE (the resource name) nor ANTHROPIC_FOUNDRY_BASE_URL is set',
      );
      const noKey = await run(['-p', 'hi'], {
        ANTHROPIC_FOUNDRY_BASE_URL: `${foundry.url}/anthropic`,
        PATH: '/usr/bin:/bin',
      });
      expect(noKey.code).not.toBe(0);
      expect(noKey.stdout + noKey.stderr).toMatch(
        /Foundry: no ANTHROPIC_FOUNDRY_API_KEY, and no Microsoft Entra ID credentials found/,
      );
      expect(foundry.seen).toHaveLength(0);
    },
  );

  providerIt(
    "CLAUDE_CODE_SKIP_FOUNDRY_AUTH sends no credentials (a gateway adds them); initialize's account names the provider alone",
    async ({ servers }) => {
      const { front: foundry } = await servers.fixture([text('through the gateway')], (api) =>
        startFakeFoundry(api, { apiKey: null }),
      );
      const r = await run(
        STREAM_ARGS,
        { ANTHROPIC_FOUNDRY_BASE_URL: `${foundry.url}/anthropic`, CLAUDE_CODE_SKIP_FOUNDRY_AUTH: '1' },
        initializeLine + userLine('hi'),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('through the gateway');
      expect(foundry.seen[0].refused).toBeNull();
      const lines = r.json();
      expect(lines.find((m) => m.type === 'control_response')?.response.response.account).toEqual({
        apiProvider: 'foundry',
      });
      expect(lines.find((m) => m.subtype === 'init')?.apiKeySource).toBe('none');
    },
  );
});
