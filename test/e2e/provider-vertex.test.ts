// Google Vertex AI end to end: bin/agent with the real @anthropic-ai/vertex-sdk and
// google-auth-library, a test service-account key file, and a fake Vertex endpoint
// (test/cloud-fakes/vertex.ts) in front of the fake Messages API. google-auth-library exchanges the
// key's signed JWT at https://oauth2.googleapis.com/token, a fixed URL: the test reaches it as a
// corporate network would, through HTTPS_PROXY (a local proxy that sends that host to a fake token
// endpoint) and NODE_EXTRA_CA_CERTS (the fake's certificate is signed by a test CA).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { overloaded, text, toolUse } from '../fake-api/server.js';
import { startTestProxy } from '../cloud-fakes/proxy.js';
import { makeTestPki } from '../cloud-fakes/tls.js';
import { startFakeVertex, startTokenServer, writeServiceAccountKey } from '../cloud-fakes/vertex.js';
import { STREAM_ARGS, tempDir, userLine } from './harness.js';
import { providerIt, providerRunner, type ServerScope } from './providerFixture.js';

const initializeLine = `${JSON.stringify({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize' } })}\n`;

/** Only what the test gives: no key of the Anthropic API, no Google credentials or gcloud set-up, no proxy. */
const run = providerRunner((home) => ({
  HOME: home, // no gcloud configuration of the machine's
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_BASE_URL: undefined,
  GOOGLE_APPLICATION_CREDENTIALS: undefined,
  METADATA_SERVER_DETECTION: 'none',
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  https_proxy: undefined,
  no_proxy: undefined,
  CLAUDE_CODE_USE_VERTEX: '1',
}));

/**
 * Google's token endpoint for a service-account key of `project` written to `keyFile` (a fresh
 * folder's sa.json by default), with a test CA, reached through a proxy that sends
 * oauth2.googleapis.com to it; both closed when the test ends.
 */
async function googleTokens(servers: ServerScope, project: string, keyFile?: string) {
  const dir = tempDir('agent-vertex-');
  const pki = makeTestPki(dir, { dnsNames: ['oauth2.googleapis.com'] });
  const sa = writeServiceAccountKey(keyFile ?? join(dir, 'sa.json'), project);
  const tokens = servers.add(
    await startTokenServer(sa, { cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }),
  );
  const proxy = servers.add(await startTestProxy({ redirect: { 'oauth2.googleapis.com:443': tokens.address } }));
  return { pki, sa, tokens, proxy };
}

describe.concurrent('Google Vertex AI', () => {
  providerIt(
    'a streamed multi-turn tool session: a service-account token, streamRawPredict for the project and region, caching, a retried 529',
    async ({ servers }) => {
      const { pki, sa, tokens, proxy } = await googleTokens(servers, 'test-project');
      const { api, front: vertex } = await servers.fixture(
        [overloaded(), toolUse('Bash', { command: 'echo from-bash' }), text('all done')],
        (api) => startFakeVertex(api, { project: 'test-project', regions: ['us-east5'], tokens }),
      );
      const r = await run(
        [...STREAM_ARGS, '--allowedTools', 'Bash'],
        {
          CLOUD_ML_REGION: 'us-east5',
          ANTHROPIC_VERTEX_PROJECT_ID: 'test-project',
          ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
          GOOGLE_APPLICATION_CREDENTIALS: sa.keyFile,
          HTTPS_PROXY: proxy.url,
          NO_PROXY: '127.0.0.1',
          NODE_EXTRA_CA_CERTS: pki.caCert,
        },
        userLine('run the command'),
      );
      expect(r.code).toBe(0);
      const lines = r.json();
      expect(lines.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'all done' });
      expect(lines.filter((m) => m.subtype === 'api_retry').map((m) => m.error_status)).toEqual([529]);
      expect(tokens.refused).toEqual([]);
      expect(tokens.issued).toHaveLength(1); // one token, kept for its lifetime
      expect(proxy.seen).toEqual(['CONNECT oauth2.googleapis.com:443']);
      expect(vertex.seen.map((s) => [s.path, s.refused])).toEqual(
        Array(3).fill([
          '/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-opus-5-5:streamRawPredict',
          null,
        ]),
      );
      expect(JSON.stringify(api.requests[2].body.messages.at(-1))).toContain('from-bash');
      expect(api.requests[2].billed!.cache_read_input_tokens).toBeGreaterThan(0);
    },
  );

  providerIt(
    "gcloud's application default credentials file ($HOME/.config/gcloud) is found without GOOGLE_APPLICATION_CREDENTIALS; the project comes from it",
    async ({ servers }) => {
      const home = tempDir('agent-vertex-home-');
      mkdirSync(join(home, '.config', 'gcloud'), { recursive: true });
      const { pki, tokens, proxy } = await googleTokens(
        servers,
        'adc-project',
        join(home, '.config', 'gcloud', 'application_default_credentials.json'),
      );
      const { front: vertex } = await servers.fixture([text('from adc')], (api) =>
        startFakeVertex(api, { project: 'adc-project', regions: ['us-east5'], tokens }),
      );
      const r = await run(['-p', 'hi'], {
        HOME: home,
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: pki.caCert,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('from adc');
      expect(tokens.issued).toHaveLength(1);
      expect(vertex.seen.map((s) => [s.path.split(':')[0].split('/').slice(0, 5).join('/'), s.refused])).toEqual([
        ['/v1/projects/adc-project/locations', null],
      ]);
    },
  );

  providerIt(
    "VERTEX_REGION_CLAUDE_* sends that model to its own region; CLAUDE_CODE_SKIP_VERTEX_AUTH sends no credentials; initialize's account names the provider alone",
    async ({ servers }) => {
      const { front: vertex } = await servers.fixture([text('from europe')], (api) =>
        startFakeVertex(api, { project: 'gw-project', regions: ['europe-west1'], tokens: null }),
      );
      const r = await run(
        [...STREAM_ARGS, '--model', 'claude-haiku-5-5'],
        {
          CLOUD_ML_REGION: 'us-east5',
          VERTEX_REGION_CLAUDE_HAIKU_5_5: 'europe-west1',
          ANTHROPIC_VERTEX_PROJECT_ID: 'gw-project',
          ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
          CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
        },
        initializeLine + userLine('hi'),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('from europe');
      const lines = r.json();
      expect(lines.find((m) => m.type === 'control_response')?.response.response.account).toEqual({
        apiProvider: 'vertex',
      });
      expect(lines.find((m) => m.subtype === 'init')?.apiKeySource).toBe('none');
      expect(vertex.seen.map((s) => [s.path, s.refused])).toEqual([
        [
          '/v1/projects/gw-project/locations/europe-west1/publishers/anthropic/models/claude-haiku-5-5:streamRawPredict',
          null,
        ],
      ]);
    },
  );

  providerIt(
    'no Google credentials: an error naming Vertex AI and where it looked; nothing is sent',
    async ({ servers }) => {
      const { front: vertex } = await servers.fixture([text('never')], (api) =>
        startFakeVertex(api, { project: 'test-project', regions: ['us-east5'], tokens: null }),
      );
      const started = Date.now();
      const r = await run(['-p', 'hi'], {
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'test-project',
        ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
      });
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(
        /Vertex AI: no Google credentials found \(tried GOOGLE_APPLICATION_CREDENTIALS/,
      );
      expect(vertex.seen).toHaveLength(0);
      expect(Date.now() - started).toBeLessThan(15_000);
      const noRegion = await run(['-p', 'hi'], { ANTHROPIC_VERTEX_PROJECT_ID: 'test-project' });
      expect(noRegion.stdout + noRegion.stderr).toContain('Vertex AI: CLOUD_ML_REGION is not set');
    },
  );

  providerIt('a malformed stream is asked again without streaming: rawPredict', async ({ servers }) => {
    const { front: vertex } = await servers.fixture(
      [{ malformed: { afterText: 'Hel' } }, text('answered by rawPredict')],
      (api) => startFakeVertex(api, { project: 'gw-project', regions: ['us-east5'], tokens: null }),
    );
    const r = await run(['-p', 'hi'], {
      CLOUD_ML_REGION: 'us-east5',
      ANTHROPIC_VERTEX_PROJECT_ID: 'gw-project',
      ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answered by rawPredict');
    const base = '/v1/projects/gw-project/locations/us-east5/publishers/anthropic/models/claude-opus-5-5';
    expect(vertex.seen.map((s) => [s.path, s.refused])).toEqual([
      [`${base}:streamRawPredict`, null],
      [`${base}:rawPredict`, null],
    ]);
  });

  providerIt('a refusal names Vertex AI and what to check, never a bare 401', async ({ servers }) => {
    // The endpoint wants a token the test's authority issued; the run sends none.
    const noneIssued = { address: '', issued: [], refused: [], close: async () => {} };
    const { api, front: vertex } = await servers.fixture([text('never')], (api) =>
      startFakeVertex(api, { project: 'test-project', regions: ['us-east5'], tokens: noneIssued }),
    );
    const r = await run(['-p', 'hi'], {
      CLOUD_ML_REGION: 'us-east5',
      ANTHROPIC_VERTEX_PROJECT_ID: 'test-project',
      ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
      AGENT_MAX_RETRIES: '0',
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(
      /Vertex AI: API Error: 401 .*\(check the Google credentials, ANTHROPIC_VERTEX_PROJECT_ID and CLOUD_ML_REGION\)/,
    );
    expect(vertex.seen.map((s) => s.refused)).toEqual([expect.stringContaining('invalid authentication')]);
    expect(api.requests).toHaveLength(0);
  });

  providerIt(
    "the aliases are Vertex AI's models (measured from the reference), and ANTHROPIC_DEFAULT_SONNET_MODEL wins",
    async ({ servers }) => {
      const { front: vertex } = await servers.fixture(
        () => text('ok'),
        (api) => startFakeVertex(api, { project: 'gw-project', regions: ['us-east5'], tokens: null }),
      );
      const env = {
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'gw-project',
        ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
        CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
      };
      for (const [model, extra] of [
        ['sonnet', {}],
        ['haiku', {}],
        ['sonnet', { ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude-sonnet-4-6' }],
      ] as const) {
        const r = await run(['-p', 'hi', '--model', model], { ...env, ...extra });
        expect(r.code, r.stderr).toBe(0);
      }
      const base = '/v1/projects/gw-project/locations/us-east5/publishers/anthropic/models/';
      expect(vertex.seen.map((s) => s.path)).toEqual([
        `${base}claude-sonnet-4-5@20250929:streamRawPredict`,
        `${base}claude-haiku-4-5@20251001:streamRawPredict`,
        `${base}claude-sonnet-4-6:streamRawPredict`,
      ]);
    },
  );

  providerIt(
    'gcpAuthRefresh runs once when no credentials resolve, then the chain is asked again',
    async ({ servers }) => {
      const { pki, sa, tokens, proxy } = await googleTokens(servers, 'test-project');
      const { api, front: vertex } = await servers.fixture([text('refreshed')], (api) =>
        startFakeVertex(api, { project: 'test-project', regions: ['us-east5'], tokens }),
      );
      const home = tempDir('agent-vertex-');
      const adc = join(home, 'adc.json');
      // The "login": it puts the key where GOOGLE_APPLICATION_CREDENTIALS points, and counts its runs.
      writeFileSync(
        join(home, 'settings.json'),
        JSON.stringify({ gcpAuthRefresh: `cp ${sa.keyFile} ${adc} && echo ran >> ${join(home, 'runs')}` }),
      );
      const r = await run(['-p', 'hi'], {
        CLAUDE_CONFIG_DIR: home,
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'test-project',
        ANTHROPIC_VERTEX_BASE_URL: `${vertex.url}/v1`,
        GOOGLE_APPLICATION_CREDENTIALS: adc,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: pki.caCert,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('refreshed');
      expect(r.stderr).toContain('Vertex AI: no Google credentials found; running gcpAuthRefresh');
      expect(readFileSync(join(home, 'runs'), 'utf8')).toBe('ran\n');
      expect(tokens.issued).toHaveLength(1);

      // A refresh that does not help: the error names Vertex AI, and nothing is sent.
      const noTokens = servers.add(
        await startFakeVertex(api, { project: 'test-project', regions: ['us-east5'], tokens: null }),
      );
      const home2 = tempDir('agent-vertex-');
      writeFileSync(join(home2, 'settings.json'), JSON.stringify({ gcpAuthRefresh: 'true' }));
      const failed = await run(['-p', 'hi'], {
        CLAUDE_CONFIG_DIR: home2,
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'test-project',
        ANTHROPIC_VERTEX_BASE_URL: `${noTokens.url}/v1`,
        GOOGLE_APPLICATION_CREDENTIALS: join(home2, 'missing.json'),
      });
      expect(failed.code).not.toBe(0);
      expect(failed.stdout + failed.stderr).toMatch(/Vertex AI: no Google credentials found \(tried/);
      expect(noTokens.seen).toHaveLength(0);
    },
  );
});
