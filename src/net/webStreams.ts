// Whether a request body is a web ReadableStream, as the Anthropic SDK asks of every request
// (scripts/bundle.mjs gives it this in place of its `globalThis.ReadableStream && x instanceof
// globalThis.ReadableStream`). Node's global ReadableStream is a getter that loads its web streams
// (about 4 ms of CPU at a start); only a value with a reader can be one, so the global is read only
// for such a value, and a session whose bodies are bytes never loads them.
export function isWebReadableStream(value: unknown): boolean {
  return (
    typeof (value as { getReader?: unknown } | null)?.getReader === 'function' &&
    value instanceof globalThis.ReadableStream
  );
}

/**
 * Whether a request body is a FormData, as the Anthropic SDK asks of a body that is not bytes (a
 * provider's whose wrapper rewrites the JSON: Bedrock, Vertex): Node's global FormData is
 * a getter that loads its whole fetch implementation (undici). Only a value that calls itself one
 * can be one, so the global is read only for such a value (scripts/bundle.mjs).
 */
export function isFormData(value: unknown): boolean {
  return Object.prototype.toString.call(value) === '[object FormData]' && value instanceof globalThis.FormData;
}
