// The Fetch standard's Headers, as the Anthropic SDK packages use it (scripts/bundle.mjs gives it
// to them in place of the global). Node's global Headers is a lazy getter that loads the whole of
// its fetch implementation (undici, with HTTP/2, TLS, zlib and a WebAssembly parser): about 60 ms
// of CPU at a start that makes its requests with src/net/httpFetch.ts and never needs it.
//
// Names are kept lower-case; values are trimmed of leading and trailing HTTP whitespace; append
// joins values with ", "; iteration is sorted by name, as the standard says. Anything iterable as
// [name, value] pairs (the global Headers included) or a plain record is accepted, so instances of
// either class go into the other, and into the real fetch, unchanged; `instanceof` is true of both.

type Init = Iterable<readonly [string, string]> | Record<string, string | readonly string[] | undefined>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function checkedName(name: string): string {
  const s = String(name);
  if (!TOKEN.test(s)) throw new TypeError(`Headers: "${s}" is not a valid header name`);
  return s.toLowerCase();
}

function normalizedValue(value: string): string {
  const s = String(value).replace(EDGE_WHITESPACE, '');
  if (/[\0\r\n]/.test(s)) throw new TypeError('Headers: a header value may not contain NUL, CR or LF');
  return s;
}

export class WebHeaders implements Iterable<[string, string]> {
  readonly #map = new Map<string, string>();

  /**
   * Node's own Headers counts as one too: a library hands the SDK packages its headers that way
   * (google-auth-library's request headers for Vertex AI), and they must be read as headers, not
   * as a plain record with no own properties. Both classes tag themselves 'Headers'.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Headers]';
  }

  constructor(init?: Init | null) {
    if (init == null) return;
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each header must be a [name, value] pair');
        this.append(pair[0], pair[1]);
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) this.append(name, v);
      else this.append(name, value as string);
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const v = normalizedValue(value);
    const had = this.#map.get(key);
    this.#map.set(key, had === undefined ? v : `${had}, ${v}`);
  }

  set(name: string, value: string): void {
    this.#map.set(checkedName(name), normalizedValue(value));
  }

  get(name: string): string | null {
    return this.#map.get(checkedName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(checkedName(name));
  }

  delete(name: string): void {
    this.#map.delete(checkedName(name));
  }

  forEach(fn: (value: string, name: string, headers: WebHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this) fn.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#map.keys()].sort();
    for (const name of names) yield [name, this.#map.get(name) as string];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
