// Random ids from the global Web Crypto object. It draws from the same source as node:crypto, but
// node:crypto (about twenty internal modules) is then not loaded at start just to name a session.

/** A random v4 UUID. */
export function randomUUID(): string {
  return globalThis.crypto.randomUUID();
}

/** `bytes` random bytes as lowercase hex (2 characters each). */
export function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}
