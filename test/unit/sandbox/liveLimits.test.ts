// The sandbox following mid-session changes of the rules and directories, without bubblewrap: the
// permission state tells of each change once, the config is rebuilt, entries the library rejects
// are dropped alone (and said), and a wrap made ahead is dropped when the limits changed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createLiveLimits,
  type fitRuntimeConfig,
  linkedWorktreeGitDir,
  sessionLimits,
  type SessionLimits,
} from '../../../src/sandbox/index.js';
import { buildRuntimeConfig, type SandboxSetupOptions } from '../../../src/sandbox/runtime.js';
import { mergeSandboxSettings } from '../../../src/sandbox/policy.js';
import { state, tmpDir } from '../permissions/helpers.js';

const srt = createRequire(import.meta.url)(
  '@anthropic-ai/sandbox-runtime',
) as typeof import('@anthropic-ai/sandbox-runtime');
const check = (c: unknown) =>
  srt.SandboxRuntimeConfigSchema.safeParse(c) as ReturnType<Parameters<typeof fitRuntimeConfig>[1]>;

function setup(cwd: string, rules = { allow: [] as string[], deny: [] as string[] }): SandboxSetupOptions {
  return {
    settings: mergeSandboxSettings([], cwd, '/cfg'),
    rules,
    cwd,
    workingDirs: [cwd],
    scratchDir: '/scratch',
    warn: () => {},
  };
}

function follower(cwd: string) {
  const o = setup(cwd);
  const updates: Array<ReturnType<typeof buildRuntimeConfig>> = [];
  const warnings: string[] = [];
  const live = createLiveLimits({
    initial: buildRuntimeConfig(o),
    build: (now: SessionLimits) => buildRuntimeConfig({ ...o, ...now, ruleCwd: o.cwd }),
    check,
    update: (c) => updates.push(c),
    warn: (m) => warnings.push(m),
  });
  return { live, updates, warnings };
}

describe('the permission state tells of changes', () => {
  it('once per rule or directory change, once per batch of host updates, and not for a change that changes nothing', () => {
    const cwd = tmpDir();
    const s = state({ cwd });
    let n = 0;
    s.onChange(() => n++);
    s.addRules([
      {
        type: 'addRules',
        rules: [
          { toolName: 'WebFetch', ruleContent: 'domain:a.com' },
          { toolName: 'Read', ruleContent: './x' },
        ],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(n).toBe(1);
    s.addRules([
      {
        type: 'addRules',
        rules: [{ toolName: 'WebFetch', ruleContent: 'domain:a.com' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(n).toBe(1);
    s.addRules([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
    expect(n).toBe(1);
    s.addRules([
      {
        type: 'removeRules',
        rules: [{ toolName: 'WebFetch', ruleContent: 'domain:a.com' }],
        behavior: 'allow',
        destination: 'localSettings',
      },
    ]);
    expect(n).toBe(2);
    s.addRules([{ type: 'replaceRules', rules: [], behavior: 'deny', destination: 'session' }]);
    expect(n).toBe(3);
    s.addDirectory(tmpDir());
    expect(n).toBe(4);
    s.moveTo(tmpDir());
    expect(n).toBe(5);
    // Through a subagent's view of the state: the session's listeners hear it.
    s.viewFrom(tmpDir()).addRules([
      {
        type: 'addRules',
        rules: [{ toolName: 'Edit', ruleContent: './out/**' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(n).toBe(6);
  });

  it("sessionLimits: the rules as written, the cwd, the working directories, and a linked worktree's git dir", () => {
    const repo = tmpDir('live-repo-');
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'one');
    const wt = path.join(repo, '.claude', 'worktrees', 'w');
    mkdirSync(path.dirname(wt), { recursive: true });
    git('worktree', 'add', '-q', wt);
    expect(linkedWorktreeGitDir(wt)).toBe(realpathSync(path.join(repo, '.git')));
    expect(linkedWorktreeGitDir(repo)).toBeUndefined();

    const s = state({ cwd: repo, allow: ['WebFetch(domain:a.com)'], deny: ['Read(./secret/**)'] });
    expect(sessionLimits(s)).toEqual({
      rules: { allow: ['WebFetch(domain:a.com)'], deny: ['Read(./secret/**)'] },
      cwd: repo,
      workingDirs: [repo],
    });
    s.moveTo(wt);
    expect(sessionLimits(s).workingDirs).toEqual([realpathSync(wt), realpathSync(path.join(repo, '.git'))]);
  });
});

describe('live limits', () => {
  it('a new WebFetch domain, Read deny and Edit allow reach the runtime config; an unchanged config is not handed over again', () => {
    const cwd = '/proj';
    const { live, updates } = follower(cwd);
    const now: SessionLimits = {
      rules: { allow: ['WebFetch(domain:api.example.com)', 'Edit(//out/**)'], deny: ['Read(./secret/**)'] },
      cwd,
      workingDirs: [cwd],
    };
    expect(live.apply(now)).toBe(true);
    expect(updates).toHaveLength(1);
    expect(updates[0].network.allowedDomains).toEqual(['api.example.com']);
    expect(updates[0].filesystem.denyRead).toEqual(['/proj/secret/**']);
    expect(updates[0].filesystem.allowWrite).toContain('/out/**');
    expect(live.apply(now)).toBe(false);
    expect(updates).toHaveLength(1);
    // A Bash rule changes nothing the sandbox enforces.
    expect(live.apply({ ...now, rules: { ...now.rules, allow: [...now.rules.allow, 'Bash(npm test)'] } })).toBe(false);
  });

  it('in a worktree: writable is the worktree, not the start cwd; path rules count at both', () => {
    const { live, updates } = follower('/proj');
    live.apply({
      rules: { allow: [], deny: ['Read(./secret/**)'] },
      cwd: '/proj/.claude/worktrees/w',
      workingDirs: ['/proj/.claude/worktrees/w', '/proj/.git'],
    });
    const fs = updates[0].filesystem;
    expect(fs.allowWrite).toEqual(['/proj/.claude/worktrees/w', '/proj/.git', '/scratch']);
    expect(fs.denyRead.sort()).toEqual(['/proj/.claude/worktrees/w/secret/**', '/proj/secret/**']);
  });

  it('an entry the runtime rejects is left out alone and said once; the rest applies', () => {
    const { live, updates, warnings } = follower('/proj');
    const now: SessionLimits = {
      rules: { allow: ['WebFetch(domain:*.com)', 'WebFetch(domain:ok.example)'], deny: ['Read(./keys/**)'] },
      cwd: '/proj',
      workingDirs: ['/proj'],
    };
    expect(live.apply(now)).toBe(true);
    expect(updates[0].network.allowedDomains).toEqual(['ok.example']);
    expect(updates[0].filesystem.denyRead).toEqual(['/proj/keys/**']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/network\.allowedDomains entry "\*\.com": Invalid domain pattern/);
    live.apply({ ...now, rules: { ...now.rules, deny: [] } });
    expect(warnings).toHaveLength(1);
  });

  it('a config that cannot be fitted, or that the library throws on, is refused loudly: the old limits stay', () => {
    const o = setup('/proj');
    const warnings: string[] = [];
    const updates: unknown[] = [];
    const base = { initial: buildRuntimeConfig(o), check, warn: (m: string) => warnings.push(m) };
    const broken = createLiveLimits({
      ...base,
      build: () => ({ ...buildRuntimeConfig(o), bwrapPath: 'relative/bwrap' }),
      update: (c) => updates.push(c),
    });
    expect(broken.apply({ rules: { allow: [], deny: [] }, cwd: '/proj', workingDirs: ['/proj'] })).toBe(false);
    expect(warnings[0]).toMatch(
      /could not be applied to the sandbox \(bwrapPath: Binary path must be absolute\); its limits stay as they were/,
    );
    const throwing = createLiveLimits({
      ...base,
      build: (now) => buildRuntimeConfig({ ...o, ...now }),
      update: () => {
        throw new Error('bad range');
      },
    });
    expect(
      throwing.apply({
        rules: { allow: ['WebFetch(domain:x.example)'], deny: [] },
        cwd: '/proj',
        workingDirs: ['/proj'],
      }),
    ).toBe(false);
    expect(warnings[1]).toMatch(/bad range/);
    expect(updates).toHaveLength(0);
  });

  it("what the runtime cannot enforce after a change (Linux: write globs) is said once; the start's warnings are not repeated", () => {
    const o = setup('/proj');
    const warnings: string[] = [];
    let runtimeSays = ['old glob'];
    const live = createLiveLimits({
      initial: buildRuntimeConfig(o),
      build: (now) => buildRuntimeConfig({ ...o, ...now }),
      check,
      update: () => {},
      warnings: () => runtimeSays,
      warn: (m) => warnings.push(m),
    });
    runtimeSays = ['old glob', 'new glob'];
    live.apply({ rules: { allow: [], deny: ['Edit(*.lock)'] }, cwd: '/proj', workingDirs: ['/proj'] });
    live.apply({ rules: { allow: [], deny: ['Edit(*.lock)', 'Edit(*.tmp)'] }, cwd: '/proj', workingDirs: ['/proj'] });
    expect(warnings).toEqual(['sandbox: new glob']);
  });

  it('a write violation is dropped only where a folder made writable since the start let it through', () => {
    const { live } = follower('/proj');
    live.apply({
      rules: { allow: ['Edit(//data/**)'], deny: ['Edit(//data/locked/**)'] },
      cwd: '/proj',
      workingDirs: ['/proj', '/extra'],
    });
    expect(live.falselyReported('deny openat /extra/file')).toBe(true);
    expect(live.falselyReported('deny openat /data/x')).toBe(false); // a glob: bwrap takes its base only if it can; keep the report
    expect(live.falselyReported('deny openat /extra/.bashrc')).toBe(false);
    expect(live.falselyReported('deny openat /elsewhere/file')).toBe(false);
    expect(live.falselyReported('deny openat /proj/.git/hooks/x')).toBe(false);
    expect(live.falselyReported('deny network-outbound 1.2.3.4:443')).toBe(false);
  });
});
