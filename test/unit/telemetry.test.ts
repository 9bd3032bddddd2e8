// The telemetry configuration (OTEL_* variables) and the recorder's mapping of a session's facts
// to the reference's metrics and events, against an in-memory sink.
import { describe, expect, it } from 'vitest';
import { tracesNotice, readTelemetryConfig, telemetryEnabled } from '../../src/telemetry/config.js';
import { customBaseUrl } from '../../src/telemetry/start.js';
import { typingClock } from '../../src/telemetry/typing.js';
import {
  type Attributes,
  createRecorder,
  languageOf,
  linesChanged,
  type MetricName,
  type TelemetrySink,
} from '../../src/telemetry/recorder.js';

function sink() {
  const added: Array<{ name: MetricName; value: number; attributes: Attributes }> = [];
  const events: Array<{ name: string; attributes: Attributes }> = [];
  let shutdowns = 0;
  const s: TelemetrySink = {
    add: (name, value, attributes) => added.push({ name, value, attributes }),
    event: (name, attributes) => events.push({ name, attributes }),
    shutdown: async () => {
      shutdowns++;
    },
  };
  return { s, added, events, shutdowns: () => shutdowns };
}

const ctx = {
  sessionId: 'sess-1',
  version: '9.9.9',
  userId: 'u'.repeat(64),
  apiProvider: 'firstParty',
  terminal: 'xterm',
  entrypoint: 'sdk' as const,
  customBaseUrl: false,
};

describe('telemetry configuration', () => {
  it('is off unless CLAUDE_CODE_ENABLE_TELEMETRY is truthy', () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '0' })).toBe(false);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '1' })).toBe(true);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: 'true' })).toBe(true);
  });

  it('reads exporters, protocols per signal, intervals and switches, with the reference defaults', () => {
    const c = readTelemetryConfig({
      OTEL_METRICS_EXPORTER: 'otlp, prometheus,none',
      OTEL_LOGS_EXPORTER: 'console',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '10000',
    });
    expect(c.metrics).toEqual(['otlp', 'prometheus']);
    expect(c.logs).toEqual(['console']);
    expect(c.metricsProtocol).toBe('grpc');
    expect(c.logsProtocol).toBe('http/json');
    expect(c.metricIntervalMs).toBe(10_000);
    expect(c.logsIntervalMs).toBe(5_000);
    expect(c.temporality).toBe('delta');
    expect(c.include).toEqual({ sessionId: true, version: false, accountUuid: true });
    expect(c.logUserPrompts).toBe(false);
    expect(c.shutdownTimeoutMs).toBe(2_000);
    expect(readTelemetryConfig({}).metricsProtocol).toBe('http/protobuf');
  });

  it('names the variable whose value cannot be used', () => {
    expect(() => readTelemetryConfig({ OTEL_LOGS_EXPORTER: 'prometheus' })).toThrow(/OTEL_LOGS_EXPORTER=prometheus/);
    expect(() => readTelemetryConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
    expect(() => readTelemetryConfig({ OTEL_METRIC_EXPORT_INTERVAL: 'soon' })).toThrow(/OTEL_METRIC_EXPORT_INTERVAL/);
    expect(() => readTelemetryConfig({ OTEL_LOG_USER_PROMPTS: 'maybe' })).toThrow(/OTEL_LOG_USER_PROMPTS/);
  });

  it('refuses what is not built when it is asked for, and nothing when it is off', () => {
    for (const name of [
      'CLAUDE_CODE_ENHANCED_TELEMETRY_BETA',
      'ENABLE_ENHANCED_TELEMETRY_BETA',
      'OTEL_LOG_TOOL_CONTENT',
      'OTEL_LOG_RAW_API_BODIES',
      'OTEL_METRICS_INCLUDE_ENTRYPOINT',
      'OTEL_METRICS_INCLUDE_REPOSITORY',
    ])
      expect(() => readTelemetryConfig({ [name]: '1' })).toThrow(new RegExp(`^${name}=1: .*not supported yet`));
    expect(() => readTelemetryConfig({ OTEL_TRACES_EXPORTER: 'console' })).not.toThrow();
    expect(tracesNotice({ OTEL_TRACES_EXPORTER: 'console' })).toMatch(
      /^OTEL_TRACES_EXPORTER=console: traces are not built/,
    );
    expect(tracesNotice({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(() =>
      readTelemetryConfig({
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_LOG_TOOL_CONTENT: '0',
        OTEL_LOG_RAW_API_BODIES: 'false',
      }),
    ).not.toThrow();
  });
});

describe('the recorder', () => {
  const cfg = readTelemetryConfig({ OTEL_METRICS_EXPORTER: 'otlp', OTEL_LOGS_EXPORTER: 'otlp' });

  it('puts the standard attributes on everything, and the prompt id and sequence on events', () => {
    const k = sink();
    const t = createRecorder(cfg, ctx, k.s);
    t.sessionStarted('resume');
    t.userPrompt('secret plans');
    t.toolDecision({
      toolName: 'Edit',
      toolKind: 'edit',
      paths: ['/a/b.py'],
      toolUseId: 't1',
      decision: 'reject',
      source: 'user_reject',
      input: { file_path: '/a/b.py' },
    });
    expect(k.added).toEqual([
      {
        name: 'claude_code.session.count',
        value: 1,
        attributes: expect.objectContaining({ 'user.id': ctx.userId, 'session.id': 'sess-1', start_type: 'resume' }),
      },
      {
        name: 'claude_code.code_edit_tool.decision',
        value: 1,
        attributes: expect.objectContaining({
          decision: 'reject',
          source: 'user_reject',
          tool_name: 'Edit',
          language: 'Python',
        }),
      },
    ]);
    expect(k.events.map((e) => [e.name, e.attributes['event.sequence']])).toEqual([
      ['user_prompt', 0],
      ['tool_decision', 1],
    ]);
    expect(k.events[0].attributes.prompt).toBe('<REDACTED>');
    expect(k.events[1].attributes['prompt.id']).toBe(k.events[0].attributes['prompt.id']);
    expect(JSON.stringify(k.events)).not.toContain('secret plans');
  });

  it('counts commits and pull requests from Bash commands that succeeded', () => {
    const k = sink();
    const t = createRecorder(cfg, ctx, k.s);
    const bash = (command: string, success = true) =>
      t.toolResult({
        toolName: 'Bash',
        toolKind: 'execute',
        paths: [],
        toolUseId: 'b',
        success,
        durationMs: 1,
        input: { command },
        resultSizeBytes: 0,
      });
    bash('git commit -m "x"');
    bash('git add . && git -c user.name=a commit -qm y');
    bash('git commit --help');
    bash('git log --grep commit');
    bash('git commit -m z', false);
    bash('gh pr create --fill');
    bash('gh pr list');
    const count = (name: MetricName) => k.added.filter((a) => a.name === name).reduce((n, a) => n + a.value, 0);
    expect(count('claude_code.commit.count')).toBe(2);
    expect(count('claude_code.pull_request.count')).toBe(1);
  });

  it("counts edit decisions and lines by the tool's declared kind, not its name", () => {
    const k = sink();
    const t = createRecorder(cfg, ctx, k.s);
    const patch = { structuredPatch: [{ lines: ['-a', '+b', '+c'] }] };
    // A new edit tool no list names, whose path field has a name of its own: counted, its language
    // from the path the call declares.
    for (const [toolName, toolKind] of [
      ['Scribble', 'edit'],
      ['Bash', 'execute'],
    ] as const) {
      const input = { target: '/a/b.ts' };
      const paths = ['/a/b.ts'];
      t.toolDecision({ toolName, toolKind, paths, toolUseId: 'x', decision: 'accept', source: 'config', input });
      t.toolResult({
        toolName,
        toolKind,
        paths,
        toolUseId: 'x',
        success: true,
        durationMs: 1,
        input,
        data: patch,
        resultSizeBytes: 0,
      });
    }
    expect(k.added.filter((a) => a.name === 'claude_code.code_edit_tool.decision')).toEqual([
      expect.objectContaining({
        attributes: expect.objectContaining({ tool_name: 'Scribble', language: 'TypeScript' }),
      }),
    ]);
    expect(
      k.added.filter((a) => a.name === 'claude_code.lines_of_code.count').map((a) => [a.attributes.type, a.value]),
    ).toEqual([
      ['added', 2],
      ['removed', 1],
    ]);
  });

  it('stops recording after shutdown, and shuts the sink down once', async () => {
    const k = sink();
    const t = createRecorder(cfg, ctx, k.s);
    await t.shutdown();
    await t.shutdown();
    t.sessionStarted('fresh');
    expect(k.added).toEqual([]);
    expect(k.shutdowns()).toBe(1);
  });
});

describe('lines of code and languages', () => {
  it('counts a patch’s added and removed lines, and a new file’s lines', () => {
    expect(linesChanged({}, { type: 'update', structuredPatch: [{ lines: [' a', '-b', '+c', '+d'] }] })).toEqual({
      added: 2,
      removed: 1,
    });
    expect(linesChanged({ content: 'x\ny\n' }, { type: 'create', structuredPatch: [] })).toEqual({
      added: 2,
      removed: 0,
    });
    expect(linesChanged({ content: 'x' }, { type: 'update', structuredPatch: [] })).toBeUndefined();
  });

  it('names a file’s language by its extension', () => {
    expect(languageOf('/x/a.ts')).toBe('TypeScript');
    expect(languageOf('notes.txt')).toBe('Plain text');
    expect(languageOf('Makefile')).toBe('unknown');
  });
});

describe('the reference attributes added later (measured against the fake API)', () => {
  const cfg = readTelemetryConfig({
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_LOG_TOOL_DETAILS: '1',
  });
  const reply = (over: Partial<Parameters<ReturnType<typeof createRecorder>['apiRequest']>[0]> = {}) => ({
    model: 'claude-opus-5-5',
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheCreationTokens: 300,
    cacheCreation5mTokens: 100,
    cacheCreation1hTokens: 200,
    costUsd: 0.0591051,
    durationMs: 12,
    caller: null,
    text: '',
    toolUseIds: [],
    ...over,
  });

  it('api_request: cache writes by lifetime, cost in micro-dollars, request id, speed; the reply text as assistant_response (redacted)', () => {
    const k = sink();
    const t = createRecorder(cfg, { ...ctx, customBaseUrl: true }, k.s);
    t.userPrompt('hi');
    t.apiRequest(reply({ requestId: 'req_1', text: 'the answer' }));
    const [prompt, api, answer] = k.events;
    expect(prompt.attributes).toMatchObject({ prompt: '<REDACTED>', prompt_text: '<REDACTED>' });
    expect(api.attributes).toMatchObject({
      'anthropic.custom_base_url': true,
      cache_creation_5m_tokens: 100,
      cache_creation_1h_tokens: 200,
      cost_usd_micros: 59105,
      request_id: 'req_1',
      speed: 'normal',
    });
    expect(answer.name).toBe('assistant_response');
    expect(answer.attributes).toMatchObject({
      response_length: 10,
      response: '<REDACTED>',
      request_id: 'req_1',
      model: 'claude-opus-5-5',
      query_source: 'sdk',
    });
    const shown = sink();
    createRecorder(
      readTelemetryConfig({ OTEL_LOGS_EXPORTER: 'otlp', OTEL_LOG_ASSISTANT_RESPONSES: '1' }),
      ctx,
      shown.s,
    ).apiRequest(reply({ text: 'the answer' }));
    expect(shown.events[1].attributes.response).toBe('the answer');
  });

  it("a tool call's decision and result carry the id of the request that asked for it, its source, and (with details) a Bash command's parameters", () => {
    const k = sink();
    const t = createRecorder(cfg, ctx, k.s);
    t.apiRequest(reply({ requestId: 'req_7', toolUseIds: ['t1', 't2'] }));
    const input = { command: 'git status --short' };
    t.toolDecision({
      toolName: 'Bash',
      toolKind: 'execute',
      paths: [],
      toolUseId: 't1',
      decision: 'accept',
      source: 'config',
      input,
    });
    t.toolResult({
      toolName: 'Bash',
      toolKind: 'execute',
      paths: [],
      toolUseId: 't1',
      success: true,
      durationMs: 3,
      input,
      resultSizeBytes: 4,
    });
    t.toolDecision({
      toolName: 'mcp__calc__add',
      toolKind: 'other',
      paths: [],
      toolUseId: 't2',
      decision: 'accept',
      source: 'config',
      input: {},
    });
    t.toolDecision({
      toolName: 'Read',
      toolKind: 'read',
      paths: [],
      toolUseId: 'other',
      decision: 'accept',
      source: 'config',
      input: {},
    });
    const [decision, result, mcp, unknown] = k.events.slice(1);
    const parameters = JSON.stringify({ bash_command: 'git', full_command: 'git status --short' });
    expect(decision.attributes).toMatchObject({
      request_id: 'req_7',
      tool_source: 'builtin',
      tool_parameters: parameters,
    });
    expect(result.attributes).toMatchObject({ request_id: 'req_7', tool_parameters: parameters });
    expect(mcp.attributes).toMatchObject({ request_id: 'req_7', tool_source: 'mcp' });
    expect(unknown.attributes.request_id).toBeUndefined();
    const quiet = sink();
    createRecorder(readTelemetryConfig({ OTEL_LOGS_EXPORTER: 'otlp' }), ctx, quiet.s).toolDecision({
      toolName: 'Bash',
      toolKind: 'execute',
      paths: [],
      toolUseId: 't1',
      decision: 'accept',
      source: 'config',
      input,
    });
    expect(quiet.events[0].attributes.tool_parameters).toBeUndefined();
  });

  it('anthropic.custom_base_url: an endpoint that is not the provider’s own', () => {
    expect(customBaseUrl('firstParty', {})).toBe(false);
    expect(customBaseUrl('firstParty', { ANTHROPIC_BASE_URL: 'https://api.anthropic.com' })).toBe(false);
    expect(customBaseUrl('firstParty', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' })).toBe(true);
    expect(
      customBaseUrl('bedrock', { ANTHROPIC_BEDROCK_BASE_URL: 'https://bedrock-runtime.eu-west-1.amazonaws.com' }),
    ).toBe(false);
    expect(customBaseUrl('bedrock', { ANTHROPIC_BEDROCK_BASE_URL: 'https://llm-gateway.example.com' })).toBe(true);
    expect(customBaseUrl('bedrock', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' })).toBe(false);
  });
});

describe('typing time (active_time of type user)', () => {
  it('adds the time between keys typed within the pause, nothing for the first key after a pause', () => {
    const clock = typingClock(5000);
    expect(clock.key(10_000)).toBe(0);
    expect(clock.key(10_400)).toBeCloseTo(0.4, 9);
    expect(clock.key(11_000)).toBeCloseTo(0.6, 9);
    expect(clock.key(16_001)).toBe(0);
    expect(clock.key(21_001)).toBeCloseTo(5, 9);
    expect(clock.key(21_000)).toBe(0); // the clock went back: nothing
    clock.pause(); // a prompt was sent: the wait for its answer is not typing
    expect(clock.key(22_000)).toBe(0);
    expect(clock.key(22_250)).toBeCloseTo(0.25, 9);
  });
});
