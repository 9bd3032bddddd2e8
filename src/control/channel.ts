// The control channel: request/response pairs by request_id in both directions. Every incoming
// control_request gets exactly one control_response (success or error, even for an unknown
// subtype); every outgoing request has a timeout or an abort signal, so nothing waits forever.
import type { ControlLine } from '../protocol/outbound.js';
import { randomUUID } from '../util/ids.js';

export type ControlHandler = (request: Record<string, unknown> & { subtype: string }) => Promise<unknown> | unknown;

export class ControlError extends Error {}

/** A refusal the host can match on: its `error_code` travels in the control_response. */
export class CodedControlError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

export class ControlChannel {
  private readonly handlers = new Map<string, ControlHandler>();
  private readonly pending = new Map<string, Pending>();
  private closedReason: string | null = null;

  /** `send` writes one line to the host: typed by the outbound schemas, so a misnamed field fails to compile. */
  constructor(private readonly send: (line: ControlLine) => void | Promise<void>) {}

  on(subtype: string, handler: ControlHandler): void {
    this.handlers.set(subtype, handler);
  }

  /** Answer one incoming control_request. Never throws; always writes one control_response. */
  async handleRequest(requestId: string, request: Record<string, unknown> & { subtype: string }): Promise<void> {
    const handler = this.handlers.get(request.subtype);
    if (!handler) {
      await this.send(errorResponse(requestId, `Unsupported control request subtype: ${request.subtype}`));
      return;
    }
    try {
      const response = await handler(request);
      await this.send({
        type: 'control_response',
        response: { subtype: 'success', request_id: requestId, response: response ?? {} },
      });
    } catch (err) {
      await this.send(
        errorResponse(
          requestId,
          err instanceof Error ? err.message : String(err),
          err instanceof CodedControlError ? err.code : undefined,
        ),
      );
    }
  }

  /** An incoming control_response: settle the request it answers (unknown ids are ignored). */
  handleResponse(response: { subtype: string; request_id: string; response?: unknown; error?: string }): boolean {
    const p = this.pending.get(response.request_id);
    if (!p) return false;
    this.pending.delete(response.request_id);
    p.cleanup();
    if (response.subtype === 'success') p.resolve(response.response ?? {});
    else p.reject(new ControlError(response.error || 'the host answered with an error'));
    return true;
  }

  /** The host cancelled a request it sent us; we have nothing long-running to cancel yet. */
  handleCancel(_requestId: string): void {}

  /** Ask the host something. Rejects on timeout, abort, or when the channel closes (stdin EOF). */
  request(
    subtype: string,
    payload: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<unknown> {
    if (this.closedReason) return Promise.reject(new ControlError(this.closedReason));
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(requestId);
        cleanup();
        reject(new ControlError(`${subtype} request aborted`));
      };
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        cleanup();
        reject(
          new ControlError(
            `the host did not answer the ${subtype} request within ${Number((opts.timeoutMs / 1000).toFixed(1))} s`,
          ),
        );
      }, opts.timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, { resolve, reject, cleanup });
      void this.send({ type: 'control_request', request_id: requestId, request: { subtype, ...payload } });
    });
  }

  /** No answer can come any more (stdin closed, host gone): fail every pending request now. */
  close(reason: string): void {
    this.closedReason = reason;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.cleanup();
      p.reject(new ControlError(reason));
    }
  }
}

function errorResponse(requestId: string, error: string, code?: string): ControlLine {
  const response = { subtype: 'error', request_id: requestId, error } as const;
  // `error_code` written out, not spread in: a spread field escapes the excess-property check.
  return { type: 'control_response', response: code ? { ...response, error_code: code } : response };
}
