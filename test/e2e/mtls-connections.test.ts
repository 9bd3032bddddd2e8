// CLAUDE_CODE_CLIENT_CERT on every outbound connection, end to end: each server here asks for a
// client certificate signed by the test CA (test/cloud-fakes/tls.ts) and refuses a connection
// without one. WebFetch and an MCP server over HTTP (fetch), the AWS credential chain's STS call
// and Bedrock's inference-profile lookup (the AWS SDK's Node http client), and the OTLP exporters
// (HTTP, and gRPC with its own TLS) must each present the certificate when it is set.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { startFakeApi, text, toolUse } from '../fake-api/server.js';
import { isolatedBedrockEnv, startFakeBedrock } from '../cloud-fakes/bedrock.js';
import { startMcpHttpServer } from '../cloud-fakes/mcpHttpServer.js';
import { type FakeCollector, startFakeCollector } from '../cloud-fakes/otlpCollector.js';
import { startFakeSts } from '../cloud-fakes/sts.js';
import { makeTestPki, startTlsFront, type TestPki } from '../cloud-fakes/tls.js';
import { runAgent, STREAM_ARGS, tempDir, userLine } from './harness.js';
import { agentSlots, providerIt } from './providerFixture.js';

// The tests run side by side: the servers each starts are in its own `servers` scope. The test CA
// is the file's (made once, synchronously, before any test needs it).
const scratch = () => tempDir('agent-mtls-');

let pkiMade: TestPki | undefined;
function pki(): TestPki {
  pkiMade ??= makeTestPki(scratch());
  return pkiMade;
}

/** The client certificate's variables (an encrypted key and its passphrase), and the test CA trusted. */
function certEnv(p: TestPki) {
  return {
    CLAUDE_CODE_CLIENT_CERT: p.clientCert,
    CLAUDE_CODE_CLIENT_KEY: p.clientKey,
    CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: p.clientKeyPassphrase,
  };
}

/** Three runs at a time at most (agentSlots). */
const slot = agentSlots(3);

function run(args: string[], env: Record<string, string | undefined>, input?: string) {
  return slot(() => runNow(args, env, input));
}

function runNow(args: string[], env: Record<string, string | undefined>, input?: string) {
  const home = scratch();
  const otel: Record<string, undefined> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) otel[k] = undefined;
  return runAgent({
    args,
    input,
    cwd: home,
    env: {
      ...otel,
      CLAUDE_CONFIG_DIR: home,
      HTTP_PROXY: undefined,
      HTTPS_PROXY: undefined,
      http_proxy: undefined,
      https_proxy: undefined,
      NO_PROXY: undefined,
      no_proxy: undefined,
      CLAUDE_CODE_CLIENT_CERT: undefined,
      CLAUDE_CODE_CLIENT_KEY: undefined,
      CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: undefined,
      NODE_EXTRA_CA_CERTS: pki().caCert,
      AGENT_MAX_RETRIES: '0',
      ...env,
    },
  });
}

describe.concurrent('mTLS on every connection', () => {
  providerIt(
    'WebFetch and an MCP server over HTTP present the client certificate; without it both are refused',
    async ({ servers }) => {
      const page = await servers.page('<html><body><p>The guarded answer is 42.</p></body></html>');
      const mcp = await startMcpHttpServer();
      servers.onClose(() => mcp.close());
      const pageFront = await startTlsFront(pki(), page, {
        requireClientCert: true,
      });
      servers.onClose(() => pageFront.close());
      const mcpFront = await startTlsFront(pki(), new URL(mcp.url).origin, { requireClientCert: true });
      servers.onClose(() => mcpFront.close());
      const pageUrl = `${pageFront.url}/page`;
      const mcpUrl = `${mcpFront.url}${new URL(mcp.url).pathname}`;

      const session = async (env: Record<string, string>) => {
        const script = [
          toolUse('WebFetch', { url: pageUrl, prompt: 'What is the answer?' }),
          toolUse('mcp__calc__add', { a: 2, b: 3 }),
          text('finished'),
        ];
        let main = 0;
        const api = await startFakeApi((req) =>
          req.body.model === 'claude-haiku-5-5' ? text('page says 42') : script[main++],
        );
        try {
          const r = await run(
            [
              ...STREAM_ARGS,
              '--allowedTools',
              'WebFetch,mcp__calc__add',
              '--mcp-config',
              JSON.stringify({ mcpServers: { calc: { type: 'http', url: mcpUrl } } }),
            ],
            { ANTHROPIC_BASE_URL: api.url, ...env },
            userLine('fetch and add'),
          );
          expect(r.code, r.stderr).toBe(0);
          const lines = r.json();
          const results = lines.flatMap((m) =>
            m.type === 'user' && Array.isArray(m.message.content)
              ? m.message.content.filter((b: { type: string }) => b.type === 'tool_result')
              : [],
          );
          const mcpStatus = lines.find((m) => m.subtype === 'init')?.mcp_servers?.[0]?.status;
          return { results, mcpStatus };
        } finally {
          await api.close();
        }
      };

      // Under TLS 1.3 the fronts refuse a client without a certificate only after its handshake is
      // done. Node 20's built-in fetch left about one such connection in four unsettled, so the
      // session waited for MCP_TIMEOUT; the refusal runs four times (three at once) to catch that,
      // and each must end well inside the harness's 20 s.
      const started = Date.now();
      const refusals = await Promise.all([1, 2, 3, 4].map(() => session({})));
      expect(Date.now() - started).toBeLessThan(15_000);
      for (const refused of refusals) {
        expect(refused.results[0].is_error).toBe(true);
        expect(refused.mcpStatus).toBe('failed');
      }
      expect(pageFront.clients).toEqual([]);
      expect(mcpFront.clients).toEqual([]);

      const accepted = await session(certEnv(pki()));
      expect(JSON.stringify(accepted.results[0].content)).toContain('page says 42');
      expect(accepted.mcpStatus).toBe('connected');
      expect(JSON.stringify(accepted.results[1].content)).toContain('5');
      expect(new Set(pageFront.clients)).toEqual(new Set(['agent test client']));
      expect(new Set(mcpFront.clients)).toEqual(new Set(['agent test client']));
    },
  );

  providerIt(
    "Bedrock: the credential chain's STS call and the inference-profile lookup (the AWS SDK's own connections) present it too",
    async ({ servers }) => {
      const creds = { accessKeyId: 'AKIDMTLS', secretAccessKey: 'mtls-secret', sessionToken: 'mtls-session' };
      const roleArn = 'arn:aws:iam::123456789012:role/mtls-test';
      const api = await startFakeApi(() => text('signed and listed'));
      servers.onClose(() => api.close());
      const bedrock = await startFakeBedrock(api, {
        region: 'us-east-1',
        creds,
        profiles: ['global.anthropic.claude-opus-5-5'],
      });
      servers.onClose(() => bedrock.close());
      const sts = await startFakeSts({ roleArn, token: 'oidc-mtls', creds });
      servers.onClose(() => sts.close());
      const bedrockFront = await startTlsFront(pki(), bedrock.url, { requireClientCert: true });
      servers.onClose(() => bedrockFront.close());
      const stsFront = await startTlsFront(pki(), sts.url, { requireClientCert: true });
      servers.onClose(() => stsFront.close());
      const home = scratch();
      const tokenFile = join(home, 'web-identity-token');
      writeFileSync(tokenFile, 'oidc-mtls');
      const env = {
        ...isolatedBedrockEnv(home),
        AWS_REGION: 'us-east-1',
        AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
        AWS_ROLE_ARN: roleArn,
        AWS_ROLE_SESSION_NAME: 'mtls-test',
        AWS_ENDPOINT_URL_STS: stsFront.url,
        ANTHROPIC_BEDROCK_BASE_URL: bedrockFront.url,
      };

      const refused = await run(['-p', 'hi'], env);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toMatch(/Bedrock: no AWS credentials found/);
      expect(sts.calls).toHaveLength(0);

      const accepted = await run(['-p', 'hi'], { ...env, ...certEnv(pki()) });
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(accepted.stdout).toContain('signed and listed');
      // The credentials came from STS through its mTLS front, and the listed profile was used: the
      // lookup got through its front too (else the region rule would have sent us.anthropic.…).
      expect(sts.calls.map((c) => c.RoleArn)).toEqual([roleArn]);
      expect(bedrock.profileLookups.map((s) => [s.path, s.refused])).toEqual([
        ['/inference-profiles?type=SYSTEM_DEFINED', null],
      ]);
      expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
        ['/model/global.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
      ]);
      expect(new Set([...stsFront.clients, ...bedrockFront.clients])).toEqual(new Set(['agent test client']));
    },
  );

  for (const protocol of ['http/json', 'grpc'] as const) {
    providerIt(
      `the OTLP ${protocol} exporters present it; without it nothing arrives and the failure is told once`,
      async ({ servers }) => {
        const p = pki();
        let collector: FakeCollector;
        let endpoint: string;
        if (protocol === 'grpc') {
          collector = await startFakeCollector('grpc', {
            ca: readFileSync(p.caCert),
            cert: readFileSync(p.serverCert),
            key: readFileSync(p.serverKey),
          });
          endpoint = collector.url;
        } else {
          collector = await startFakeCollector('http');
          const front = await startTlsFront(p, collector.url, { requireClientCert: true });
          servers.onClose(() => front.close());
          endpoint = front.url;
        }
        servers.onClose(() => collector.close());
        const api = await startFakeApi(() => text('measured'));
        servers.onClose(() => api.close());
        const env = {
          ANTHROPIC_BASE_URL: api.url,
          CLAUDE_CODE_ENABLE_TELEMETRY: '1',
          OTEL_METRICS_EXPORTER: 'otlp',
          OTEL_LOGS_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          // gRPC trusts the test CA through the exporter's own variable, so the refusal below is
          // the missing client certificate, not an unknown server.
          ...(protocol === 'grpc' ? { OTEL_EXPORTER_OTLP_CERTIFICATE: p.caCert } : {}),
        };
        // The refused run's exit waits on the failing export at most 1.5 s; the accepted run keeps the
        // product's bound (its export finishes, so it never waits that long unless the machine is busy).
        const refused = await run(['-p', 'hi'], { ...env, CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '1500' });
        expect(refused.code, refused.stderr).toBe(0);
        expect(collector.exports).toEqual([]);
        expect(refused.stderr.match(/agent: telemetry:/g)).toHaveLength(1);

        const accepted = await run(['-p', 'hi'], { ...env, ...certEnv(p) });
        expect(accepted.code, accepted.stderr).toBe(0);
        expect(accepted.stderr).not.toContain('agent: telemetry:');
        expect(new Set(collector.exports.map((e) => e.signal))).toEqual(new Set(['metrics', 'logs']));
        expect(collector.points.some((pt) => pt.name === 'claude_code.cost.usage')).toBe(true);
      },
    );
  }
});
