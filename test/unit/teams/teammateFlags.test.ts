import { describe, expect, it } from 'vitest';
import { teammateIdentity } from '../../../src/teams/teammateFlags.js';

describe('teammate flags', () => {
  it('--teammate-mode for a lead: in-process is what runs; tmux and auto are refused, not ignored', () => {
    expect(teammateIdentity({ teammateMode: 'in-process' })).toBeUndefined();
    expect(teammateIdentity({})).toBeUndefined();
    for (const mode of ['tmux', 'auto'] as const)
      expect(() => teammateIdentity({ teammateMode: mode })).toThrow(/in-process only/);
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
