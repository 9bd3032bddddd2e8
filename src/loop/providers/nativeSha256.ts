// What the Bedrock wrapper's SigV4 signer gets in place of @aws-crypto/sha256-js (scripts/bundle.mjs):
// the same class shape (`new Sha256(secret?)`: an HMAC keyed with `secret`, else a plain hash;
// `update`, `digest`), computed by Node's crypto. The pure-JavaScript hash cost about 15 ms of CPU
// for each request body it signed (the body is hashed into the signature); this is native code.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

export class Sha256 {
  private readonly secret?: SourceData;
  private hash!: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.secret = secret;
    this.reset();
  }

  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }

  digestSync(): Uint8Array {
    const out = this.hash.digest();
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }

  async digest(): Promise<Uint8Array> {
    return this.digestSync();
  }

  reset(): void {
    // As @aws-crypto/sha256-js: any given secret (an empty one too, which is truthy as bytes) keys an HMAC.
    this.hash = this.secret ? createHmac('sha256', bytes(this.secret)) : createHash('sha256');
  }
}
