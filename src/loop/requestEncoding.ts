// The Messages API request body as bytes, without serialising the whole conversation each turn.
//
// A long session's body is mostly history that is the same as last turn's, and JSON.stringify of
// all of it was the largest part of a turn's CPU in the runtime itself (0.5–0.8 ms at 50–120 KB).
// Here each older message is serialised once and its JSON kept beside it; a turn joins those
// strings with the new parts and encodes the result once. The bytes are exactly what
// JSON.stringify(body) gives (test/unit/loop/requestEncoding.test.ts).
//
// What the cache relies on: a history message is not edited in place once it is no longer the
// newest. Code that changes a message gives it a new `content` (appendToLastUser, the runner's
// merges, resume), which is detected; the newest message is always serialised afresh, since it
// carries the rolling cache mark and is the one a runner may still extend.

type Message = { role: string; content: unknown };

interface Serialised {
  role: string;
  content: unknown;
  json: string;
}

const serialised = new WeakMap<object, Serialised>();

function jsonOf(m: Message): string {
  const hit = serialised.get(m);
  if (hit && hit.content === m.content && hit.role === m.role) return hit.json;
  const json = JSON.stringify(m);
  serialised.set(m, { role: m.role, content: m.content, json });
  return json;
}

export interface EncodableBody {
  model: string;
  max_tokens: number;
  messages: readonly Message[];
  [k: string]: unknown;
}

/**
 * JSON.stringify(body) as UTF-8 bytes, for a body whose first keys are model, max_tokens, then
 * messages (the order requestBody builds).
 */
export function encodeRequestBody(body: EncodableBody): Buffer {
  const keys = Object.keys(body);
  const plain = keys[0] === 'model' && keys[1] === 'max_tokens' && keys[2] === 'messages';
  if (!plain || typeof body.model !== 'string' || typeof body.max_tokens !== 'number' || !Array.isArray(body.messages))
    return Buffer.from(JSON.stringify(body));
  const { model, max_tokens, messages, ...rest } = body;
  const parts: string[] = new Array(messages.length);
  const last = messages.length - 1;
  for (let i = 0; i < last; i++) parts[i] = jsonOf(messages[i]);
  if (last >= 0) parts[last] = JSON.stringify(messages[last]);
  const after = JSON.stringify(rest);
  const head = JSON.stringify({ model, max_tokens }).slice(0, -1);
  return Buffer.from(`${head},"messages":[${parts.join(',')}]${after === '{}' ? '}' : `,${after.slice(1)}`}`);
}
