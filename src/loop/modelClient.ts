// One streamed Messages API call, with our own retries.
//
// Yields every raw SSE event (for --include-partial-messages), an `api_retry` event before each
// retry sleep, and finally the assembled assistant message. The SDK's own retries are off so that
// each retry is visible to the host, and every wait ends on the caller's abort signal.
//
// A stream cut mid-reply is retried; its stream_events were already yielded (a consumer that shows
// partial output sees the failed attempt's deltas, then the retry's message_start), but the
// partial reply is never returned as a message.
import { noteUnknownModel } from './unknownModel.js';
import { debugLog, logWarning } from '../util/log.js';
import type { Anthropic } from '@anthropic-ai/sdk';
import { providerClient, type ProviderClient } from './providers/providerClient.js';
import { forProvider } from './providers/failures.js';
import { apiProviderFromEnv } from './providers/select.js';
import type { AuthSettings } from './providers/authSettings.js';
import type { Message, MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import type { AssistantMessage } from './events.js';
import type { CallModel, ModelEvent, ModelRequest, ModelStreamEvent } from './model.js';
import { MessageAssembler } from './messageAssembler.js';
import { encodeRequestBody } from './requestEncoding.js';
import { apiModel } from './models.js';
import { promptCachingDisabled, systemBlocks, withCacheBreakpoints, type ApiTool } from './promptCache.js';
import {
  abortedError,
  maxRetriesFromEnv,
  ModelError,
  retryDelayMs,
  toModelError,
  toRequestError,
} from './modelErrors.js';

// Re-exported: the error and retry names callers have always imported from here.
export { maxRetriesFromEnv, ModelError, parseRetryAfter, retryDelayMs, toModelError } from './modelErrors.js';
export type { ApiErrorCategory, ModelErrorKind } from './modelErrors.js';

export type { ApiTool, CallModel, ModelEvent, ModelRequest, ModelStreamEvent } from './model.js';

export { NOT_LOGGED_IN } from './providers/providerClient.js';

/** Whether a request could be sent without asking anyone: some provider or key is configured. */
export function hasCredentials(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(
    env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim() || apiProviderFromEnv(env) !== 'firstParty',
  );
}

function timeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  return Number(env.API_TIMEOUT_MS) > 0 ? Number(env.API_TIMEOUT_MS) : undefined;
}

/** No credential commands: the API with the environment's credentials alone. */
const NO_AUTH: AuthSettings = {};

/**
 * The Messages API as one session uses it, built once at its start: every provider client it
 * builds gets the session's credential commands (the settings' apiKeyHelper, awsCredentialExport,
 * awsAuthRefresh, gcpAuthRefresh), whoever calls (the turns, side calls, compaction, summaries,
 * suggestions, --record), and the init line and initialize name the ids it sends.
 */
export interface ModelApi {
  /** One streamed reply (streamModel). */
  readonly call: CallModel;
  /** The id requests for `model` are sent with (sentModelId). */
  sentModelId(model: string): string | Promise<string>;
  /** Builds the provider's client ahead of the first request (prepareProviderClient). */
  prepare(): void;
}

export function modelApi(auth: Readonly<AuthSettings>): ModelApi {
  return {
    call: (req) => streamModel(req, { auth }),
    sentModelId: (model) => sentModelId(model, process.env, auth),
    prepare: () => prepareProviderClient(process.env, auth),
  };
}

/**
 * Builds the provider's client ahead of the first request (Bedrock: the credentials and the
 * inference-profile list), on the next turn of the event loop; a failure is the first request's.
 */
export function prepareProviderClient(env: NodeJS.ProcessEnv, auth: AuthSettings): void {
  setImmediate(() => {
    providerClient(env, { timeout: timeoutFromEnv(env), auth }, { early: true }).catch(() => {});
  });
}

/**
 * The id requests for `model` are sent with, for what the init line and initialize report: on
 * Bedrock a known model's inference profile (`us.anthropic.claude-opus-5-5`, or the account's
 * listed one), which may wait for the profile list (at most its bound); elsewhere `model` itself,
 * returned at once. `[1m]` stays on. A client that cannot be built falls back to the region rule
 * (its error is the first request's).
 */
export function sentModelId(model: string, env: NodeJS.ProcessEnv, auth: AuthSettings): string | Promise<string> {
  if (apiProviderFromEnv(env) !== 'bedrock') return model;
  const { id } = apiModel(model);
  const suffix = model.slice(id.length);
  return import('./providers/bedrockIds.js').then(async ({ bedrockModelId, knownBedrockModel }) => {
    if (!knownBedrockModel(id)) return model;
    try {
      // `early`: a build that fails here is kept for the first request to report, not run again.
      const client = await providerClient(env, { timeout: timeoutFromEnv(env), auth }, { early: true });
      return `${await client.modelId(id)}${suffix}`;
    } catch {
      const { bedrockRegion } = await import('./providers/bedrock.js');
      return `${bedrockModelId(id, bedrockRegion(env))}${suffix}`;
    }
  });
}

// ---- the call ----

/**
 * The Messages API request body. Every request the runtime makes is built here, so prompt-cache
 * breakpoints reach them all (DISABLE_PROMPT_CACHING=1 leaves them out). A recording's digest is
 * taken of it too.
 */
export function requestBody(req: Omit<ModelRequest, 'signal'>, env: NodeJS.ProcessEnv = process.env) {
  // The one place the loop's structural history meets the SDK's types.
  const plain = {
    system: systemBlocks(req.system),
    tools: req.tools as ApiTool[],
    messages: req.messages as MessageParam[],
  };
  const { system, tools, messages } = promptCachingDisabled(env) ? plain : withCacheBreakpoints(plain);
  return {
    model: apiModel(req.model).id,
    max_tokens: req.maxTokens,
    messages,
    ...(system.length ? { system } : {}),
    ...(tools.length ? { tools: tools as Anthropic.Messages.Tool[] } : {}),
    ...(tools.length && req.toolChoiceNone ? { tool_choice: { type: 'none' as const } } : {}),
    ...(req.thinking ? { thinking: req.thinking } : {}),
    ...(req.effort || req.taskBudget
      ? {
          output_config: {
            ...(req.effort ? { effort: req.effort } : {}),
            ...(req.taskBudget ? { task_budget: { type: 'tokens' as const, total: req.taskBudget.total } } : {}),
          },
        }
      : {}),
    stream: true as const,
  };
}

/** The SDK refuses a non-streaming call with a large max_tokens unless a timeout is given. */
const NON_STREAMING_TIMEOUT_MS = 10 * 60 * 1000;

async function* attempt(
  provider: ProviderClient,
  req: ModelRequest,
  streaming: boolean,
): AsyncGenerator<ModelEvent, Message> {
  const client = provider.clientFor(req.model);
  const betas = [...(req.betas ?? []), ...apiModel(req.model).betas];
  let headers: Record<string, string | null>;
  try {
    headers = {
      ...(betas.length ? { 'anthropic-beta': betas.join(',') } : {}),
      ...(await provider.requestHeaders()),
    };
  } catch (e) {
    throw toModelError(e, req.signal);
  }
  const body = requestBody(req);
  body.model = await provider.modelId(body.model);
  if (!streaming) {
    const timeout =
      Number(process.env.API_TIMEOUT_MS) > 0 ? Number(process.env.API_TIMEOUT_MS) : NON_STREAMING_TIMEOUT_MS;
    try {
      return await client.messages.create({ ...body, stream: false }, { signal: req.signal, headers, timeout });
    } catch (e) {
      throw toRequestError(e, req.signal);
    }
  }
  debugLog(
    'api',
    () =>
      `request: model ${body.model}, ${req.messages.length} message(s)${betas.length ? `, betas ${betas.join(',')}` : ''}${provider.provider === 'firstParty' ? '' : ` (${provider.provider})`}`,
  );
  let stream: Stream<RawMessageStreamEvent>;
  let requestId: string | null | undefined;
  try {
    // The same request messages.create would send, posted as bytes encoded without serialising
    // the whole history again (requestEncoding.ts).
    ({ data: stream, request_id: requestId } = await client
      .post<Stream<RawMessageStreamEvent>>('/v1/messages', {
        // A cloud provider's SDK rewrites the body (model into the path, anthropic_version): it gets the object.
        body: provider.rawBody ? encodeRequestBody(body) : body,
        stream: true,
        signal: req.signal,
        headers: { 'content-type': 'application/json', ...headers },
      })
      .withResponse());
  } catch (e) {
    debugLog('api', () => `request failed: ${(e as Error).message}`);
    throw toRequestError(e, req.signal);
  }
  const assembler = new MessageAssembler();
  for await (const event of stream) {
    try {
      assembler.add(event);
    } catch (e) {
      // A malformed event is the server's fault or ours, not a flaky network: don't retry it.
      throw new ModelError(`API Error: malformed stream: ${(e as Error).message}`, {
        kind: 'server',
        retryable: false,
        cause: e,
      });
    }
    // The request id on the reply's first event too, so a tool call it starts can be told by it.
    if (event.type === 'message_start' && requestId)
      Object.defineProperty(event.message, '_request_id', { value: requestId, enumerable: false });
    yield { type: 'stream_event', event: event as unknown as ModelStreamEvent };
  }
  // The SDK's stream ends quietly on abort; don't mistake that for a finished reply.
  if (req.signal.aborted) throw abortedError();
  const reply = assembler.finish();
  // As the SDK marks a non-streamed reply: the API's request id, kept out of JSON (telemetry reads it).
  if (requestId) Object.defineProperty(reply, '_request_id', { value: requestId, enumerable: false });
  debugLog(
    'api',
    () =>
      `reply: stop_reason ${reply.stop_reason}, ${reply.usage.input_tokens} in / ${reply.usage.output_tokens} out, cache read ${reply.usage.cache_read_input_tokens ?? 0}`,
  );
  return reply;
}

/** Resolves after `ms`, or rejects with an aborted ModelError as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortedError());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects with an aborted ModelError when `signal` aborts, whatever `p` is doing. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {}); // nobody waits for it any more; don't let it become an unhandled rejection
    return Promise.reject(abortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Stream one model reply. Retries 429, 529, 5xx, connection errors and cut streams up to
 * `maxRetries` times (default: AGENT_MAX_RETRIES, else 10); throws ModelError otherwise. A stream
 * that is not valid JSON gets one non-streaming attempt (and later retries stay non-streaming);
 * a request that cannot even be built fails at once.
 * `message.durationMs` is the wall time from the first request to the final message, retries included.
 * `auth`: the credential commands its client is built with (a session's come through modelApi);
 * none by default.
 * Nothing in the sources calls it but modelApi: every model call goes through a CallModel (the
 * session's `modelApi(auth).call`, required in LoopConfig and the side calls' options), so none
 * can leave without the session's credential commands. It is exported for its own unit tests.
 */
export async function* streamModel(
  req: ModelRequest,
  opts: { maxRetries?: number; auth?: AuthSettings } = {},
): AsyncGenerator<ModelEvent, void> {
  const env = process.env;
  if (req.signal.aborted) throw abortedError();
  noteUnknownModel(req.model);
  const maxRetries = opts.maxRetries ?? maxRetriesFromEnv(env);
  // Throws a ModelError naming the provider and the setting when credentials are missing.
  const client = await raceAbort(
    providerClient(env, { timeout: timeoutFromEnv(env), auth: opts.auth ?? NO_AUTH }),
    req.signal,
  );
  let refreshedCredentials = false;
  const started = Date.now();

  let streaming = true;
  for (let failures = 1; ; failures++) {
    const it = attempt(client, req, streaming);
    let outcome!: Message | ModelError;
    try {
      for (;;) {
        let step: IteratorResult<ModelEvent, Message>;
        try {
          step = await raceAbort(it.next(), req.signal);
        } catch (e) {
          outcome = toModelError(e, req.signal);
          break;
        }
        if (step.done) {
          outcome = step.value;
          break;
        }
        // Outside the try: an error the consumer throws in here is not an API failure to retry.
        yield step.value;
      }
    } finally {
      // Closes the HTTP stream if we stop early (abort, error, or the consumer stopped reading).
      // Not awaited: after an abort the pending read settles on its own, and we answer now.
      void it.return(undefined as never).catch(() => {});
    }

    if (!(outcome instanceof ModelError)) {
      yield { type: 'message', message: toAssistantMessage(outcome), durationMs: Date.now() - started };
      return;
    }
    const err = outcome;
    if (err.kind === 'malformed_response' && streaming) {
      logWarning(`${err.message}; asking again without streaming`);
      streaming = false;
      failures--; // not a failure a retry budget is for: the next attempt is a different request
      continue;
    }
    if (err.status === 401 && !refreshedCredentials && client.onUnauthorized()) {
      // The key came from apiKeyHelper and may have been rotated: run it again, once, at once.
      refreshedCredentials = true;
      failures--;
      continue;
    }
    if (!err.retryable || failures > maxRetries) throw forProvider(err, client.provider);
    const delay = retryDelayMs(failures, err.retryAfterMs);
    yield {
      type: 'api_retry',
      attempt: failures,
      max_retries: maxRetries,
      retry_delay_ms: delay,
      error_status: err.status,
      error: err.category,
    };
    await sleep(delay, req.signal);
  }
}

/** The SDK's Message as the loop's structural AssistantMessage (same JSON; SDK types stop here). */
function toAssistantMessage(m: Message): AssistantMessage {
  return m as unknown as AssistantMessage;
}
