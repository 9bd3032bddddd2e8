// The OpenTelemetry SDK behind the recorder: a MeterProvider with one reader per metrics exporter
// (OTLP over grpc, http/json or http/protobuf; a Prometheus endpoint; the console) and a
// LoggerProvider with one batch processor per logs exporter (OTLP, console). The packages are kept
// out of the bundle (scripts/bundle.mjs) and required here only when telemetry is on. Telemetry
// never fails a run: an export error is told once on stderr, and shutdown is bounded.
// The SDK is bundled into one file of its own, dist/otel.cjs (src/telemetry/otelSdk.ts).
import { release } from 'node:os';
import { join } from 'node:path';
import { format, type InspectOptions, inspect } from 'node:util';
import { mirrorProxyVariablesForGrpc } from '../net/grpcProxyEnv.js';
import { nodeAgents } from '../net/nodeAgents.js';
import { proxyConfigured } from '../net/outboundAgent.js';
import { grpcClientCredentials } from './otlpClientCert.js';
import { logWarning, writeStderr } from '../util/log.js';
import { loadExternal } from '../util/loadExternal.js';
import { withTimeout } from '../util/withTimeout.js';
import { requireCachedBundle } from '../util/cachedBundle.js';
import type { OtlpProtocol, TelemetryConfig } from './config.js';
import { type Attributes, METRICS, type MetricName, type TelemetrySink } from './recorder.js';
import type * as Api from '@opentelemetry/api';
import type * as SdkLogs from '@opentelemetry/sdk-logs';
import type * as SdkMetrics from '@opentelemetry/sdk-metrics';

/** The instrumentation scopes the reference uses, so queries on scope names keep working. */
const METER_SCOPE = 'com.anthropic.claude_code';
const EVENTS_SCOPE = 'com.anthropic.claude_code.events';

export interface OtelContext {
  version: string;
  /** otelHeadersHelper: extra headers for every OTLP export (HTTP; gRPC gets the first answer). */
  headers?: () => Promise<Record<string, string>>;
}

type Exporter<T> = new (config?: Record<string, unknown>) => T;

type OtelSdk = typeof import('./otelSdk.js');
let sdk: OtelSdk | null = null;
/** dist/otel.cjs, beside the CLI's bundle (scripts/bundle.mjs builds both), through its code cache. */
function otelSdk(): OtelSdk {
  sdk ??= requireCachedBundle<OtelSdk>(join(__dirname, 'otel.cjs'));
  return sdk;
}

function metricExporter(protocol: OtlpProtocol, options: Record<string, unknown>): SdkMetrics.PushMetricExporter {
  const pkg =
    protocol === 'grpc'
      ? '@opentelemetry/exporter-metrics-otlp-grpc'
      : protocol === 'http/json'
        ? '@opentelemetry/exporter-metrics-otlp-http'
        : '@opentelemetry/exporter-metrics-otlp-proto';
  const { OTLPMetricExporter } = otelSdk().exporterPackage<{
    OTLPMetricExporter: Exporter<SdkMetrics.PushMetricExporter>;
  }>(pkg);
  return new OTLPMetricExporter(options);
}

function logExporter(protocol: OtlpProtocol, options: Record<string, unknown>): SdkLogs.LogRecordExporter {
  const pkg =
    protocol === 'grpc'
      ? '@opentelemetry/exporter-logs-otlp-grpc'
      : protocol === 'http/json'
        ? '@opentelemetry/exporter-logs-otlp-http'
        : '@opentelemetry/exporter-logs-otlp-proto';
  const { OTLPLogExporter } = otelSdk().exporterPackage<{ OTLPLogExporter: Exporter<SdkLogs.LogRecordExporter> }>(pkg);
  return new OTLPLogExporter(options);
}

// The SDK's console exporters print with the global console (stdout). Ours goes to stderr, so
// stdout keeps carrying protocol lines only, in every mode.
// Made at first use: the start-up snapshot (scripts/snapshot.cjs) has no usable node:console
// Console class. The exporters print with console.dir; the rest is there for anything else.
let stderrConsole: Console | null = null;
function makeStderrConsole(): Console {
  const line = (text: string) => writeStderr(`${text}\n`);
  const print = (...args: unknown[]) => line(format(...args));
  return Object.assign(Object.create(globalThis.console) as Console, {
    dir: (value: unknown, options?: InspectOptions) => line(inspect(value, options)),
    log: print,
    info: print,
    warn: print,
    error: print,
    debug: print,
  });
}
function onStderr<T>(fn: () => T): T {
  const saved = globalThis.console;
  stderrConsole ??= makeStderrConsole();
  globalThis.console = stderrConsole;
  try {
    return fn();
  } finally {
    globalThis.console = saved;
  }
}
function toStderrMetrics(inner: SdkMetrics.PushMetricExporter): SdkMetrics.PushMetricExporter {
  return {
    export: (metrics, done) => onStderr(() => inner.export(metrics, done)),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    ...(inner.selectAggregationTemporality
      ? { selectAggregationTemporality: inner.selectAggregationTemporality.bind(inner) }
      : {}),
  };
}
function toStderrLogs(inner: SdkLogs.LogRecordExporter): SdkLogs.LogRecordExporter {
  return {
    export: (records, done) => onStderr(() => inner.export(records, done)),
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
}

/**
 * Telemetry's trouble is told once per process (an export error, or a last export cut short at
 * exit); the run goes on either way.
 */
function troubleReporter(api: typeof Api): (message: string) => void {
  let told = false;
  const tell = (message: string) => {
    if (told) return;
    told = true;
    logWarning(`telemetry: ${message}; further telemetry errors are not shown`);
  };
  const quiet = () => {};
  const exportFailed = (...args: unknown[]) => {
    const what = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : '')).join(' ');
    tell(`an export failed (${what.trim().slice(0, 300)})`);
  };
  api.diag.setLogger(
    { error: exportFailed, warn: quiet, info: quiet, debug: quiet, verbose: quiet },
    api.DiagLogLevel.ERROR,
  );
  return tell;
}

export async function startOtel(cfg: TelemetryConfig, ctx: OtelContext): Promise<TelemetrySink> {
  const { api, resources, sdkMetrics, sdkLogs } = otelSdk();
  const trouble = troubleReporter(api);

  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the defaults.
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources
    .resourceFromAttributes({
      'service.name': 'claude-code',
      'service.version': ctx.version,
      'os.type': process.platform,
      'os.version': release(),
      'host.arch': process.arch === 'x64' ? 'amd64' : process.arch,
    })
    .merge(detected);

  // A helper that fails is told once (above) and its export goes without the extra headers.
  let grpcMetadata: Record<string, string> = {};
  if (ctx.headers && (cfg.metricsProtocol === 'grpc' || cfg.logsProtocol === 'grpc'))
    grpcMetadata = await ctx.headers().catch(() => ({}));
  // HTTPS_PROXY / HTTP_PROXY / NO_PROXY and CLAUDE_CODE_CLIENT_CERT, as for every other
  // connection: the HTTP exporters get the Node agents, gRPC reads the proxy variables itself and
  // gets channel credentials with the certificate.
  const agents = nodeAgents(process.env);
  const grpcUsed = cfg.metricsProtocol === 'grpc' || cfg.logsProtocol === 'grpc';
  if (grpcUsed && proxyConfigured(process.env)) mirrorProxyVariablesForGrpc();
  const otlpOptions = (protocol: OtlpProtocol, signal: 'METRICS' | 'LOGS'): Record<string, unknown> => {
    if (protocol !== 'grpc') {
      const through = agents
        ? { httpAgentOptions: (scheme: string) => (scheme === 'http:' ? agents.http : agents.https) }
        : {};
      return ctx.headers ? { ...through, headers: ctx.headers } : through;
    }
    const credentials = grpcClientCredentials(process.env, signal);
    const withCert = credentials ? { credentials } : {};
    if (!ctx.headers) return withCert;
    const grpc = loadExternal<{ Metadata: new () => { set(k: string, v: string): void } }>('@grpc/grpc-js');
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(grpcMetadata)) metadata.set(k, v);
    return { ...withCert, metadata };
  };

  const readers: SdkMetrics.IMetricReader[] = [];
  const temporality =
    cfg.temporality === 'delta'
      ? sdkMetrics.AggregationTemporality.DELTA
      : cfg.temporality === 'cumulative'
        ? sdkMetrics.AggregationTemporality.CUMULATIVE
        : undefined;
  const periodic = (exporter: SdkMetrics.PushMetricExporter) =>
    new sdkMetrics.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: cfg.metricIntervalMs,
      exportTimeoutMillis: Math.min(cfg.metricIntervalMs, 30_000),
    });
  for (const kind of cfg.metrics) {
    if (kind === 'otlp') {
      readers.push(
        periodic(
          metricExporter(cfg.metricsProtocol, {
            // The exporters' AggregationTemporalityPreference: DELTA 0, CUMULATIVE 1, LOWMEMORY 2.
            temporalityPreference: { delta: 0, cumulative: 1, lowmemory: 2 }[cfg.temporality],
            ...otlpOptions(cfg.metricsProtocol, 'METRICS'),
          }),
        ),
      );
    } else if (kind === 'console') {
      const inner = new sdkMetrics.ConsoleMetricExporter(
        temporality !== undefined ? { temporalitySelector: () => temporality } : {},
      );
      readers.push(periodic(toStderrMetrics(inner)));
    } else {
      const { PrometheusExporter } = otelSdk().exporterPackage<{
        PrometheusExporter: new (
          config: Record<string, unknown>,
          cb?: (error: Error | undefined) => void,
        ) => SdkMetrics.IMetricReader;
      }>('@opentelemetry/exporter-prometheus');
      readers.push(
        new PrometheusExporter({ ...cfg.prometheus }, (err) => {
          if (err) logWarning(`telemetry: the Prometheus endpoint could not start: ${err.message}`);
        }),
      );
    }
  }
  const meterProvider = readers.length ? new sdkMetrics.MeterProvider({ resource, readers }) : undefined;
  const meter = meterProvider?.getMeter(METER_SCOPE, ctx.version);
  const counters = new Map<MetricName, Api.Counter>();
  const counter = (name: MetricName) => {
    let c = counters.get(name);
    if (!c && meter) {
      c = meter.createCounter(name, METRICS[name]);
      counters.set(name, c);
    }
    return c;
  };
  // Every counter exists from the start, so a scrape or an export names them all (at zero).
  for (const name of Object.keys(METRICS) as MetricName[]) counter(name);

  const processors: SdkLogs.LogRecordProcessor[] = [];
  for (const kind of cfg.logs) {
    const exporter =
      kind === 'otlp'
        ? logExporter(cfg.logsProtocol, otlpOptions(cfg.logsProtocol, 'LOGS'))
        : toStderrLogs(new sdkLogs.ConsoleLogRecordExporter());
    processors.push(
      new sdkLogs.BatchLogRecordProcessor({
        exporter,
        scheduledDelayMillis: cfg.logsIntervalMs,
        exportTimeoutMillis: Math.min(Math.max(cfg.logsIntervalMs, 1000), 30_000),
      }),
    );
  }
  const loggerProvider = processors.length ? new sdkLogs.LoggerProvider({ resource, processors }) : undefined;
  const logger = loggerProvider?.getLogger(EVENTS_SCOPE, ctx.version);

  return {
    add(name, value, attributes) {
      counter(name)?.add(value, attributes as Api.Attributes);
    },
    event(name, attributes: Attributes) {
      logger?.emit({ body: `claude_code.${name}`, attributes: attributes as Api.Attributes });
    },
    async shutdown(timeoutMs) {
      // allSettled never yields undefined: undefined is the timeout.
      const settled = await withTimeout(
        Promise.allSettled([meterProvider?.shutdown(), loggerProvider?.shutdown()]),
        timeoutMs,
      );
      if (settled === undefined) trouble(`the last export did not finish within ${timeoutMs} ms; it was dropped`);
    },
  };
}
