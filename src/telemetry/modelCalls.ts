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
    try {
      for await (const ev of callModel(req)) {
        if (ev.type === 'stream_event') {
          firstEventAt ??= Date.now();
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
