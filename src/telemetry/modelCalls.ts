// The model client as telemetry sees it: each finished call is an api_request (tokens, cost,
// duration, time to first event), each failed attempt an api_error (a retried one as well as the
// last). It only watches the stream; what the loop receives is unchanged.
import type { CallModel } from '../loop/model.js';
import { costUSD } from '../loop/pricing.js';
import type { Telemetry } from './recorder.js';

export function observeModelCalls(callModel: CallModel, telemetry: Telemetry): CallModel {
  return async function* observed(req) {
    const caller = req.caller ?? null;
    let started = Date.now();
    let firstEventAt: number | undefined;
    let attempt = 1;
    let requestId: string | undefined;
    try {
      for await (const ev of callModel(req)) {
        if (ev.type === 'stream_event') {
          firstEventAt ??= Date.now();
          // A tool call may be decided before its reply ends: tell which request asked for it now.
          const e = ev.event as { type: string; message?: object; content_block?: { type?: string; id?: unknown } };
          if (e.type === 'message_start' && e.message) requestId = requestIdOf(e.message).requestId;
          else if (e.type === 'content_block_start' && e.content_block?.type === 'tool_use' && requestId)
            if (typeof e.content_block.id === 'string') telemetry.toolRequested(e.content_block.id, requestId);
        } else if (ev.type === 'api_retry') {
          telemetry.apiError({
            model: req.model,
            error: ev.error,
            statusCode: ev.error_status,
            durationMs: Date.now() - started,
            attempt,
            caller,
          });
          attempt++;
          started = Date.now();
          firstEventAt = undefined;
        } else if (ev.type === 'message') {
          const u = ev.message.usage;
          const model = ev.message.model || req.model;
          telemetry.apiRequest({
            model,
            inputTokens: u.input_tokens ?? 0,
            outputTokens: u.output_tokens ?? 0,
            cacheReadTokens: u.cache_read_input_tokens ?? 0,
            cacheCreationTokens: u.cache_creation_input_tokens ?? 0,
            ...cacheWrites(u),
            ...requestIdOf(ev.message),
            text: replyText(ev.message),
            toolUseIds: ev.message.content.flatMap((b) =>
              b.type === 'tool_use' && typeof b.id === 'string' ? [b.id] : [],
            ),
            costUsd: costUSD(model, {
              ...u,
              web_search_requests: u.server_tool_use?.web_search_requests ?? 0,
            }),
            durationMs: Date.now() - started,
            ...(firstEventAt !== undefined ? { ttftMs: firstEventAt - started } : {}),
            caller,
            ...(req.effort ? { effort: req.effort } : {}),
          });
        }
        yield ev;
      }
    } catch (err) {
      if (!req.signal.aborted) {
        const e = err as { message?: string; status?: number | null };
        telemetry.apiError({
          model: req.model,
          error: e?.message ?? String(err),
          statusCode: typeof e?.status === 'number' ? e.status : null,
          durationMs: Date.now() - started,
          attempt,
          caller,
        });
      }
      throw err;
    }
  };
}

/** The API's request id, which the model client keeps on the reply (not enumerable, as the SDK does). */
function requestIdOf(message: object): { requestId?: string } {
  const id = (message as { _request_id?: unknown })._request_id;
  return typeof id === 'string' && id ? { requestId: id } : {};
}

function replyText(message: { content: ReadonlyArray<{ type: string }> }): string {
  return message.content
    .filter(
      (b): b is { type: 'text'; text: string } =>
        b.type === 'text' && typeof (b as { text?: unknown }).text === 'string',
    )
    .map((b) => b.text)
    .join('\n');
}

/** The cache writes by lifetime, from usage.cache_creation (absent from some providers' replies). */
function cacheWrites(usage: object): { cacheCreation5mTokens: number; cacheCreation1hTokens: number } {
  const c = (usage as { cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } })
    .cache_creation;
  return {
    cacheCreation5mTokens: c?.ephemeral_5m_input_tokens ?? 0,
    cacheCreation1hTokens: c?.ephemeral_1h_input_tokens ?? 0,
  };
}
