// The session's telemetry: NO_TELEMETRY unless CLAUDE_CODE_ENABLE_TELEMETRY is set, so an ordinary
// start reads one variable and loads nothing. When it is set, the configuration is read (a value
// that cannot be used stops the start, naming the variable), and the OpenTelemetry SDK is loaded.
import { randomHex } from '../util/ids.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runHelperCommand } from '../loop/providers/apiKeyHelper.js';
import { configDir } from '../util/configDir.js';
import { logWarning } from '../util/log.js';
import { readTelemetryConfig, telemetryEnabled, tracesNotice } from './config.js';
import { createRecorder, NO_TELEMETRY, type Telemetry } from './recorder.js';

export interface TelemetryStart {
  env: NodeJS.ProcessEnv;
  sessionId: string;
  version: string;
  apiProvider: string;
  entrypoint: 'sdk' | 'cli';
  /** The settings' otelHeadersHelper: a command printing a JSON object of headers for the exports. */
  headersHelper?: string;
}

export async function startTelemetry(s: TelemetryStart): Promise<Telemetry> {
  if (!telemetryEnabled(s.env)) return NO_TELEMETRY;
  const cfg = readTelemetryConfig(s.env);
  const notice = tracesNotice(s.env);
  if (notice) logWarning(notice);
  if (cfg.metrics.length === 0 && cfg.logs.length === 0) return NO_TELEMETRY;
  const { startOtel } = await import('./otel.js');
  const sink = await startOtel(cfg, {
    version: s.version,
    ...(s.headersHelper?.trim()
      ? { headers: headersFromHelper(s.headersHelper.trim(), cfg.headersHelperDebounceMs) }
      : {}),
  });
  return createRecorder(
    cfg,
    {
      sessionId: s.sessionId,
      version: s.version,
      userId: anonymousUserId(s.env),
      apiProvider: s.apiProvider,
      terminal: s.env.TERM_PROGRAM || s.env.TERM || 'unknown',
      entrypoint: s.entrypoint,
      customBaseUrl: customBaseUrl(s.apiProvider, s.env),
    },
    sink,
  );
}

/** Each provider's base-URL variable, and the hosts that are the provider's own endpoint. */
const ENDPOINTS: Record<string, { variable: string; own: RegExp }> = {
  firstParty: { variable: 'ANTHROPIC_BASE_URL', own: /^api\.anthropic\.com$/ },
  bedrock: { variable: 'ANTHROPIC_BEDROCK_BASE_URL', own: /\.amazonaws\.com$/ },
  vertex: { variable: 'ANTHROPIC_VERTEX_BASE_URL', own: /(^|\.)googleapis\.com$/ },
  foundry: { variable: 'ANTHROPIC_FOUNDRY_BASE_URL', own: /\.azure\.(com|us|cn)$/ },
};

/**
 * anthropic.custom_base_url: the provider's requests go to an endpoint that is not its own (a
 * gateway, a proxy, a fake), as the reference reports it (measured: true with
 * ANTHROPIC_BASE_URL or ANTHROPIC_BEDROCK_BASE_URL at a local server, false for Bedrock's own).
 */
export function customBaseUrl(provider: string, env: NodeJS.ProcessEnv): boolean {
  const endpoint = ENDPOINTS[provider];
  const url = endpoint && env[endpoint.variable]?.trim();
  if (!url) return false;
  try {
    return !endpoint.own.test(new URL(url).hostname.toLowerCase());
  } catch {
    return true;
  }
}

/**
 * A stable id for this user that says nothing about them: 32 random bytes kept in the config
 * folder, made the first time telemetry is on (the reference's user.id is the same kind of value).
 */
function anonymousUserId(env: NodeJS.ProcessEnv): string {
  const file = join(configDir(env), 'telemetry-user-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(id)) return id;
  } catch {}
  const id = randomHex(32);
  try {
    mkdirSync(configDir(env), { recursive: true });
    writeFileSync(file, `${id}\n`, { mode: 0o600 });
  } catch (err) {
    logWarning(`telemetry: cannot keep the anonymous user id in ${file}: ${(err as Error).message}`);
  }
  return id;
}

/** otelHeadersHelper's headers, run again once they are older than the debounce. A failure is told once. */
function headersFromHelper(command: string, debounceMs: number): () => Promise<Record<string, string>> {
  let cached: { at: number; headers: Record<string, string> } | undefined;
  let pending: Promise<Record<string, string>> | undefined;
  let told = false;
  const run = async () => {
    const out = await runHelperCommand(command, 'otelHeadersHelper');
    let parsed: unknown;
    try {
      parsed = JSON.parse(out);
    } catch {
      throw new Error(`otelHeadersHelper (${command}) must print a JSON object of header names and values`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error(`otelHeadersHelper (${command}) must print a JSON object of header names and values`);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') headers[k] = v;
    return headers;
  };
  return () => {
    if (cached && Date.now() - cached.at < debounceMs) return Promise.resolve(cached.headers);
    pending ??= run()
      .then((headers) => {
        cached = { at: Date.now(), headers };
        return headers;
      })
      .catch((err: Error) => {
        if (!told) logWarning(`telemetry: ${err.message}; exporting without its headers`);
        told = true;
        return cached?.headers ?? {};
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
