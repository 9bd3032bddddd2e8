import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../src/util/exitCode.js';

describe('exitCodeOf', () => {
  it('the exit code; else 128 + the signal number, as a shell reports it; else 1', () => {
    expect(exitCodeOf(0, null)).toBe(0);
    expect(exitCodeOf(3, 'SIGTERM')).toBe(3);
    expect(exitCodeOf(null, 'SIGKILL')).toBe(137);
    expect(exitCodeOf(null, 'SIGTERM')).toBe(143);
    expect(exitCodeOf(null, null)).toBe(1);
  });
});
