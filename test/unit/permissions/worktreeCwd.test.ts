// Permissions after a move into a worktree (EnterWorktree: moveTo) and for a subagent working in
// one (isolation: viewFrom): relative paths resolve there, path rules hold at both anchors, and
// what is changed through a view is the session's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decidePermission, parseRule } from '../../../src/permissions/index.js';
import { Edit, Read, state, tmpDir } from './helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

function setup() {
  const cwd = tmpDir();
  const wt = path.join(cwd, '.claude', 'worktrees', 'w');
  fs.mkdirSync(path.join(wt, 'conf'), { recursive: true });
  fs.mkdirSync(path.join(cwd, 'conf'), { recursive: true });
  return { cwd, wt };
}
const edit = (s: ReturnType<typeof state>, file_path: string) =>
  decidePermission(s, { call: callFacts(Edit, 'Edit', { file_path }) }).behavior;

describe('permissions in a worktree', () => {
  it('moveTo: a deny rule holds at the worktree and where it was written; relative paths resolve in the worktree; acceptEdits covers it', () => {
    const { cwd, wt } = setup();
    const s = state({ cwd, mode: 'acceptEdits', deny: ['Edit(./conf/secret.txt)'] });
    expect(edit(s, path.join(wt, 'conf', 'secret.txt'))).toBe('allow'); // not moved yet: another path
    s.moveTo(wt);
    expect(edit(s, path.join(wt, 'conf', 'secret.txt'))).toBe('deny');
    expect(edit(s, path.join(cwd, 'conf', 'secret.txt'))).toBe('deny');
    expect(edit(s, 'conf/secret.txt')).toBe('deny');
    expect(edit(s, path.join(wt, 'conf', 'other.txt'))).toBe('allow');
    expect(s.workingDirs[0].real).toBe(wt);
    s.moveTo(cwd);
    expect(edit(s, path.join(wt, 'conf', 'secret.txt'))).toBe('allow');
  });

  it("viewFrom: the view resolves from the worktree; rules, mode and directories changed through it are the session's", () => {
    const { cwd, wt } = setup();
    const s = state({ cwd, deny: ['Read(./conf/**)'] });
    const v = s.viewFrom(wt);
    expect(v.cwd).toBe(wt);
    expect(s.cwd).toBe(cwd);
    expect(
      decidePermission(v, { call: callFacts(Read, 'Read', { file_path: path.join(wt, 'conf', 'a') }) }).behavior,
    ).toBe('deny');
    expect(
      decidePermission(s, { call: callFacts(Read, 'Read', { file_path: path.join(wt, 'conf', 'a') }) }).behavior,
    ).not.toBe('deny');
    v.addRule('allow', parseRule('Bash(npm test)'));
    expect(s.rules.allow.map((e) => e.text)).toContain('Bash(npm test)');
    v.setMode('acceptEdits');
    expect(s.mode).toBe('acceptEdits');
    expect(v.mode).toBe('acceptEdits');
    v.addDirectory(tmpDir());
    expect(s.workingDirs).toHaveLength(2);
    expect(v.workingDirs.map((d) => d.real)).toEqual([wt, ...s.workingDirs.map((d) => d.real)]);
  });
});
