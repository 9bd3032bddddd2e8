// The one "finish within N ms" helper: the work's value when it is in time, undefined when not.
import { describe, expect, it } from 'vitest';
import { withTimeout } from '../../../src/util/withTimeout.js';

describe('withTimeout', () => {
  it('gives the work its value when it settles in time', async () => {
    expect(await withTimeout(Promise.resolve(7), 1000)).toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 1000)).rejects.toThrow('boom');
  });

  it('gives up after the time with undefined, without waiting for the work', async () => {
    const started = Date.now();
    expect(await withTimeout(new Promise<number>(() => {}), 50)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('withTimeout with a signal', () => {
  it('gives up with undefined when the signal aborts first, or was aborted already', async () => {
    const ac = new AbortController();
    const waiting = withTimeout(new Promise<number>(() => {}), 60_000, ac.signal);
    ac.abort();
    expect(await waiting).toBeUndefined();
    expect(await withTimeout(Promise.reject(new Error('nobody hears')), 60_000, ac.signal)).toBeUndefined();
  });

  it('still gives the work its value when neither the time nor the signal comes first', async () => {
    expect(await withTimeout(Promise.resolve('ok'), 1000, new AbortController().signal)).toBe('ok');
  });
});
