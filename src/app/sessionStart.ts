// The first part of a session: its settings files (their `env` applied before anything reads the
// environment), its configuration, the session to start or resume, and the model client.
import { writeRefusedResume } from './refusedResume.js';
import { modelClientFor } from './modelClient.js';
import { setupNetworkAndAuth } from './networkAndAuth.js';
import { resolveSessionConfig, type SessionConfig } from './sessionConfig.js';
import type { CallModel } from '../loop/model.js';
import { modelApi, type ModelApi } from '../loop/modelClient.js';
import { VERSION, type CliOptions } from '../cli/options.js';
import type { StdoutWriter } from '../protocol/writer.js';
import { loadSessionSettings, StartupError } from '../session/guards.js';
import { ResumeError, startSession, type SessionStart } from '../session/resume.js';
import { applySettingsEnv, type LoadedSettings, type SettingSource } from '../settings/index.js';
import { parseSettingSources } from '../settings/load.js';
import { sessionDir } from '../transcript/transcript.js';
import type { MirrorSink } from '../transcript/mirror.js';
import { logWarning } from '../util/log.js';

export interface SessionBase {
  env: NodeJS.ProcessEnv;
  loaded: LoadedSettings;
  config: SessionConfig;
  start: SessionStart;
  /** --session-mirror: where each transcript entry goes once written (the session's, its agents'). */
  mirror?: MirrorSink;
  /** The session's folder beside its transcript; undefined without persistence. */
  sessionFolder: string | undefined;
  /** The Messages API with the settings' credential commands (config.auth), built once. */
  api: ModelApi;
  /** What the session's model calls go through: `api`, or --record's or --replay's over it. */
  callModel: CallModel;
}

/** Throws StartupError (message, exit code) when the session cannot start. */
export async function openSession(
  o: CliOptions,
  ctx: { writer: StdoutWriter; interactive: boolean; mirror?: MirrorSink },
): Promise<SessionBase> {
  const cwd = process.cwd();
  const env = process.env;
  let sources: SettingSource[];
  let loaded: LoadedSettings;
  try {
    // --setting-sources is parsed here once: the settings are loaded from them, the config keeps them.
    sources = parseSettingSources(o.settingSources);
    loaded = loadSessionSettings(o, cwd, env, sources);
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError((err as Error).message, 1);
  }
  // Before anything reads the environment or starts a child.
  applySettingsEnv(loaded.settings, env);
  let resolved: ReturnType<typeof resolveSessionConfig>;
  try {
    resolved = resolveSessionConfig(o, { cwd, env, loaded, interactive: ctx.interactive, sources });
  } catch (err) {
    if (err instanceof StartupError) throw err;
    throw new StartupError((err as Error).message, 2);
  }
  for (const w of resolved.warnings) logWarning(w);
  const api = modelApi(resolved.config.auth);
  // Proxies and client certificates, before the first connection.
  await setupNetworkAndAuth(env, resolved.config.apiProvider, api).catch((err: Error) => {
    throw new StartupError(err.message, 1);
  });
  let start: SessionStart;
  try {
    start = await startSession(o, env, cwd, { version: VERSION, mirror: ctx.mirror });
  } catch (err) {
    if (!(err instanceof ResumeError)) throw err;
    logWarning(err.message);
    if (err.asResult) await writeRefusedResume(err.message, o, ctx.writer);
    throw new StartupError('', 1);
  }
  const { sessionId, transcript } = start;
  if (transcript && o.name !== undefined && o.name.trim() !== '')
    transcript.appendMeta({ type: 'custom-title', customTitle: o.name.trim() });
  const callModel = await modelClientFor(o, api).catch((err: Error) => {
    throw new StartupError(err.message, 2);
  });
  return {
    env,
    loaded,
    config: resolved.config,
    start,
    mirror: ctx.mirror,
    sessionFolder: transcript ? sessionDir(env, cwd, sessionId) : undefined,
    api,
    callModel,
  };
}
