import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { overloaded, text, toolUse } from '../fake-api/server.js';
import { isolatedBedrockEnv, signedRegion, startFakeBedrock } from '../cloud-fakes/bedrock.js';
import { startTestProxy } from '../cloud-fakes/proxy.js';
import { startFakeSts } from '../cloud-fakes/sts.js';
import { STREAM_ARGS, tempDir, userLine } from './harness.js';
import { type Env, providerIt, providerRunner } from './providerFixture.js';

const creds = {
  accessKeyId: 'AKIDTESTBEDROCK',
  secretAccessKey: 'test-secret-key',
  sessionToken: 'test-session-token',
};

/** Only what the test gives: no key of the Anthropic API, no shared AWS files, no instance metadata. */
const run = providerRunner((home) => ({ ...isolatedBedrockEnv(home), ANTHROPIC_BASE_URL: undefined }));

/** The fake Bedrock's URL and region, with the test's AWS keys in the environment (`secret`: a wrong one). */
function signedEnv(url: string, region: string, secret = creds.secretAccessKey): Env {
  return {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: creds.accessKeyId,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_SESSION_TOKEN: creds.sessionToken,
    ANTHROPIC_BEDROCK_BASE_URL: url,
  };
}

/** A gateway signs instead: unsigned requests to the fake Bedrock at `url`. */
function gatewayEnv(url: string, region: string): Env {
  return { AWS_REGION: region, CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', ANTHROPIC_BEDROCK_BASE_URL: url };
}

// The tests run side by side in groups of three or four (the groups one after another): most of a
// test is bin/agent starting and the fakes waiting on it, and a group at a time keeps a busy
// machine from starving every run at once. What a test starts is in its own `servers` scope.
describe('Amazon Bedrock', () => {
  describe('a session, its signature, missing credentials, a proxy for every connection', () => {
    providerIt.concurrent(
      'a streamed multi-turn tool session: SigV4-signed invoke-with-response-stream, event-stream replies, caching, a retried 529',
      async ({ servers }) => {
        const { api, front: bedrock } = await servers.fixture(
          [overloaded(), toolUse('Bash', { command: 'echo from-bash' }), text('all done')],
          (api) => startFakeBedrock(api, { region: 'eu-west-1', creds }),
        );
        const r = await run(
          [...STREAM_ARGS, '--allowedTools', 'Bash'],
          signedEnv(bedrock.url, 'eu-west-1'),
          userLine('run the command'),
        );
        expect(r.stderr).not.toMatch(/error/i);
        expect(r.code).toBe(0);
        const lines = r.json();
        expect(lines.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'all done' });
        expect(lines.filter((m) => m.subtype === 'api_retry').map((m) => m.error_status)).toEqual([529]);
        // Every request was signed right and went to the cross-region profile of the region's geography.
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual(
          Array(3).fill(['/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream', null]),
        );
        expect(bedrock.seen[0].headers['x-amz-security-token']).toBe(creds.sessionToken);
        // The inference-profile lookup at start was signed, got a 404 (no list here), and was tolerated.
        expect(bedrock.profileLookups.map((s) => [s.path, s.refused])).toEqual([
          [
            '/inference-profiles?type=SYSTEM_DEFINED',
            JSON.stringify({ message: 'no operation GET /inference-profiles' }),
          ],
        ]);
        // The tool ran, its result went back in the second turn, and that turn read the prompt cache.
        const toolResult = JSON.stringify(api.requests[2].body.messages.at(-1));
        expect(toolResult).toContain('from-bash');
        expect(api.requests[2].billed!.cache_read_input_tokens).toBeGreaterThan(0);
        expect(lines.find((m) => m.type === 'result')?.usage.cache_read_input_tokens).toBeGreaterThan(0);
      },
    );

    providerIt.concurrent(
      "an exception frame mid-stream (Bedrock's throttlingException): retried, and its message told once retries run out",
      async ({ servers }) => {
        // The wrapper reads Bedrock's exception classes only here (loaded at first use: scripts/bundle.mjs).
        const exception = { afterChunks: 2, type: 'throttlingException', message: 'Too many requests, slow down' };
        const { api, front: bedrock } = await servers.fixture([text('a'), text('b'), text('c'), text('d')], (api) =>
          startFakeBedrock(api, { region: 'us-east-1', creds, streamException: { ...exception, times: 3 } }),
        );
        const r = await run([...STREAM_ARGS], signedEnv(bedrock.url, 'us-east-1'), userLine('hi'));
        const lines = r.json();
        expect(lines.filter((m) => m.subtype === 'api_retry')).toHaveLength(2);
        const result = lines.find((m) => m.type === 'result');
        expect(result?.is_error, r.stderr).toBe(true);
        expect(JSON.stringify(result)).toContain('Too many requests, slow down');
        expect(api.requests).toHaveLength(3);
      },
    );

    providerIt.concurrent(
      'wrong AWS credentials: the signature is refused, and the error names Bedrock',
      async ({ servers }) => {
        const { api, front: bedrock } = await servers.fixture([text('never')], (api) =>
          startFakeBedrock(api, { region: 'us-east-1', creds }),
        );
        const r = await run(['-p', 'hi'], signedEnv(bedrock.url, 'us-east-1', 'not-the-secret'));
        expect(r.code).not.toBe(0);
        expect(bedrock.seen[0].refused).toMatch(/signature we calculated does not match/);
        expect(r.stdout + r.stderr).toMatch(/Bedrock: API Error: 403 .*check the AWS credentials/);
        expect(api.requests).toHaveLength(0);
      },
    );

    providerIt.concurrent(
      'no AWS credentials anywhere: an error naming Bedrock and what was tried; nothing is sent',
      async ({ servers }) => {
        const { front: bedrock } = await servers.fixture([text('never')], (api) =>
          startFakeBedrock(api, { region: 'us-east-1', creds }),
        );
        const started = Date.now();
        const r = await run(['-p', 'hi'], { AWS_REGION: 'us-east-1', ANTHROPIC_BEDROCK_BASE_URL: bedrock.url });
        expect(r.code).not.toBe(0);
        expect(r.stdout + r.stderr).toMatch(
          /Bedrock: no AWS credentials found \(tried env \(AWS_ACCESS_KEY_ID\), profile default/,
        );
        expect(bedrock.seen).toHaveLength(0);
        expect(Date.now() - started).toBeLessThan(10_000); // not retried as a connection error
      },
    );

    providerIt.concurrent(
      'HTTP_PROXY carries every Bedrock connection: the web-identity STS call of the credential chain, the inference-profile lookup, the model calls; NO_PROXY exempts a host:port',
      async ({ servers }) => {
        const roleArn = 'arn:aws:iam::123456789012:role/agent-test';
        const { front: bedrock } = await servers.fixture(
          () => text('through the proxy'),
          (api) => startFakeBedrock(api, { region: 'eu-west-1', creds, profiles: ['eu.anthropic.claude-opus-5-5'] }),
        );
        const sts = servers.add(await startFakeSts({ roleArn, token: 'oidc-token-1', creds }));
        const proxy = servers.add(await startTestProxy());
        const tokenFile = join(tempDir('agent-bedrock-'), 'web-identity-token');
        writeFileSync(tokenFile, 'oidc-token-1');
        const env = {
          AWS_REGION: 'eu-west-1',
          AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
          AWS_ROLE_ARN: roleArn,
          AWS_ROLE_SESSION_NAME: 'agent-test',
          AWS_ENDPOINT_URL_STS: sts.url,
          ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
          HTTP_PROXY: proxy.url,
        };
        const r = await run(['-p', 'hi'], env);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('through the proxy');
        // The credentials came from STS (the request was signed with them, session token included).
        expect(sts.calls.map((c) => c.RoleArn)).toEqual([roleArn]);
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
          ['/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
        ]);
        expect(proxy.seen).toEqual(
          expect.arrayContaining([
            `POST ${sts.url}/`,
            `GET ${bedrock.url}/inference-profiles?type=SYSTEM_DEFINED`,
            `POST ${bedrock.url}/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream`,
          ]),
        );

        proxy.seen.length = 0;
        const exempt = await run(['-p', 'hi'], { ...env, NO_PROXY: new URL(sts.url).host });
        expect(exempt.code, exempt.stderr).toBe(0);
        expect(sts.calls).toHaveLength(2);
        expect(proxy.seen.some((l) => l.includes(sts.url))).toBe(false);
        expect(proxy.seen).toContain(
          `POST ${bedrock.url}/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream`,
        );
      },
    );
  });

  describe('where the credentials and the model id come from; the fallback without streaming', () => {
    providerIt.concurrent(
      'the shared profile named by AWS_PROFILE; awsAuthRefresh when the chain finds nothing (once, then the chain again); awsCredentialExport instead of the chain',
      async ({ servers }) => {
        const { front: bedrock } = await servers.fixture(
          () => text('signed'),
          (api) => startFakeBedrock(api, { region: 'us-east-1', creds }),
        );
        const dir = tempDir('agent-bedrock-');
        const profileFile = join(dir, 'credentials');
        writeFileSync(
          profileFile,
          `[default]\naws_access_key_id = AKIDNOTTHISONE\naws_secret_access_key = wrong\n\n[work]\naws_access_key_id = ${creds.accessKeyId}\naws_secret_access_key = ${creds.secretAccessKey}\naws_session_token = ${creds.sessionToken}\n`,
        );
        const at = { AWS_REGION: 'us-east-1', ANTHROPIC_BEDROCK_BASE_URL: bedrock.url };

        const profile = await run(['-p', 'hi'], {
          ...at,
          AWS_PROFILE: 'work',
          AWS_SHARED_CREDENTIALS_FILE: profileFile,
        });
        expect(profile.code, profile.stderr).toBe(0);
        expect(profile.stdout).toContain('signed');

        // The "login" writes the profile's credentials where the chain reads them, and counts its runs.
        const home = tempDir('agent-bedrock-');
        const later = join(home, 'credentials');
        writeFileSync(
          join(home, 'settings.json'),
          JSON.stringify({ awsAuthRefresh: `cp ${profileFile} ${later} && echo ran >> ${join(home, 'runs')}` }),
        );
        const refreshed = await run(['-p', 'hi'], {
          ...at,
          CLAUDE_CONFIG_DIR: home,
          AWS_PROFILE: 'work',
          AWS_SHARED_CREDENTIALS_FILE: later,
        });
        expect(refreshed.code, refreshed.stderr).toBe(0);
        expect(refreshed.stdout).toContain('signed');
        expect(refreshed.stderr).toContain('Bedrock: no AWS credentials found; running awsAuthRefresh');
        expect(readFileSync(join(home, 'runs'), 'utf8')).toBe('ran\n');

        const exported = tempDir('agent-bedrock-');
        const printed = JSON.stringify({
          Credentials: {
            AccessKeyId: creds.accessKeyId,
            SecretAccessKey: creds.secretAccessKey,
            SessionToken: creds.sessionToken,
            Expiration: new Date(Date.now() + 3600_000).toISOString(),
          },
        });
        writeFileSync(join(exported, 'settings.json'), JSON.stringify({ awsCredentialExport: `echo '${printed}'` }));
        const fromExport = await run(['-p', 'hi'], { ...at, CLAUDE_CONFIG_DIR: exported });
        expect(fromExport.code, fromExport.stderr).toBe(0);
        expect(fromExport.stdout).toContain('signed');

        // Every request was signed with the test's credentials (the default profile's would be refused).
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual(
          Array(3).fill(['/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream', null]),
        );
        for (const s of bedrock.seen) expect(s.headers['x-amz-security-token']).toBe(creds.sessionToken);
      },
    );

    providerIt.concurrent(
      'an inference-profile ARN in ANTHROPIC_MODEL is sent as given (its slash escaped in the path) and signed right',
      async ({ servers }) => {
        const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3';
        const { front: bedrock } = await servers.fixture(
          () => text('from the profile'),
          (api) => startFakeBedrock(api, { region: 'us-east-1', creds }),
        );
        const r = await run(
          STREAM_ARGS,
          { ...signedEnv(bedrock.url, 'us-east-1'), ANTHROPIC_MODEL: arn },
          userLine('hi'),
        );
        expect(r.code, r.stderr).toBe(0);
        expect(r.json().find((m) => m.subtype === 'init')?.model).toBe(arn);
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
          // The SDK escapes the ARN's slash (its colons are legal in a path); the signature covers that path.
          [`/model/${arn.replace('/', '%2F')}/invoke-with-response-stream`, null],
        ]);
      },
    );

    providerIt.concurrent(
      'a malformed stream is asked again without streaming: the signed invoke URL',
      async ({ servers }) => {
        const { front: bedrock } = await servers.fixture(
          [{ malformed: { afterText: 'Hel' } }, text('answered by invoke')],
          (api) => startFakeBedrock(api, { region: 'us-east-1', creds }),
        );
        const r = await run(['-p', 'hi'], signedEnv(bedrock.url, 'us-east-1'));
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('answered by invoke');
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
          ['/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
          ['/model/us.anthropic.claude-opus-5-5/invoke', null],
        ]);
      },
    );
  });

  describe('gateways, bearer tokens and the model ids', () => {
    providerIt.concurrent(
      'CLAUDE_CODE_SKIP_BEDROCK_AUTH sends unsigned requests (a gateway signs them), and AWS_BEARER_TOKEN_BEDROCK goes as a bearer token',
      async ({ servers }) => {
        const { api, front: gateway } = await servers.fixture(
          [text('through the gateway'), text('with the bearer token')],
          (api) => startFakeBedrock(api, { region: 'us-west-2', creds: null }),
        );
        const skipped = await run(
          ['-p', 'hi', '--model', 'us.anthropic.claude-opus-5-5'],
          gatewayEnv(gateway.url, 'us-west-2'),
        );
        expect(skipped.stdout).toContain('through the gateway');
        expect(gateway.seen[0].path).toBe('/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream');
        const bedrock = servers.add(await startFakeBedrock(api, { region: 'us-west-2', creds: null }));
        const bearer = await run(['-p', 'hi'], {
          AWS_REGION: 'us-west-2',
          AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-1',
          ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
        });
        // The fake refuses any Authorization header when it expects none: this one was the bearer.
        expect(bedrock.seen[0].headers.authorization).toBe('Bearer bedrock-api-key-1');
        expect(bearer.code).not.toBe(0);
      },
    );

    providerIt.concurrent(
      "the aliases are Bedrock's models (ANTHROPIC_DEFAULT_*_MODEL wins), and WebSearch is not offered",
      async ({ servers }) => {
        const { api, front: bedrock } = await servers.fixture(
          () => text('ok'),
          (api) => startFakeBedrock(api, { region: 'eu-west-1', creds: null }),
        );
        const gateway = gatewayEnv(bedrock.url, 'eu-west-1');
        const sonnet = await run([...STREAM_ARGS, '--model', 'sonnet'], gateway, userLine('hi'));
        expect(sonnet.code, sonnet.stderr).toBe(0);
        expect(bedrock.seen[0].path).toBe(
          '/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream',
        );
        const init = sonnet.json().find((m) => m.subtype === 'init')!;
        expect(init.tools).toContain('WebFetch');
        expect(init.tools).not.toContain('WebSearch');
        expect(api.requests[0].body.tools.map((t: { name: string }) => t.name)).not.toContain('WebSearch');
        expect(sonnet.stderr).not.toContain('WebSearch');

        const asked = await run(['-p', 'hi', '--tools', 'WebSearch,Bash', '--model', 'haiku'], {
          ...gateway,
          ANTHROPIC_DEFAULT_HAIKU_MODEL: 'eu.anthropic.claude-haiku-custom-v1:0',
        });
        expect(asked.code, asked.stderr).toBe(0);
        expect(asked.stderr).toContain(
          '--tools: WebSearch is not offered: Bedrock does not run the web_search server tool',
        );
        expect(bedrock.seen.at(-1)!.path).toBe(
          '/model/eu.anthropic.claude-haiku-custom-v1:0/invoke-with-response-stream',
        );
        expect(api.requests.at(-1)!.body.tools.map((t: { name: string }) => t.name)).toEqual(['Bash']);
      },
    );

    providerIt.concurrent(
      "the init line and initialize name the ids requests are sent with (the listed profile); a user's id that is not a known model goes as given; initialize's account is the provider alone",
      async ({ servers }) => {
        const { front: bedrock } = await servers.fixture(
          () => text('ok'),
          (api) =>
            startFakeBedrock(api, {
              region: 'us-east-1',
              creds,
              profiles: ['global.anthropic.claude-opus-5-5', 'apac.anthropic.claude-opus-5-5'],
            }),
        );
        const env = { ...signedEnv(bedrock.url, 'us-east-1'), ANTHROPIC_DEFAULT_HAIKU_MODEL: 'claude-haiku-custom' };
        const initialize = `${JSON.stringify({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize' } })}\n`;
        const r = await run(STREAM_ARGS, env, initialize + userLine('hi'));
        expect(r.code, r.stderr).toBe(0);
        const lines = r.json();
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
          ['/model/global.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
        ]);
        expect(lines.find((m) => m.subtype === 'init')?.model).toBe('global.anthropic.claude-opus-5-5');
        const answer = lines.find((m) => m.type === 'control_response')!.response.response;
        expect(answer.account).toEqual({ apiProvider: 'bedrock' });
        expect(Object.fromEntries(answer.models.map((m: any) => [m.value, m.resolvedModel]))).toEqual({
          default: 'global.anthropic.claude-opus-5-5',
          opus: 'global.anthropic.claude-opus-5-5',
          fable: 'us.anthropic.claude-fable-5-2',
          sonnet: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
          haiku: 'claude-haiku-custom',
        });

        // The user's haiku model is sent exactly as given, and the init line says so.
        const haiku = await run([...STREAM_ARGS, '--model', 'haiku'], env, userLine('hi'));
        expect(haiku.code, haiku.stderr).toBe(0);
        expect(bedrock.seen.at(-1)!.path).toBe('/model/claude-haiku-custom/invoke-with-response-stream');
        expect(haiku.json().find((m) => m.subtype === 'init')?.model).toBe('claude-haiku-custom');
      },
    );
  });

  describe('the small/fast model region and the inference-profile lookup', () => {
    providerIt.concurrent(
      'ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION: the small/fast model (WebFetch reading a page) is signed for its own region; the session model for AWS_REGION',
      async ({ servers }) => {
        const url = `${await servers.page('<html><body><p>The answer is 42.</p></body></html>')}/page`;
        const { front: bedrock } = await servers.fixture(
          [
            ...[1, 2].flatMap(() => [
              toolUse('WebFetch', { url, prompt: 'what is the answer?' }),
              text('42'),
              text('done'),
            ]),
          ],
          (api) => startFakeBedrock(api, { region: ['eu-west-1', 'eu-central-1'], creds }),
        );
        const r = await run(['-p', 'read the page', '--allowedTools', 'WebFetch'], {
          ...signedEnv(bedrock.url, 'eu-west-1'),
          ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION: 'eu-central-1',
        });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain('done');
        expect(bedrock.seen.map((s) => [s.path, signedRegion(s.headers), s.refused])).toEqual([
          ['/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream', 'eu-west-1', null],
          ['/model/eu.anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream', 'eu-central-1', null],
          ['/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream', 'eu-west-1', null],
        ]);
        // ANTHROPIC_SMALL_FAST_MODEL names another small/fast model: it reads the page, in its region.
        const other = await run(['-p', 'read the page', '--allowedTools', 'WebFetch'], {
          ...signedEnv(bedrock.url, 'eu-west-1'),
          ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-5-5',
          ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION: 'eu-central-1',
        });
        expect(other.code, other.stderr).toBe(0);
        expect(bedrock.seen.slice(3).map((s) => [s.path, signedRegion(s.headers), s.refused])[1]).toEqual([
          '/model/eu.anthropic.claude-haiku-5-5/invoke-with-response-stream',
          'eu-central-1',
          null,
        ]);
      },
    );

    providerIt.concurrent(
      "the account's inference profiles, listed at start (every page, signed), choose the id a first-party model is sent as: the region's geography first, else the first listed",
      async ({ servers }) => {
        const { front: bedrock } = await servers.fixture(
          () => text('ok'),
          (api) =>
            startFakeBedrock(api, {
              region: 'eu-west-1',
              creds,
              profiles: [
                'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
                'apac.anthropic.claude-haiku-4-5-20251001-v1:0',
                'global.anthropic.claude-opus-5-5',
                'us.anthropic.claude-opus-5-5',
                'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
                'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
              ],
            }),
        );
        for (const model of ['opus', 'sonnet', 'eu.anthropic.claude-opus-5-5']) {
          const r = await run(['-p', 'hi', '--model', model], signedEnv(bedrock.url, 'eu-west-1'));
          expect(r.code, r.stderr).toBe(0);
        }
        expect(bedrock.seen.map((s) => [s.path, s.refused])).toEqual([
          // No eu. profile for opus: the first listed (global. before us.).
          ['/model/global.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
          // eu. listed last, but it is the region's.
          ['/model/eu.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream', null],
          // An id in Bedrock's form goes as given.
          ['/model/eu.anthropic.claude-opus-5-5/invoke-with-response-stream', null],
        ]);
        // One lookup per run, every page (the first two runs waited for it), all signed right. The
        // third run did not need the list: it may end before its lookup is even sent.
        const pages = [
          ['/inference-profiles?type=SYSTEM_DEFINED', null],
          ['/inference-profiles?nextToken=2&type=SYSTEM_DEFINED', null],
          ['/inference-profiles?nextToken=4&type=SYSTEM_DEFINED', null],
        ];
        const lookups = bedrock.profileLookups.map((s) => [s.path, s.refused]);
        expect(lookups.slice(0, 6)).toEqual([...pages, ...pages]);
      },
    );

    providerIt.concurrent(
      'an inference-profile lookup that does not answer holds the first request back at most 3 s, then the region rule is used; the gateway and bearer lookups carry their own auth',
      async ({ servers }) => {
        const { api, front: slow } = await servers.fixture(
          () => text('ok'),
          (api) =>
            startFakeBedrock(api, {
              region: 'us-west-2',
              creds: null,
              profiles: ['global.anthropic.claude-opus-5-5'],
              profilesDelayMs: 30_000,
            }),
        );
        const started = Date.now();
        const r = await run(['-p', 'hi'], gatewayEnv(slow.url, 'us-west-2'));
        expect(r.code, r.stderr).toBe(0);
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(slow.seen.map((s) => s.path)).toEqual([
          '/model/us.anthropic.claude-opus-5-5/invoke-with-response-stream',
        ]);

        const bedrock = servers.add(await startFakeBedrock(api, { region: 'us-west-2', creds: null, profiles: [] }));
        await run(['-p', 'hi'], gatewayEnv(bedrock.url, 'us-west-2'));
        await run(['-p', 'hi'], {
          AWS_REGION: 'us-west-2',
          AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-2',
          ANTHROPIC_BEDROCK_BASE_URL: bedrock.url,
        });
        expect(bedrock.profileLookups.map((s) => s.headers.authorization ?? null)).toEqual([
          null,
          'Bearer bedrock-api-key-2',
        ]);
      },
    );
  });
});
