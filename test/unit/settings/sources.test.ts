// `--setting-sources` has one parser (settings/load.ts), used by settings, memory, skills,
// commands, output styles and agents alike: a name it does not know stops the start.
import { describe, expect, it } from 'vitest';
import { parseSettingSources } from '../../../src/settings/load.js';
import { StartupError } from '../../../src/util/startupError.js';

describe('--setting-sources', () => {
  it('names the sources to load, in order; absent means all', () => {
    expect(parseSettingSources(undefined)).toEqual(['user', 'project', 'local']);
    expect(parseSettingSources('project, user')).toEqual(['project', 'user']);
    expect(parseSettingSources('')).toEqual([]);
  });

  it('an unknown source stops the start with exit 2, naming it', () => {
    const bad = () => parseSettingSources('user,policy');
    expect(bad).toThrow(StartupError);
    expect(bad).toThrow('--setting-sources: unknown source "policy" (use user, project, local)');
    expect(() => parseSettingSources('user project')).toThrow('unknown source "user project"');
  });
});
