// CLAUDE_CODE_CLIENT_CERT for the OTLP exporters, as for every other connection. The HTTP exporters
// take the Node agents (src/net/nodeAgents.ts); the gRPC exporter takes channel credentials, made
// here with @grpc/grpc-js when its endpoint is https:// (an http:// one is plaintext: nothing to
// present). grpc-js takes no key passphrase, so an encrypted key is decrypted in memory first.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { clientCertificate } from '../net/outboundAgent.js';
import { loadExternal } from '../util/loadExternal.js';

type Signal = 'METRICS' | 'LOGS';

/** The gRPC endpoint the exporter will use for `signal` (the variables it reads itself). */
function grpcEndpoint(env: NodeJS.ProcessEnv, signal: Signal): string {
  return (
    env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim() ||
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ||
    'http://localhost:4317'
  );
}

/** Channel credentials presenting the client certificate, or undefined when there is none to present. */
export function grpcClientCredentials(env: NodeJS.ProcessEnv, signal: Signal): unknown {
  const tls = clientCertificate(env);
  if (!tls || !grpcEndpoint(env, signal).startsWith('https://')) return undefined;
  const key = tls.passphrase
    ? Buffer.from(
        createPrivateKey({ key: tls.key, passphrase: tls.passphrase }).export({ format: 'pem', type: 'pkcs8' }),
      )
    : tls.key;
  const grpc = loadExternal<typeof import('@grpc/grpc-js')>('@grpc/grpc-js');
  return grpc.credentials.createSsl(trustedRoots(env, signal), key, tls.cert);
}

/**
 * The exporter's own root-certificate variable when set; else, with NODE_EXTRA_CA_CERTS, Node's
 * roots and those (grpc-js has its own roots and does not read that variable); else grpc-js's.
 */
function trustedRoots(env: NodeJS.ProcessEnv, signal: Signal): Buffer | null {
  const own = env[`OTEL_EXPORTER_OTLP_${signal}_CERTIFICATE`]?.trim() || env.OTEL_EXPORTER_OTLP_CERTIFICATE?.trim();
  if (own) return readFileSync(own);
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  if (!extra) return null;
  const { rootCertificates } = loadExternal<typeof import('node:tls')>('node:tls');
  return Buffer.concat([Buffer.from(`${rootCertificates.join('\n')}\n`), readFileSync(extra)]);
}
