// Callback hooks of the host: called through `hook_callback` control requests (callHost), each
// with its own timeout so a host that never answers cannot hang the run.
import { DEFAULT_HOOK_TIMEOUT_MS, type HookEvent, type HookResult } from './events.js';
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

const TIMEOUT = Symbol('timeout');
const ABORTED = Symbol('aborted');

export async function runCallbackHook(callbackId: string, opts: CallbackRunOptions): Promise<HookResult> {
  const timeoutMs =
    opts.timeout !== undefined ? opts.timeout * 1000 : (opts.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
  const who = `${opts.event} hook callback ${callbackId}`;
  if (opts.signal.aborted) return { kind: 'none' };
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), timeoutMs);
  });
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    opts.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const answer = await Promise.race([
      opts.callHost(callbackId, opts.input, opts.toolUseId, ac.signal),
      timedOut,
      aborted,
    ]);
    if (answer === ABORTED) return { kind: 'none' };
    if (answer === TIMEOUT) {
      opts.warn(`${who} did not answer within ${timeoutMs / 1000}s; going on without it`);
      return { kind: 'none' };
    }
    return resultFromValue(answer, who, opts.warn);
  } catch (err) {
    if (!opts.signal.aborted) opts.warn(`${who} failed: ${(err as Error)?.message ?? String(err)} (non-blocking)`);
    return { kind: 'none' };
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal.removeEventListener('abort', onAbort);
    ac.abort(); // the control channel can drop its pending request
  }
}
