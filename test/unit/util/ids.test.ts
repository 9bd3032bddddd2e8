// Ids made from the global Web Crypto object (src/util/ids.ts).
import { describe, expect, it } from 'vitest';
import { randomHex, randomUUID } from '../../../src/util/ids.js';

describe('ids', () => {
  it('makes v4 UUIDs and hex strings of the asked length, different each time', () => {
    expect(randomUUID()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomUUID()).not.toBe(randomUUID());
    expect(randomHex(4)).toMatch(/^[0-9a-f]{8}$/);
    expect(randomHex(32)).toHaveLength(64);
    expect(randomHex(6)).not.toBe(randomHex(6));
  });
});
