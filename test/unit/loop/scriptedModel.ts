// An in-memory model for loop unit tests: the same ScriptedReply shapes as the fake API, served
// through the loop's CallModel seam — no HTTP, no process.env. Each request is kept with the API
// body the Anthropic client would have sent, so tests read `requests[i].body` as before.
import type { CallModel, ModelEvent, ModelRequest } from '../../../src/loop/model.js';
import type { AssistantMessage } from '../../../src/loop/events.js';
import { requestBody } from '../../../src/loop/modelClient.js';
import { abortedError, ModelError, type ModelErrorKind } from '../../../src/loop/modelErrors.js';
import type { RecordedRequest, ScriptedBlock, ScriptedReply } from '../../fake-api/server.js';

export interface ScriptedModel {
  callModel: CallModel;
  requests: RecordedRequest[];
}

type Next = (req: RecordedRequest, index: number) => ScriptedReply | undefined;

export function scriptedModel(next: Next): ScriptedModel {
  const requests: RecordedRequest[] = [];
  async function* callModel(req: ModelRequest): AsyncGenerator<ModelEvent, void> {
    const rec: RecordedRequest = {
      body: JSON.parse(JSON.stringify(requestBody(req))),
      headers: betaHeaders(req),
      path: '/v1/messages',
    };
    requests.push(rec);
    const reply = next(rec, requests.length - 1) ?? {
      error: { status: 500, type: 'api_error', message: 'scripted model: script exhausted' },
    };
    if (req.signal.aborted) throw abortedError();
    yield* serve(req, reply);
  }
  return { callModel, requests };
}

function betaHeaders(req: ModelRequest): RecordedRequest['headers'] {
  return req.betas?.length ? { 'anthropic-beta': req.betas.join(',') } : {};
}

function kindOf(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  return status >= 500 ? 'server' : 'invalid_request';
}

async function* serve(req: ModelRequest, reply: ScriptedReply): AsyncGenerator<ModelEvent, void> {
  const started = Date.now();
  if ('error' in reply) {
    const { status, message } = reply.error;
    const kind = kindOf(status);
    throw new ModelError(`API Error: ${status} ${message}`, {
      status,
      kind,
      retryable: kind !== 'auth' && kind !== 'invalid_request',
    });
  }
  if ('hang' in reply) {
    await sleep(2 ** 31 - 1, req.signal);
    throw abortedError();
  }
  if ('malformed' in reply)
    throw new ModelError("API Error: the API's reply was not valid JSON (scripted)", {
      kind: 'malformed_response',
      retryable: false,
    });
  if ('cut' in reply || 'streamError' in reply)
    throw new ModelError('API Error: Connection error (terminated)', { kind: 'connection', retryable: true });
  await sleep(reply.delayMs ?? 0, req.signal);
  const content = reply.content.map(finalBlock);
  const message: AssistantMessage = {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    type: 'message',
    role: 'assistant',
    model: req.model,
    content,
    stop_reason: reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? 10,
      output_tokens: reply.usage?.output_tokens ?? 5,
      cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: reply.usage?.cache_creation_input_tokens ?? 0,
    },
  };
  yield {
    type: 'stream_event',
    event: { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
  };
  for (const [index, block] of content.entries()) {
    await sleep(reply.chunkDelayMs ?? 0, req.signal);
    yield { type: 'stream_event', event: { type: 'content_block_start', index, content_block: block } };
    yield { type: 'stream_event', event: { type: 'content_block_stop', index } };
  }
  yield {
    type: 'stream_event',
    event: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason },
      usage: { output_tokens: message.usage.output_tokens },
    },
  };
  yield { type: 'stream_event', event: { type: 'message_stop' } };
  yield { type: 'message', message, durationMs: Date.now() - started };
}

let ids = 0;
function finalBlock(b: ScriptedBlock): AssistantMessage['content'][number] {
  if (b.type === 'tool_use')
    return { type: 'tool_use', id: b.id ?? `toolu_scripted${++ids}`, name: b.name, input: b.input ?? {} };
  if (b.type === 'thinking') return { type: 'thinking', thinking: b.thinking, signature: 'sig' };
  if (b.type === 'redacted_thinking') return { type: 'redacted_thinking', data: b.data };
  if (b.type !== 'text') return { ...b };
  return { type: 'text', text: b.text };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(t), reject(abortedError()));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
