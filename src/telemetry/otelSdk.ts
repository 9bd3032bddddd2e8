// The OpenTelemetry SDK as one file: scripts/bundle.mjs bundles this entry into dist/otel.cjs, which
// src/telemetry/otel.ts requires when telemetry is on. Required from node_modules instead, the SDK
// is several hundred small CommonJS files (resources, sdk-metrics, sdk-logs, an exporter, and what
// they pull in, semantic-conventions whole): about 0.24 s of CPU at every start with telemetry on,
// against about 0.08 s for the bundle. Each exporter is required when it is chosen; gRPC's
// transport (@grpc/grpc-js) stays in node_modules, the one instance otlpClientCert.ts uses too.
import * as api from '@opentelemetry/api';
import * as resources from '@opentelemetry/resources';
import * as sdkLogs from '@opentelemetry/sdk-logs';
import * as sdkMetrics from '@opentelemetry/sdk-metrics';

export { api, resources, sdkLogs, sdkMetrics };

export type ExporterPackage = keyof typeof EXPORTERS;

// Literal require() calls, so the bundler sees (and includes) each; each runs at its first use.
const EXPORTERS = {
  '@opentelemetry/exporter-metrics-otlp-grpc': () => require('@opentelemetry/exporter-metrics-otlp-grpc'),
  '@opentelemetry/exporter-metrics-otlp-http': () => require('@opentelemetry/exporter-metrics-otlp-http'),
  '@opentelemetry/exporter-metrics-otlp-proto': () => require('@opentelemetry/exporter-metrics-otlp-proto'),
  '@opentelemetry/exporter-logs-otlp-grpc': () => require('@opentelemetry/exporter-logs-otlp-grpc'),
  '@opentelemetry/exporter-logs-otlp-http': () => require('@opentelemetry/exporter-logs-otlp-http'),
  '@opentelemetry/exporter-logs-otlp-proto': () => require('@opentelemetry/exporter-logs-otlp-proto'),
  '@opentelemetry/exporter-prometheus': () => require('@opentelemetry/exporter-prometheus'),
} satisfies Record<string, () => unknown>;

export function exporterPackage<T>(name: ExporterPackage): T {
  return EXPORTERS[name]() as T;
}
