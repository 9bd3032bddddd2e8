// Callback hooks of the host: called through `hook_callback` control requests (callHost), each
// with its own timeout so a host that never answers cannot hang the run.
import { DEFAULT_HOOK_TIMEOUT_MS, type HookEvent, type HookResult } from './events.js';
import { withTimeout } from '../util/withTimeout.js';
import { resultFromValue } from './parseOutput.js';

export type CallHost = (
  callbackId: string,
  input: object,
  toolUseId: string | undefined,
  signal: AbortSignal,
) => Promise<unknown>;

export interface CallbackRunOptions {
  event: HookEvent;
  input: object;
  toolUseId?: string;
  /** Seconds (from the matcher of `initialize`). */
  timeout?: number;
  signal: AbortSignal;
  callHost: CallHost;
  warn: (msg: string) => void;
  defaultTimeoutMs?: number;
}

export async function runCallbackHook(callbackId: string, opts: CallbackRunOptions): Promise<HookResult> {
  const timeoutMs =
    opts.timeout !== undefined ? opts.timeout * 1000 : (opts.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
  const who = `${opts.event} hook callback ${callbackId}`;
  if (opts.signal.aborted) return { kind: 'none' };
  const ac = new AbortController();
  try {
    const call = opts.callHost(callbackId, opts.input, opts.toolUseId, ac.signal).then((value) => ({ value }));
    const answer = await withTimeout(call, timeoutMs, opts.signal);
    if (!answer) {
      if (opts.signal.aborted) return { kind: 'none' };
      opts.warn(`${who} did not answer within ${timeoutMs / 1000}s; going on without it`);
      return { kind: 'none' };
    }
    return resultFromValue(answer.value, who, opts.warn);
  } catch (err) {
    if (!opts.signal.aborted) opts.warn(`${who} failed: ${(err as Error)?.message ?? String(err)} (non-blocking)`);
    return { kind: 'none' };
  } finally {
    ac.abort(); // the control channel can drop its pending request
  }
}
