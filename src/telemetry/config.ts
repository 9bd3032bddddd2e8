// What CLAUDE_CODE_ENABLE_TELEMETRY and the OTEL_* variables ask for, read once at start. Only this
// file is on every start's path: the OpenTelemetry SDK itself is loaded (otel.ts) when telemetry is on.
// The OTLP exporters read their own endpoint, headers, timeout and certificate variables
// (OTEL_EXPORTER_OTLP_*); what is read here is what they leave to the program.

export const METRICS_EXPORTERS = ['otlp', 'prometheus', 'console', 'none'] as const;
export const LOGS_EXPORTERS = ['otlp', 'console', 'none'] as const;
export const OTLP_PROTOCOLS = ['grpc', 'http/json', 'http/protobuf'] as const;

export type MetricsExporterKind = (typeof METRICS_EXPORTERS)[number];
export type LogsExporterKind = (typeof LOGS_EXPORTERS)[number];
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export interface TelemetryConfig {
  metrics: Exclude<MetricsExporterKind, 'none'>[];
  logs: Exclude<LogsExporterKind, 'none'>[];
  metricsProtocol: OtlpProtocol;
  logsProtocol: OtlpProtocol;
  /** OTEL_METRIC_EXPORT_INTERVAL (ms). */
  metricIntervalMs: number;
  /** OTEL_LOGS_EXPORT_INTERVAL (ms). */
  logsIntervalMs: number;
  /** OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE; delta unless set, as the reference exports. */
  temporality: 'delta' | 'cumulative' | 'lowmemory';
  prometheus: { host?: string; port: number };
  /** The cardinality switches: which identifying attributes go on every metric and event. */
  include: { sessionId: boolean; version: boolean; accountUuid: boolean };
  /** OTEL_LOG_USER_PROMPTS: the prompt's text in user_prompt events (else "<REDACTED>"). */
  logUserPrompts: boolean;
  /** OTEL_LOG_TOOL_DETAILS: tool inputs in tool_result events. */
  logToolDetails: boolean;
  /** The reply's text in assistant_response events (OTEL_LOG_USER_PROMPTS shows it too, as in the reference). */
  logAssistantResponses: boolean;
  /** CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: the most the exit waits for the last export. */
  shutdownTimeoutMs: number;
  /** CLAUDE_CODE_OTEL_HEADERS_HELPER_DEBOUNCE_MS: how long otelHeadersHelper's headers are reused. */
  headersHelperDebounceMs: number;
}

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
const FALSY = new Set(['0', 'false', 'no', 'off']);

/** Whether telemetry is on (CLAUDE_CODE_ENABLE_TELEMETRY); nothing else is read when it is off. */
export function telemetryEnabled(env: NodeJS.ProcessEnv): boolean {
  return TRUTHY.has((env.CLAUDE_CODE_ENABLE_TELEMETRY ?? '').trim().toLowerCase());
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = env[name]?.trim().toLowerCase();
  if (!v) return fallback;
  if (TRUTHY.has(v)) return true;
  if (FALSY.has(v)) return false;
  throw new Error(`${name}=${env[name]}: expected 1 or 0 (true or false)`);
}

function list<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[]): Exclude<T, 'none'>[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  const out: Exclude<T, 'none'>[] = [];
  for (const item of raw.split(',').map((s) => s.trim().toLowerCase())) {
    if (!item) continue;
    if (!(allowed as readonly string[]).includes(item))
      throw new Error(`${name}=${raw}: "${item}" is not an exporter here (use ${allowed.join(', ')})`);
    if (item !== 'none' && !out.includes(item as Exclude<T, 'none'>)) out.push(item as Exclude<T, 'none'>);
  }
  return out;
}

function protocol(env: NodeJS.ProcessEnv, signal: 'METRICS' | 'LOGS'): OtlpProtocol {
  for (const name of [`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`, 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const v = env[name]?.trim().toLowerCase();
    if (!v) continue;
    if (!(OTLP_PROTOCOLS as readonly string[]).includes(v))
      throw new Error(`${name}=${env[name]}: expected one of ${OTLP_PROTOCOLS.join(', ')}`);
    return v as OtlpProtocol;
  }
  // The OpenTelemetry specification's default.
  return 'http/protobuf';
}

function millis(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected a whole number of milliseconds`);
  return n;
}

/**
 * The reference's telemetry variables that ask for what is not built here (traces, and what only
 * traces or raw bodies would carry): set on, they stop the start rather than be ignored. Off or
 * unset, they ask for nothing.
 */
const NOT_BUILT: Record<string, string> = {
  CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: 'traces (the beta tracing) are not built',
  ENABLE_ENHANCED_TELEMETRY_BETA: 'traces (the beta tracing) are not built',
  OTEL_LOG_TOOL_CONTENT: 'tool content goes in trace spans, and traces are not built',
  OTEL_LOG_RAW_API_BODIES: 'raw API bodies are not exported',
  OTEL_METRICS_INCLUDE_ENTRYPOINT: 'the entrypoint attribute on metrics is not built',
  OTEL_METRICS_INCLUDE_REPOSITORY: 'the repository attribute on metrics is not built',
};

function refuseNotBuilt(env: NodeJS.ProcessEnv): void {
  for (const [name, why] of Object.entries(NOT_BUILT))
    if (flag(env, name, false)) throw new Error(`${name}=${env[name]}: ${why}; it is not supported yet`);
}

/**
 * OTEL_TRACES_EXPORTER is a standard OpenTelemetry variable, often set machine-wide beside the
 * metrics and logs exporters, and the reference reads it only under its tracing beta (refused
 * above): set, it is told once on stderr, not a reason to refuse the run.
 */
export function tracesNotice(env: NodeJS.ProcessEnv): string | undefined {
  const traces = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (!traces || traces === 'none') return undefined;
  return `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: traces are not built here; only metrics and events are exported`;
}

/** The telemetry configuration; throws an Error naming the variable whose value cannot be used. */
export function readTelemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig {
  refuseNotBuilt(env);
  const temporality = (env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE?.trim().toLowerCase() ||
    'delta') as TelemetryConfig['temporality'];
  if (!['delta', 'cumulative', 'lowmemory'].includes(temporality))
    throw new Error(
      `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=${env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE}: expected delta, cumulative or lowmemory`,
    );
  const promHost = env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim();
  return {
    metrics: list(env, 'OTEL_METRICS_EXPORTER', METRICS_EXPORTERS),
    logs: list(env, 'OTEL_LOGS_EXPORTER', LOGS_EXPORTERS),
    metricsProtocol: protocol(env, 'METRICS'),
    logsProtocol: protocol(env, 'LOGS'),
    metricIntervalMs: millis(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000),
    logsIntervalMs: millis(env, 'OTEL_LOGS_EXPORT_INTERVAL', 5_000),
    temporality,
    prometheus: {
      ...(promHost ? { host: promHost } : {}),
      port: millis(env, 'OTEL_EXPORTER_PROMETHEUS_PORT', 9464, 0),
    },
    include: {
      sessionId: flag(env, 'OTEL_METRICS_INCLUDE_SESSION_ID', true),
      version: flag(env, 'OTEL_METRICS_INCLUDE_VERSION', false),
      accountUuid: flag(env, 'OTEL_METRICS_INCLUDE_ACCOUNT_UUID', true),
    },
    logUserPrompts: flag(env, 'OTEL_LOG_USER_PROMPTS', false),
    logToolDetails: flag(env, 'OTEL_LOG_TOOL_DETAILS', false),
    logAssistantResponses: flag(env, 'OTEL_LOG_ASSISTANT_RESPONSES', false),
    shutdownTimeoutMs: millis(env, 'CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS', 2_000),
    headersHelperDebounceMs: millis(env, 'CLAUDE_CODE_OTEL_HEADERS_HELPER_DEBOUNCE_MS', 29 * 60_000),
  };
}
