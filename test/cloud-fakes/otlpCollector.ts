// A local OpenTelemetry collector, faked at its wire: OTLP over HTTP (/v1/metrics, /v1/logs, as
// http/json or http/protobuf) and over gRPC (the MetricsService and LogsService Export calls). The
// protobuf is decoded with protobufjs from the OTLP message definitions below (the fields this
// project's tests read, with their numbers from opentelemetry-proto), so a wrong encoding fails.
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { listenTracked } from './listen.js';

const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Resource { repeated KeyValue attributes = 1; }
message NumberDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  oneof value { double as_double = 4; sfixed64 as_int = 6; }
}
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Metric { string name = 1; string description = 2; string unit = 3; Gauge gauge = 5; Sum sum = 7; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message LogRecord {
  fixed64 time_unix_nano = 1;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  string event_name = 12;
}
message ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; }
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
`;

const root = protobuf.parse(OTLP_PROTO).root;
const MetricsRequest = root.lookupType('otlp.ExportMetricsServiceRequest');
const LogsRequest = root.lookupType('otlp.ExportLogsServiceRequest');
const TO_OBJECT = { longs: Number, bytes: String, defaults: false, oneofs: false } as const;

export type Attrs = Record<string, unknown>;
export interface MetricPoint {
  name: string;
  unit: string;
  /** AggregationTemporality: 1 delta, 2 cumulative. */
  temporality?: number;
  attributes: Attrs;
  value: number;
  scope: string;
  resource: Attrs;
}
export interface EventRecord {
  body: unknown;
  attributes: Attrs;
  scope: string;
  resource: Attrs;
}
export interface Export {
  signal: 'metrics' | 'logs';
  transport: 'http/json' | 'http/protobuf' | 'grpc';
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeCollector {
  /** The HTTP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT), or the gRPC one for startFakeCollector('grpc'). */
  url: string;
  exports: Export[];
  points: MetricPoint[];
  events: EventRecord[];
  close(): Promise<void>;
}

function anyValue(v: any): unknown {
  if (v == null) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue);
  if ('kvlistValue' in v) return attrs(v.kvlistValue.values);
  return undefined;
}

function attrs(list: any[] | undefined): Attrs {
  const out: Attrs = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

/** Metrics and logs requests, in the camelCase object form OTLP/JSON and protobufjs share. */
function collect(c: FakeCollector, signal: 'metrics' | 'logs', body: any): void {
  if (signal === 'metrics') {
    for (const rm of body.resourceMetrics ?? []) {
      const resource = attrs(rm.resource?.attributes);
      for (const sm of rm.scopeMetrics ?? [])
        for (const m of sm.metrics ?? []) {
          const data = m.sum ?? m.gauge;
          for (const p of data?.dataPoints ?? [])
            c.points.push({
              name: m.name,
              unit: m.unit ?? '',
              ...(m.sum ? { temporality: m.sum.aggregationTemporality } : {}),
              attributes: attrs(p.attributes),
              value: Number(p.asDouble ?? p.asInt ?? 0),
              scope: sm.scope?.name ?? '',
              resource,
            });
        }
    }
  } else {
    for (const rl of body.resourceLogs ?? []) {
      const resource = attrs(rl.resource?.attributes);
      for (const sl of rl.scopeLogs ?? [])
        for (const r of sl.logRecords ?? [])
          c.events.push({
            body: anyValue(r.body),
            attributes: attrs(r.attributes),
            scope: sl.scope?.name ?? '',
            resource,
          });
    }
  }
}

function decode(signal: 'metrics' | 'logs', bytes: Uint8Array): any {
  const type = signal === 'metrics' ? MetricsRequest : LogsRequest;
  return type.toObject(type.decode(bytes), TO_OBJECT);
}

/**
 * `http`: one server for /v1/metrics and /v1/logs (JSON or protobuf by content-type);
 * `grpc`: a gRPC server with the two Export methods (insecure, or with `mtls` one that wants a client certificate).
 */
export async function startFakeCollector(
  kind: 'http' | 'grpc' = 'http',
  /** gRPC only: serve TLS with this certificate and require a client certificate signed by `ca`. */
  mtls?: { ca: Buffer; cert: Buffer; key: Buffer },
): Promise<FakeCollector> {
  const c: FakeCollector = { url: '', exports: [], points: [], events: [], close: async () => {} };
  if (kind === 'grpc') {
    const server = new grpc.Server();
    const service = (signal: 'metrics' | 'logs', name: string): grpc.ServiceDefinition => ({
      Export: {
        path: `/opentelemetry.proto.collector.${signal}.v1.${name}/Export`,
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    });
    const handler =
      (signal: 'metrics' | 'logs') => (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        c.exports.push({ signal, transport: 'grpc', headers: call.metadata.getMap() as Record<string, string> });
        collect(c, signal, decode(signal, call.request));
        // An empty Export*ServiceResponse.
        cb(null, Buffer.alloc(0));
      };
    server.addService(service('metrics', 'MetricsService'), { Export: handler('metrics') });
    server.addService(service('logs', 'LogsService'), { Export: handler('logs') });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        '127.0.0.1:0',
        mtls
          ? grpc.ServerCredentials.createSsl(mtls.ca, [{ private_key: mtls.key, cert_chain: mtls.cert }], true)
          : grpc.ServerCredentials.createInsecure(),
        (err, p) => (err ? reject(err) : resolve(p)),
      ),
    );
    c.url = `${mtls ? 'https' : 'http'}://127.0.0.1:${port}`;
    c.close = () => new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    return c;
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const signal = req.url === '/v1/metrics' ? 'metrics' : req.url === '/v1/logs' ? 'logs' : undefined;
      if (!signal) {
        res.writeHead(404).end();
        return;
      }
      const bytes = Buffer.concat(chunks);
      const json = String(req.headers['content-type']).includes('json');
      try {
        collect(c, signal, json ? JSON.parse(bytes.toString('utf8')) : decode(signal, bytes));
      } catch (err) {
        res.writeHead(400).end(String(err));
        return;
      }
      c.exports.push({ signal, transport: json ? 'http/json' : 'http/protobuf', headers: req.headers });
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const listening = await listenTracked(server);
  c.url = listening.url;
  c.close = listening.close;
  return c;
}

/** The sum of a metric's points whose attributes include `where`. */
export function total(c: FakeCollector, name: string, where: Attrs = {}): number {
  return c.points
    .filter((p) => p.name === name && Object.entries(where).every(([k, v]) => p.attributes[k] === v))
    .reduce((n, p) => n + p.value, 0);
}

/** The events of one name (`event.name`, e.g. api_request). */
export function eventsNamed(c: FakeCollector, name: string): EventRecord[] {
  return c.events.filter((e) => e.attributes['event.name'] === name);
}
