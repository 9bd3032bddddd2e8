import { describe, expect, it } from 'vitest';
import { teammateBackend } from '../../../src/teams/teammateMode.js';

describe('teammate mode → where teammates run', () => {
  it('in-process by default; auto is tmux only inside tmux; detached anywhere; tmux outside tmux is an error', () => {
    const inside = { TMUX: '/tmp/tmux-0/default,1,0' };
    expect(teammateBackend(undefined, inside)).toBe('in-process');
    expect(teammateBackend('in-process', inside)).toBe('in-process');
    expect(teammateBackend('auto', inside)).toBe('tmux');
    expect(teammateBackend('auto', {})).toBe('in-process');
    expect(teammateBackend('tmux', inside)).toBe('tmux');
    expect(teammateBackend('detached', inside)).toBe('detached');
    expect(teammateBackend('detached', {})).toBe('detached');
    expect(() => teammateBackend('tmux', {})).toThrow(/\$TMUX is not set/);
    expect(() => teammateBackend('iterm2', inside)).toThrow(/iTerm2 split panes are not built/);
    expect(() => teammateBackend('panes', inside, 'the teammateMode setting')).toThrow(
      /^the teammateMode setting panes: not a teammate mode/,
    );
  });
});
