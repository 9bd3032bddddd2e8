// OpenTelemetry end to end: bin/agent with CLAUDE_CODE_ENABLE_TELEMETRY=1 against the fake
// Messages API, exporting to a fake collector that decodes what arrives (OTLP http/protobuf,
// http/json, gRPC), to the console (stderr), and to its own Prometheus endpoint, scraped here.
// A dead or silent collector costs the run at most the stated bound.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { serverError, startFakeApi, text, toolUse } from '../fake-api/server.js';
import { eventsNamed, startFakeCollector, total } from '../cloud-fakes/otlpCollector.js';
import { startTestProxy } from '../cloud-fakes/proxy.js';
import { listenTracked } from '../cloud-fakes/listen.js';
import { runAgent as runAgentNow, STREAM_ARGS, startAgent, tempDir, userLine } from './harness.js';
import { agentSlots, providerIt } from './providerFixture.js';
import { which } from './sandboxAvailable.js';
import { hasTmux, READY, startTerm } from './tmux.js';

const PROMETHEUS = which('prometheus');
if (!PROMETHEUS)
  console.warn(
    'telemetry.test: skipping the real Prometheus server test: prometheus not on PATH (apt-get install prometheus)',
  );

// The tests run side by side (most of their time is bin/agent starting and exporting, and the
// collectors waiting for it): what each starts is its own, in its `servers` scope, closed when it ends.
// Runs to completion take turns, three at a time (agentSlots).
const slot = agentSlots(3);
const runAgent = (opts: Parameters<typeof runAgentNow>[0]) => slot(() => runAgentNow(opts));

/** The telemetry variables of a run (none inherited from the test's own environment). */
function otelEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const cleared: Record<string, undefined> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) cleared[k] = undefined;
  return { ...cleared, CLAUDE_CODE_ENABLE_TELEMETRY: '1', AGENT_MAX_RETRIES: '0', ...extra };
}

/** Metrics and events both over OTLP, with this protocol and endpoint (and `extra`). */
function otlpEnv(protocol: string, endpoint: string, extra: Record<string, string | undefined> = {}) {
  return otelEnv({
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    ...extra,
  });
}

function writeSettings(configDir: string, settings: object): void {
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify(settings));
}

/** A session that writes a file, commits with git, and answers. */
function workScript(cwd: string) {
  return [
    toolUse('Write', { file_path: join(cwd, 'notes.txt'), content: 'one\ntwo\nthree\n' }),
    toolUse('Bash', {
      command: 'git init -q && git add notes.txt && git -c user.email=t@example.com -c user.name=t commit -q -m notes',
    }),
    text('done', { usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 30 } }),
  ];
}

describe.concurrent('telemetry over OTLP', () => {
  providerIt(
    'http/protobuf: the reference metrics and events, with their attributes, arrive at exit',
    async ({ servers }) => {
      const cwd = tempDir('agent-otel-');
      const api = servers.add(await startFakeApi(workScript(cwd)));
      const collector = servers.add(await startFakeCollector('http'));
      const r = await runAgent({
        api,
        cwd,
        args: [...STREAM_ARGS, '--allowedTools', 'Write,Bash'],
        input: userLine('keep some notes'),
        env: otlpEnv('http/protobuf', collector.url, {
          OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer otel-token',
          // Telemetry is what the user asked for: it is not "nonessential traffic".
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        }),
      });
      expect(r.code, r.stderr).toBe(0);
      const msgs = r.json();
      const sessionId = msgs[0].session_id;
      const result = msgs.find((m) => m.type === 'result')!;
      const c = collector;
      expect(new Set(c.exports.map((e) => `${e.signal} ${e.transport}`))).toEqual(
        new Set(['metrics http/protobuf', 'logs http/protobuf']),
      );
      for (const e of c.exports) expect(e.headers.authorization).toBe('Bearer otel-token');

      // Metrics: names, values, attributes; delta temporality, as the reference exports.
      expect(total(c, 'claude_code.session.count', { start_type: 'fresh' })).toBe(1);
      const u = result.usage;
      expect(total(c, 'claude_code.token.usage', { type: 'input' })).toBe(u.input_tokens);
      expect(total(c, 'claude_code.token.usage', { type: 'output' })).toBe(u.output_tokens);
      expect(total(c, 'claude_code.token.usage', { type: 'cacheRead' })).toBe(u.cache_read_input_tokens);
      expect(total(c, 'claude_code.token.usage', { type: 'cacheCreation' })).toBe(u.cache_creation_input_tokens);
      expect(total(c, 'claude_code.cost.usage', { model: 'claude-opus-5-5', query_source: 'main' })).toBeCloseTo(
        result.total_cost_usd,
        9,
      );
      expect(total(c, 'claude_code.lines_of_code.count', { type: 'added' })).toBe(3);
      expect(total(c, 'claude_code.commit.count')).toBe(1);
      expect(
        total(c, 'claude_code.code_edit_tool.decision', {
          decision: 'accept',
          source: 'config',
          tool_name: 'Write',
          language: 'Plain text',
        }),
      ).toBe(1);
      expect(total(c, 'claude_code.active_time.total', { type: 'cli' })).toBeGreaterThan(0);
      const cost = c.points.find((p) => p.name === 'claude_code.cost.usage')!;
      expect(cost.unit).toBe('USD');
      expect(cost.temporality).toBe(1);
      expect(cost.scope).toBe('com.anthropic.claude_code');
      expect(cost.resource['service.name']).toBe('claude-code');
      for (const p of c.points) {
        expect(p.attributes['session.id']).toBe(sessionId);
        expect(p.attributes['user.id']).toMatch(/^[0-9a-f]{64}$/);
        expect(p.attributes).not.toHaveProperty('app.version');
      }

      // Events: log records whose body is claude_code.<name>, with event.name and their attributes.
      const requests = eventsNamed(c, 'api_request');
      expect(requests).toHaveLength(api.requests.length);
      expect(requests[0].body).toBe('claude_code.api_request');
      expect(requests[0].scope).toBe('com.anthropic.claude_code.events');
      const last = requests[requests.length - 1].attributes;
      expect(last).toMatchObject({
        model: 'claude-opus-5-5',
        input_tokens: 100,
        output_tokens: 20,
        cache_read_tokens: 30,
      });
      expect(typeof last.cost_usd).toBe('number');
      expect(typeof last.duration_ms).toBe('number');
      const [prompt] = eventsNamed(c, 'user_prompt');
      expect(prompt.attributes).toMatchObject({
        prompt_length: String('keep some notes'.length),
        prompt: '<REDACTED>',
      });
      expect(JSON.stringify(c.events)).not.toContain('keep some notes');
      const decisions = eventsNamed(c, 'tool_decision').map((e) => e.attributes);
      expect(decisions.map((d) => [d.tool_name, d.decision, d.source])).toEqual([
        ['Write', 'accept', 'config'],
        ['Bash', 'accept', 'config'],
      ]);
      const results = eventsNamed(c, 'tool_result').map((e) => e.attributes);
      expect(results.map((d) => [d.tool_name, d.success])).toEqual([
        ['Write', 'true'],
        ['Bash', 'true'],
      ]);
      expect(results[0]).not.toHaveProperty('tool_input');
      // The reference's further attributes (measured): the endpoint is a local fake, so not Anthropic's;
      // each request's id (the API's request-id header), also on the decision and result of each tool
      // call it asked for; the cost in micro-dollars; the final text as assistant_response, redacted.
      for (const e of c.events) expect(e.attributes['anthropic.custom_base_url']).toBe(true);
      const ids = requests.map((e) => e.attributes.request_id);
      for (const id of ids) expect(id).toMatch(/^req_/);
      expect(decisions.map((d) => d.request_id)).toEqual(ids.slice(0, 2));
      expect(results.map((d) => d.request_id)).toEqual(ids.slice(0, 2));
      expect(decisions.map((d) => d.tool_source)).toEqual(['builtin', 'builtin']);
      expect(last).toMatchObject({ speed: 'normal', cache_creation_5m_tokens: 0, cache_creation_1h_tokens: 0 });
      expect(last.cost_usd_micros).toBe(Math.round((last.cost_usd as number) * 1e6));
      expect(eventsNamed(c, 'assistant_response').map((e) => e.attributes)).toEqual([
        expect.objectContaining({
          response_length: 4,
          response: '<REDACTED>',
          request_id: ids.at(-1),
          model: 'claude-opus-5-5',
        }),
      ]);
      // Every event of the prompt carries its prompt.id and the session's attributes, in sequence.
      const promptId = prompt.attributes['prompt.id'];
      expect(promptId).toMatch(/^[0-9a-f-]{36}$/);
      for (const e of c.events) {
        expect(e.attributes['prompt.id']).toBe(promptId);
        expect(e.attributes['session.id']).toBe(sessionId);
      }
      expect(c.events.map((e) => e.attributes['event.sequence'])).toEqual(c.events.map((_, i) => i));
    },
  );

  providerIt(
    'http/json: opt-ins show the prompt and tool inputs, the cardinality switches drop and add attributes, errors and denials are events',
    async ({ servers }) => {
      const api = servers.add(
        await startFakeApi([
          serverError('the backend fell over'),
          toolUse('Write', { file_path: '/etc/otel-test-denied.txt', content: 'no' }),
          text('could not write it'),
        ]),
      );
      const collector = servers.add(await startFakeCollector('http'));
      const home = tempDir('agent-otel-home-');
      writeSettings(home, { otelHeadersHelper: `echo '{"x-team":"blue"}'` });
      const r = await runAgent({
        api,
        args: [...STREAM_ARGS],
        input: userLine('write to etc please'),
        env: otlpEnv('http/json', collector.url, {
          CLAUDE_CONFIG_DIR: home,
          AGENT_MAX_RETRIES: '1',
          OTEL_LOG_USER_PROMPTS: '1',
          OTEL_LOG_TOOL_DETAILS: '1',
          OTEL_METRICS_INCLUDE_SESSION_ID: 'false',
          OTEL_METRICS_INCLUDE_VERSION: 'true',
          OTEL_RESOURCE_ATTRIBUTES: 'department=eng,team.id=platform',
        }),
      });
      expect(r.code, r.stderr).toBe(0);
      const c = collector;
      expect(new Set(c.exports.map((e) => e.transport))).toEqual(new Set(['http/json']));
      for (const e of c.exports) expect(e.headers['x-team']).toBe('blue');
      expect(c.points[0].resource).toMatchObject({ department: 'eng', 'team.id': 'platform' });
      for (const p of [...c.points.map((x) => x.attributes), ...c.events.map((x) => x.attributes)]) {
        expect(p).not.toHaveProperty('session.id');
        expect(p['app.version']).toMatch(/^\d+\.\d+\.\d+/);
      }
      expect(eventsNamed(c, 'user_prompt')[0].attributes.prompt).toBe('write to etc please');
      const [apiError] = eventsNamed(c, 'api_error');
      expect(apiError.attributes).toMatchObject({ model: 'claude-opus-5-5', status_code: 500, attempt: 1 });
      expect(apiError.attributes.error).toBeTruthy();
      const [decision] = eventsNamed(c, 'tool_decision');
      expect(decision.attributes).toMatchObject({ tool_name: 'Write', decision: 'reject', source: 'config' });
      expect(total(c, 'claude_code.code_edit_tool.decision', { decision: 'reject', tool_name: 'Write' })).toBe(1);
      // A denied call never ran: it has a decision and no result.
      expect(eventsNamed(c, 'tool_result')).toEqual([]);
    },
  );

  providerIt(
    'grpc: metrics and events reach a gRPC collector, with otelHeadersHelper headers as metadata',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([toolUse('Bash', { command: 'echo hi' }), text('said hi')]));
      const collector = servers.add(await startFakeCollector('grpc'));
      const home = tempDir('agent-otel-home-');
      writeSettings(home, { otelHeadersHelper: `echo '{"x-team":"green"}'` });
      const r = await runAgent({
        api,
        args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
        input: userLine('say hi'),
        env: otlpEnv('grpc', collector.url, {
          CLAUDE_CONFIG_DIR: home,
          OTEL_LOG_TOOL_DETAILS: '1',
        }),
      });
      expect(r.code, r.stderr).toBe(0);
      const c = collector;
      expect(new Set(c.exports.map((e) => `${e.signal} ${e.transport}`))).toEqual(
        new Set(['metrics grpc', 'logs grpc']),
      );
      for (const e of c.exports) expect(e.headers['x-team']).toBe('green');
      expect(total(c, 'claude_code.session.count')).toBe(1);
      expect(total(c, 'claude_code.token.usage', { type: 'output' })).toBeGreaterThan(0);
      const [bash] = eventsNamed(c, 'tool_result');
      expect(bash.attributes).toMatchObject({ tool_name: 'Bash', success: 'true' });
      expect(JSON.parse(String(bash.attributes.tool_input))).toMatchObject({ command: 'echo hi' });
    },
  );

  providerIt(
    'HTTP_PROXY carries the OTLP exports too: http/protobuf as absolute-URI requests, gRPC through a CONNECT tunnel',
    async ({ servers }) => {
      const proxy = await startTestProxy();
      servers.onClose(() => proxy.close());
      // The two protocols' runs side by side, each with its own fake API and collector.
      await Promise.all(
        (['http/protobuf', 'grpc'] as const).map(async (protocol) => {
          const api = servers.add(await startFakeApi([text('proxied')]));
          const collector = servers.add(await startFakeCollector(protocol === 'grpc' ? 'grpc' : 'http'));
          const r = await runAgent({
            api,
            args: [...STREAM_ARGS],
            input: userLine('hello'),
            env: otlpEnv(protocol, collector.url, {
              HTTP_PROXY: proxy.url,
              NO_PROXY: undefined,
            }),
          });
          expect(r.code, r.stderr).toBe(0);
          expect(total(collector, 'claude_code.session.count')).toBe(1);
          expect(eventsNamed(collector, 'api_request')).toHaveLength(1);
          const at = new URL(collector.url);
          if (protocol === 'grpc') expect(proxy.seen).toContain(`CONNECT ${at.host}`);
          else
            expect(proxy.seen).toEqual(
              expect.arrayContaining([`POST ${collector.url}/v1/metrics`, `POST ${collector.url}/v1/logs`]),
            );
        }),
      );
    },
  );

  providerIt('off unless CLAUDE_CODE_ENABLE_TELEMETRY is set: nothing is exported', async ({ servers }) => {
    const api = servers.add(await startFakeApi([text('quiet')]));
    const collector = servers.add(await startFakeCollector('http'));
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS],
      input: userLine('hello'),
      env: otlpEnv('http/json', collector.url, {
        CLAUDE_CODE_ENABLE_TELEMETRY: undefined,
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(collector.exports).toEqual([]);
  });

  providerIt('a variable that cannot be used stops the start, naming it', async () => {
    const r = await runAgent({
      args: ['-p', 'hi'],
      env: otelEnv({ OTEL_METRICS_EXPORTER: 'zipkin' }),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('OTEL_METRICS_EXPORTER=zipkin');
  });

  providerIt(
    "the reference's variables for what is not built (traces, tool content, raw bodies) stop the start when on; off, they are fine; OTEL_TRACES_EXPORTER is told once and the run goes on",
    async ({ servers }) => {
      // Five runs that share nothing: side by side.
      const notBuilt = [
        ['CLAUDE_CODE_ENHANCED_TELEMETRY_BETA', '1'],
        ['OTEL_LOG_TOOL_CONTENT', '1'],
        ['OTEL_LOG_RAW_API_BODIES', 'true'],
      ] as const;
      const [offApi, tracesApi] = await Promise.all([
        startFakeApi([text('asked for nothing')]).then(servers.add),
        startFakeApi([text('metrics and events only')]).then(servers.add),
      ]);
      const [stopped, off, traces] = await Promise.all([
        Promise.all(
          notBuilt.map(([name, value]) =>
            runAgent({ args: ['-p', 'hi'], env: otelEnv({ OTEL_METRICS_EXPORTER: 'console', [name]: value }) }),
          ),
        ),
        runAgent({
          api: offApi,
          args: ['-p', 'hi'],
          env: otelEnv({ OTEL_LOGS_EXPORTER: 'console', OTEL_TRACES_EXPORTER: 'none', OTEL_LOG_TOOL_CONTENT: '0' }),
        }),
        runAgent({
          api: tracesApi,
          args: ['-p', 'hi'],
          env: otelEnv({ OTEL_LOGS_EXPORTER: 'console', OTEL_TRACES_EXPORTER: 'otlp' }),
        }),
      ]);
      notBuilt.forEach(([name, value], i) => {
        const r = stopped[i];
        expect(r.code, name).toBe(2);
        expect(r.stderr).toContain(`${name}=${value}: `);
        expect(r.stderr).toContain('not supported yet');
      });
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).toContain('asked for nothing');
      expect(off.stderr).not.toContain('OTEL_TRACES_EXPORTER');
      expect(traces.code, traces.stderr).toBe(0);
      expect(traces.stdout).toContain('metrics and events only');
      expect(traces.stderr.split('OTEL_TRACES_EXPORTER=otlp: traces are not built').length).toBe(2);
    },
  );

  providerIt(
    'OTEL_METRIC_EXPORT_INTERVAL and OTEL_LOGS_EXPORT_INTERVAL: exports arrive while the session is still open',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([text('still here')]));
      const collector = servers.add(await startFakeCollector('http'));
      const agent = startAgent({
        api,
        args: [...STREAM_ARGS],
        env: otlpEnv('http/json', collector.url, {
          OTEL_METRIC_EXPORT_INTERVAL: '300',
          OTEL_LOGS_EXPORT_INTERVAL: '200',
        }),
      });
      servers.onClose(() => {
        agent.child.kill('SIGKILL');
      });
      agent.send(JSON.parse(userLine('hello')));
      await agent.waitFor((m) => m.type === 'result');
      // The session is open (stdin is), so nothing has made a last export: what arrives is periodic,
      // and sooner than the defaults (60 s for metrics, 5 s for events) would send it.
      const c = collector;
      const deadline = Date.now() + 4_000;
      while (
        Date.now() < deadline &&
        !(total(c, 'claude_code.token.usage') > 0 && eventsNamed(c, 'api_request').length)
      )
        await new Promise((r) => setTimeout(r, 100));
      expect(total(c, 'claude_code.token.usage')).toBeGreaterThan(0);
      expect(eventsNamed(c, 'api_request')).toHaveLength(1);
      expect(agent.child.exitCode).toBeNull();
      agent.endInput();
      expect((await agent.exited).code).toBe(0);
    },
  );
});

describe.concurrent('telemetry to the console and to Prometheus', () => {
  providerIt('console exporters write to stderr; stdout keeps carrying protocol lines only', async ({ servers }) => {
    const api = servers.add(await startFakeApi([text('hello there')]));
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS],
      input: userLine('hello'),
      env: otelEnv({ OTEL_METRICS_EXPORTER: 'console', OTEL_LOGS_EXPORTER: 'console' }),
    });
    expect(r.code, r.stderr).toBe(0);
    // The harness checks every stdout line against the protocol schema.
    expect(r.stdout).not.toContain('claude_code.');
    expect(r.stderr).toContain('claude_code.token.usage');
    expect(r.stderr).toContain('claude_code.api_request');
  });

  providerIt('prometheus: the agent serves its metrics while the session runs', async ({ servers }) => {
    const api = servers.add(await startFakeApi([text('first'), text('second')]));
    const port = await freePort();
    const agent = startAgent({
      api,
      args: [...STREAM_ARGS],
      env: otelEnv({
        OTEL_METRICS_EXPORTER: 'prometheus',
        OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
        OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
      }),
    });
    servers.onClose(() => {
      agent.child.kill('SIGKILL');
    });
    agent.send(JSON.parse(userLine('one')));
    await agent.waitFor((m) => m.type === 'result');
    const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(scrape).toMatch(/^claude_code_session_count_total\{[^}]*start_type="fresh"[^}]*\} 1/m);
    expect(scrape).toMatch(/^claude_code_token_usage_total\{[^}]*type="output"[^}]*\} \d+/m);
    expect(scrape).toMatch(/^claude_code_cost_usage_total\{[^}]*model="claude-opus-5-5"[^}]*\} [0-9.e-]+/m);
    agent.endInput();
    expect((await agent.exited).code).toBe(0);
  });
});

describe.concurrent('a real Prometheus server', () => {
  providerIt.skipIf(!PROMETHEUS)(
    'scrapes the agent during a session; its query API has the cost and token series',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([text('counted', { usage: { input_tokens: 40, output_tokens: 7 } })]));
      const [agentPort, webPort] = [await freePort(), await freePort()];
      const dir = tempDir('agent-prom-');
      writeFileSync(
        join(dir, 'prometheus.yml'),
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: agent',
          '    static_configs:',
          `      - targets: ['127.0.0.1:${agentPort}']`,
          '',
        ].join('\n'),
      );
      const prom = spawn(
        PROMETHEUS!,
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${webPort}`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let promLog = '';
      prom.stderr!.on('data', (d) => (promLog += d));
      const promExited = new Promise((res) => prom.on('close', res));
      servers.onClose(async () => {
        prom.kill('SIGTERM');
        await promExited;
      });
      const agent = startAgent({
        api,
        args: [...STREAM_ARGS],
        env: otelEnv({
          OTEL_METRICS_EXPORTER: 'prometheus',
          OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
          OTEL_EXPORTER_PROMETHEUS_PORT: String(agentPort),
        }),
      });
      servers.onClose(() => {
        agent.child.kill('SIGKILL');
      });
      agent.send(JSON.parse(userLine('count this')));
      const result = await agent.waitFor((m) => m.type === 'result');
      const query = async (q: string) => {
        const res = await fetch(`http://127.0.0.1:${webPort}/api/v1/query?query=${encodeURIComponent(q)}`);
        const body = (await res.json()) as {
          data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> };
        };
        return body.data?.result ?? [];
      };
      // Until Prometheus has scraped the agent once after the turn (every second).
      let cost: Awaited<ReturnType<typeof query>> = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        cost = await query('claude_code_cost_usage_total').catch(() => []);
        if (cost.length && Number(cost[0].value[1]) > 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(cost, promLog.slice(-2000)).toHaveLength(1);
      expect(cost[0].metric).toMatchObject({ job: 'agent', model: 'claude-opus-5-5', session_id: result.session_id });
      expect(Number(cost[0].value[1])).toBeCloseTo(result.total_cost_usd, 9);
      const output = await query('claude_code_token_usage_total{type="output"}');
      expect(Number(output[0].value[1])).toBe(7);
      const input = await query('claude_code_token_usage_total{type="input"}');
      expect(Number(input[0].value[1])).toBe(40);
      agent.endInput();
      expect((await agent.exited).code).toBe(0);
    },
    40_000,
  );
});

describe.concurrent('a collector that is down or silent', () => {
  providerIt('unreachable: the run ends normally and says so once on stderr', async ({ servers }) => {
    const api = servers.add(await startFakeApi([text('nobody listening')]));
    const port = await freePort();
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS],
      input: userLine('hello'),
      env: otlpEnv('http/protobuf', `http://127.0.0.1:${port}`),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().find((m) => m.type === 'result')?.subtype).toBe('success');
    expect(r.stderr.match(/telemetry: /g)?.length, r.stderr).toBe(1);
  });

  providerIt(
    'silent (accepts, never answers): the exit waits at most CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS',
    async ({ servers }) => {
      const api = servers.add(await startFakeApi([text('slow collector')]));
      const silent = await listenTracked(net.createServer((s) => s.on('error', () => {})));
      servers.onClose(silent.close);
      const agent = startAgent({
        api,
        args: [...STREAM_ARGS],
        env: otlpEnv('http/json', silent.url, {
          CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '1000',
        }),
      });
      agent.send(JSON.parse(userLine('hello')));
      await agent.waitFor((m) => m.type === 'result');
      const ended = Date.now();
      agent.endInput();
      const { code } = await agent.exited;
      const waited = Date.now() - ended;
      expect(code, agent.stderr()).toBe(0);
      // Bounded by the setting, not by the exporters' own 10 s timeout (with room for a loaded machine).
      expect(waited).toBeGreaterThanOrEqual(900);
      expect(waited).toBeLessThan(5000);
      expect(agent.stderr()).toContain('did not finish within 1000 ms');
    },
  );
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}

(hasTmux ? describe.concurrent : describe.skip)('telemetry in the terminal UI (tmux)', () => {
  providerIt(
    "active_time of type user: the person's typing time; of type cli: the turn's",
    async ({ servers }) => {
      // The answer takes 3 s (less than the 5 s pause): the wait must not count as typing.
      const api = servers.add(await startFakeApi([{ ...text('typed and answered'), delayMs: 3000 }]));
      const collector = servers.add(await startFakeCollector('http'));
      const cwd = tempDir('agent-otel-tui-');
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(otelEnv({}))) if (v !== undefined) env[k] = v;
      const t = startTerm(api.url, [], cwd, {
        env: {
          ...env,
          OTEL_METRICS_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        },
      });
      servers.onClose(() => t.close());
      // The session is up (its model in the status line): its start does not hold the first keys back.
      await t.waitFor(/claude-opus-5-5/);
      await t.waitFor(READY);
      // Six keys 300 ms apart: five gaps of typing, about 1.5 s.
      const started = Date.now();
      for (const ch of 'hello') {
        t.type(ch);
        await new Promise((r) => setTimeout(r, 300));
      }
      t.keys('Enter');
      const typedFor = (Date.now() - started) / 1000;
      await t.waitFor(/typed and answered/);
      await t.waitFor(READY);
      t.type('/exit');
      await new Promise((r) => setTimeout(r, 200));
      t.keys('Enter');
      expect(await t.exited()).toBe(0);
      const user = total(collector, 'claude_code.active_time.total', { type: 'user' });
      // About the five gaps (keys read late on a loaded machine shorten the span a little); at most the
      // time from the first key to the last: the wait for the answer before /exit is not typing.
      expect(user).toBeGreaterThanOrEqual(1);
      expect(user).toBeLessThan(typedFor + 1);
      expect(total(collector, 'claude_code.active_time.total', { type: 'cli' })).toBeGreaterThan(0);
    },
    40_000,
  );
});
