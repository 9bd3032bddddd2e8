import { Sha256 as JsSha256 } from '@aws-crypto/sha256-js';
import { describe, expect, it } from 'vitest';
import { Sha256 } from '../../../src/loop/providers/nativeSha256.js';

// The Bedrock wrapper's signer gets this class in place of @aws-crypto/sha256-js (scripts/bundle.mjs):
// every way the signer uses it must give the same bytes.
const inputs: Array<string | Uint8Array> = ['', 'hello', 'x'.repeat(100_000), new Uint8Array([0, 1, 2, 255])];
const secrets: Array<string | Uint8Array | undefined> = [
  undefined,
  '',
  'AWS4secret',
  new Uint8Array(0),
  new Uint8Array(32).fill(7),
  'k'.repeat(100),
];

describe('nativeSha256', () => {
  it('matches @aws-crypto/sha256-js for plain hashes and HMACs, strings and bytes, in one or several updates', async () => {
    for (const secret of secrets)
      for (const input of inputs) {
        const ours = new Sha256(secret);
        const theirs = new JsSha256(secret);
        ours.update(input);
        theirs.update(input);
        ours.update('more');
        theirs.update('more');
        expect(Buffer.from(await ours.digest()).toString('hex')).toBe(
          Buffer.from(await theirs.digest()).toString('hex'),
        );
      }
  });

  it('reset starts over with the same key', async () => {
    const h = new Sha256('key');
    h.update('a');
    h.reset();
    h.update('b');
    const fresh = new JsSha256('key');
    fresh.update('b');
    expect(Buffer.from(await h.digest())).toEqual(Buffer.from(await fresh.digest()));
  });
});
