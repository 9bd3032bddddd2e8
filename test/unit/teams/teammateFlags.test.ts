import { describe, expect, it } from 'vitest';
import { teammateIdentity } from '../../../src/teams/teammateFlags.js';

describe('teammate flags', () => {
  it('--teammate-mode for a lead: tmux needs $TMUX (refused outside, never a silent fallback); auto does not', () => {
    const outside = {};
    const inside = { TMUX: '/tmp/tmux-0/default,1,0' };
    for (const env of [outside, inside]) {
      expect(teammateIdentity({ teammateMode: 'in-process' }, env)).toBeUndefined();
      expect(teammateIdentity({}, env)).toBeUndefined();
      expect(teammateIdentity({ teammateMode: 'auto' }, env)).toBeUndefined();
    }
    expect(teammateIdentity({ teammateMode: 'tmux' }, inside)).toBeUndefined();
    expect(() => teammateIdentity({ teammateMode: 'tmux' }, outside)).toThrow(
      /not running inside tmux \(\$TMUX is not set\)/,
    );
  });

  it('a teammate process started by a program may carry any mode (it says how its lead runs it)', () => {
    const id = teammateIdentity({ teammateMode: 'auto', agentName: 'worker', teamName: 'crew' });
    expect(id).toMatchObject({ name: 'worker', team: 'crew', agentId: 'worker@crew', agentType: 'general-purpose' });
  });

  it('identity flags must be complete and agree', () => {
    expect(() => teammateIdentity({ agentId: 'a@b' })).toThrow(/--agent-id is for a teammate process/);
    expect(() => teammateIdentity({ agentName: 'a' })).toThrow(/both --agent-name and --team-name/);
    expect(() => teammateIdentity({ agentName: 'a', teamName: 'b', agentId: 'x@b' })).toThrow(/does not match/);
    expect(() => teammateIdentity({ agentName: 'a', teamName: 'b', prompt: 'hi' })).toThrow(/takes no prompt/);
  });
});
