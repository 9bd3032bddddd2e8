import { describe, expect, it } from 'vitest';
import { colourLevel } from '../../../src/tui/colour.js';

describe('colourLevel', () => {
  it('counts colours from COLORTERM and TERM, and CI does not turn them off', () => {
    expect(colourLevel({ TERM: 'xterm-256color' })).toBe(2);
    expect(colourLevel({ TERM: 'xterm-256color', CI: 'true' })).toBe(2);
    expect(colourLevel({ TERM: 'screen', COLORTERM: 'truecolor' })).toBe(3);
    expect(colourLevel({ TERM: 'xterm' })).toBe(1);
  });
  it('NO_COLOR (not empty), FORCE_COLOR=0 and TERM=dumb mean none', () => {
    expect(colourLevel({ TERM: 'xterm-256color', NO_COLOR: '1' })).toBe(0);
    expect(colourLevel({ TERM: 'xterm-256color', NO_COLOR: '' })).toBe(2);
    expect(colourLevel({ TERM: 'xterm-256color', FORCE_COLOR: '0' })).toBe(0);
    expect(colourLevel({ TERM: 'dumb' })).toBe(0);
  });
});
