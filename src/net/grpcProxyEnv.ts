// @grpc/grpc-js (the OTLP gRPC exporters) takes its proxy from the lowercase variables only
// (https_proxy, else http_proxy; no_proxy). When only the uppercase ones are set, the lowercase
// ones are set to the same values, so gRPC exports go through the same proxy as everything else.
// Children inherit both spellings, with one value each.
const PAIRS = [
  ['HTTPS_PROXY', 'https_proxy'],
  ['HTTP_PROXY', 'http_proxy'],
  ['NO_PROXY', 'no_proxy'],
] as const;

export function mirrorProxyVariablesForGrpc(env: NodeJS.ProcessEnv = process.env): void {
  for (const [upper, lower] of PAIRS) if (!env[lower]?.trim() && env[upper]?.trim()) env[lower] = env[upper];
}
