// Record and replay of model calls, on the CallModel seam. --record FILE writes one JSON line per
// model call: who asked (the main agent or a subagent's Task id) and its turn, a digest of the
// request (model and parameters, system prompt, each tool, each message), and every event the
// reply streamed with its time since the request. --replay FILE serves those replies instead of
// calling the API, matching each asker's requests in order and refusing a request whose digest
// differs from the recorded one — the error names the first difference.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { CallModel, ModelEvent, ModelRequest } from './model.js';
import { requestBody } from './modelClient.js';
import { abortedError, ModelError, type ModelErrorKind } from './modelErrors.js';
import { maskMachineState } from './volatile.js';

export const RECORDING_VERSION = 1;
const ABORTED_CALL_WAIT_MS = 30_000;

/** Per part, so a mismatch can say what changed. */
const digestSchema = z.object({
  request: z.string(),
  params: z.string(),
  model: z.string(),
  system: z.string(),
  tools: z.array(z.object({ name: z.string(), digest: z.string() })),
  messages: z.array(z.object({ role: z.string(), digest: z.string() })),
});
export type RequestDigest = z.infer<typeof digestSchema>;

const errorSchema = z.object({
  message: z.string(),
  status: z.number().nullable(),
  kind: z.string(),
  retryable: z.boolean(),
});

const callSchema = z.object({
  type: z.literal('call'),
  /** null: the main agent; else the tool_use id of the Task that started the asker. */
  caller: z.string().nullable(),
  /** This asker's n-th request, from 1. */
  turn: z.number().int().positive(),
  digest: digestSchema,
  /** Every streamed event, with milliseconds since the request was made. */
  events: z.array(z.object({ t: z.number(), event: z.looseObject({ type: z.string() }) })),
  /** How the call ended when it did not end with a message. */
  error: errorSchema.optional(),
  /** Milliseconds from the request to its end. */
  endT: z.number(),
});
export type RecordedCall = z.infer<typeof callSchema>;

const headerSchema = z.object({ type: z.literal('recording'), version: z.number(), created: z.string() });

function sha(value: unknown): string {
  return createHash('sha256')
    .update(typeof value === 'string' ? value : JSON.stringify(value))
    .digest('hex')
    .slice(0, 32);
}

// The system prompt names the day, the machine's OS, the git branch and the memory folder; a
// recording replayed on another day or machine is the same conversation, so those are left out.

export function digestRequest(req: ModelRequest): RequestDigest {
  // Cache marks move with the newest message: they are how a request is billed, not what it asks.
  const body = requestBody(req, { DISABLE_PROMPT_CACHING: '1' });
  const {
    messages,
    system,
    tools,
    model,
    stream: _s,
    ...rest
  } = body as typeof body & { system?: unknown; tools?: unknown[] };
  const systemText = maskMachineState(JSON.stringify(system ?? ''));
  const d = {
    params: sha({ ...rest, betas: req.betas ?? [] }),
    model,
    system: sha(systemText),
    tools: (tools ?? []).map((t) => ({ name: String((t as { name?: unknown }).name), digest: sha(t) })),
    messages: (messages as Array<{ role: string }>).map((m) => ({ role: m.role, digest: sha(m) })),
  };
  return { request: sha(d), ...d };
}

function who(caller: string | null | undefined): string {
  return caller ? `the subagent of ${caller}` : 'the main agent';
}

/** The first difference between what was recorded and what is asked now, in words. */
export function describeMismatch(was: RequestDigest, now: RequestDigest): string {
  if (was.model !== now.model) return `the model changed (${was.model} → ${now.model})`;
  if (was.system !== now.system) return 'the system prompt changed';
  const wasTools = new Map(was.tools.map((t) => [t.name, t.digest]));
  const nowTools = new Map(now.tools.map((t) => [t.name, t.digest]));
  const added = [...nowTools.keys()].filter((n) => !wasTools.has(n));
  const removed = [...wasTools.keys()].filter((n) => !nowTools.has(n));
  const changed = [...nowTools.keys()].filter((n) => wasTools.has(n) && wasTools.get(n) !== nowTools.get(n));
  if (added.length || removed.length || changed.length) {
    const parts = [
      added.length ? `added ${added.join(', ')}` : '',
      removed.length ? `removed ${removed.join(', ')}` : '',
      changed.length ? `changed ${changed.join(', ')}` : '',
    ].filter(Boolean);
    return `the tools changed (${parts.join('; ')})`;
  }
  if (was.tools.map((t) => t.name).join() !== now.tools.map((t) => t.name).join())
    return 'the tools are in another order';
  const n = Math.max(was.messages.length, now.messages.length);
  for (let i = 0; i < n; i++) {
    const a = was.messages[i];
    const b = now.messages[i];
    if (!a)
      return `the messages changed: message ${i + 1} (${b.role}) is new; the recording had ${was.messages.length}`;
    if (!b)
      return `the messages changed: message ${i + 1} (${a.role}) of the recording is missing; now there are ${now.messages.length}`;
    if (a.role !== b.role || a.digest !== b.digest)
      return `the messages changed: message ${i + 1} of ${now.messages.length} (${b.role}) differs`;
  }
  return 'the request parameters changed (max_tokens, thinking, tool_choice or betas)';
}

/** Counts each asker's requests: the n-th request of an asker is matched to its n-th recording. */
class Turns {
  private readonly seen = new Map<string, number>();
  next(caller: string | null | undefined): number {
    const key = caller ?? '';
    const n = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, n);
    return n;
  }
}

/** Wraps a model client: every call is served by `inner` and written to `file` as it ends. */
export function recordingModel(inner: CallModel, file: string): CallModel {
  writeFileSync(
    file,
    `${JSON.stringify({ type: 'recording', version: RECORDING_VERSION, created: new Date().toISOString() })}\n`,
  );
  const turns = new Turns();
  return async function* record(req: ModelRequest): AsyncGenerator<ModelEvent, void> {
    const started = Date.now();
    const call: RecordedCall = {
      type: 'call',
      caller: req.caller ?? null,
      turn: turns.next(req.caller),
      digest: digestRequest(req),
      events: [],
      endT: 0,
    };
    try {
      for await (const ev of inner(req)) {
        call.events.push({ t: Date.now() - started, event: ev });
        yield ev;
      }
    } catch (err) {
      const e =
        err instanceof ModelError
          ? err
          : new ModelError(String((err as Error)?.message ?? err), { kind: 'server', retryable: false });
      call.error = { message: e.message, status: e.status, kind: e.kind, retryable: e.retryable };
      throw err;
    } finally {
      call.endT = Date.now() - started;
      // Synchronous: a call is on disk before its reply is acted on, and lines never interleave.
      appendFileSync(file, `${JSON.stringify(call)}\n`);
    }
  };
}

export class RecordingError extends Error {}

/** Reads a recording; throws RecordingError naming the file and the line that is wrong. */
export function loadRecording(file: string): RecordedCall[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RecordingError(`--replay: cannot read ${file}: ${(err as Error).message}`);
  }
  const lines = text.split('\n');
  const calls: RecordedCall[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new RecordingError(`--replay: ${file}: line ${i + 1} is not JSON`);
    }
    if (i === 0) {
      const h = headerSchema.safeParse(value);
      if (!h.success)
        throw new RecordingError(`--replay: ${file} is not a recording (its first line is not a --record header)`);
      if (h.data.version !== RECORDING_VERSION)
        throw new RecordingError(
          `--replay: ${file} is a version ${h.data.version} recording; this build reads version ${RECORDING_VERSION}`,
        );
      continue;
    }
    const c = callSchema.safeParse(value);
    if (!c.success)
      throw new RecordingError(
        `--replay: ${file}: line ${i + 1}: ${c.error.issues[0]?.path.join('.')}: ${c.error.issues[0]?.message}`,
      );
    calls.push(c.data);
  }
  if (lines[0] === undefined || lines[0].trim() === '') throw new RecordingError(`--replay: ${file} is empty`);
  return calls;
}

/**
 * Serves recorded replies: no key, no network. `speed` 0 answers at once, 1 keeps the recorded
 * timing (the gaps between streamed events, retries' waits included).
 */
export function replayModel(calls: RecordedCall[], opts: { speed: 0 | 1; file: string }): CallModel {
  const byCaller = new Map<string, RecordedCall[]>();
  for (const c of calls) {
    const key = c.caller ?? '';
    if (!byCaller.has(key)) byCaller.set(key, []);
    byCaller.get(key)!.push(c);
  }
  for (const list of byCaller.values()) list.sort((a, b) => a.turn - b.turn);
  const turns = new Turns();
  return async function* replay(req: ModelRequest): AsyncGenerator<ModelEvent, void> {
    if (req.signal.aborted) throw abortedError();
    const turn = turns.next(req.caller);
    const list = byCaller.get(req.caller ?? '') ?? [];
    const call = list.find((c) => c.turn === turn);
    if (!call)
      throw new ModelError(
        `Replay: ${opts.file} has no model request ${turn} of ${who(req.caller)} (it recorded ${list.length}); the conversation went further than the recording`,
        { kind: 'replay', retryable: false },
      );
    const now = digestRequest(req);
    if (now.request !== call.digest.request)
      throw new ModelError(
        `Replay mismatch at model request ${turn} of ${who(req.caller)}: ${describeMismatch(call.digest, now)}`,
        {
          kind: 'replay',
          retryable: false,
        },
      );
    const started = Date.now();
    for (const { t, event } of call.events) {
      if (opts.speed) await sleepUntil(started + t, req.signal);
      if (req.signal.aborted) throw abortedError();
      yield event as ModelEvent;
    }
    if (opts.speed) await sleepUntil(started + call.endT, req.signal);
    if (call.error) {
      if (call.error.kind === 'aborted') {
        // The host interrupted this call while recording: wait (a while) for this run's interrupt.
        await sleepUntil(Date.now() + ABORTED_CALL_WAIT_MS, req.signal);
        throw new ModelError(
          `Replay: model request ${turn} of ${who(req.caller)} was interrupted while recording, and this run was not interrupted there`,
          { kind: 'replay', retryable: false },
        );
      }
      // Retries were spent inside the recorded call; `retryable` still decides a fallback model.
      throw new ModelError(call.error.message, {
        status: call.error.status,
        kind: call.error.kind as ModelErrorKind,
        retryable: call.error.retryable,
      });
    }
  };
}

/** Resolves at `deadline` (epoch ms), or rejects with an aborted ModelError when `signal` aborts. */
function sleepUntil(deadline: number, signal: AbortSignal): Promise<void> {
  const ms = deadline - Date.now();
  if (signal.aborted) return Promise.reject(abortedError());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
