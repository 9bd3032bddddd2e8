import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyTeammateEnv, ENV_FILE_VAR, takeHandedAgents, writeTeammateEnv } from '../../../src/teams/paneEnv.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'agent-pane-env-'));
  dirs.push(d);
  return d;
};

describe('a process teammate handover file', () => {
  it('carries the lead environment (not its pane) privately, is applied once and removed', () => {
    const file = join(dir(), 'w.env.json');
    writeTeammateEnv(file, { ANTHROPIC_API_KEY: 'k', TMUX_PANE: '%0', TMUX: '/s,1,0', [ENV_FILE_VAR]: 'x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const env: NodeJS.ProcessEnv = { [ENV_FILE_VAR]: file, TMUX_PANE: '%3', ANTHROPIC_API_KEY: 'old' };
    applyTeammateEnv(env);
    expect(env).toEqual({ ANTHROPIC_API_KEY: 'k', TMUX: '/s,1,0', TMUX_PANE: '%3' });
    expect(existsSync(file)).toBe(false);
    expect(takeHandedAgents()).toBeUndefined();
  });

  it("carries the lead host's agents (initialize.agents), taken once", () => {
    const file = join(dir(), 'w.env.json');
    const agents = { reviewer: { description: 'Reviews', prompt: 'You review.' } };
    writeTeammateEnv(file, { HOME: '/h' }, agents);
    const env: NodeJS.ProcessEnv = { [ENV_FILE_VAR]: file };
    applyTeammateEnv(env);
    expect(env).toEqual({ HOME: '/h' });
    expect(takeHandedAgents()).toEqual(agents);
    expect(takeHandedAgents()).toBeUndefined();
  });

  it('a file that is not an environment is an error naming the file, and is removed', () => {
    const file = join(dir(), 'bad.json');
    writeFileSync(file, '[1,2]');
    expect(() => applyTeammateEnv({ [ENV_FILE_VAR]: file })).toThrow(new RegExp(`${ENV_FILE_VAR}: .*${file}`));
    expect(existsSync(file)).toBe(false);
    expect(() => applyTeammateEnv({})).not.toThrow();
  });
});
