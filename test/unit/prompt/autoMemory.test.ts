// Persistent memory: where the folder is (the reference's layout), how it is switched on and off,
// how the index is cut, and that the file tools may use the folder unasked while Bash still asks.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decidePermission } from '../../../src/permissions/index.js';
import { workingDir } from '../../../src/permissions/paths.js';
import {
  autoMemoryDir,
  autoMemoryEnabled,
  loadIndex,
  MAX_INDEX_BYTES,
  setupAutoMemory,
} from '../../../src/prompt/autoMemory.js';
import { gitFacts } from '../../../src/prompt/environment.js';
import type { LoadedFile } from '../../../src/settings/load.js';
import { Bash, Edit, state, Write } from '../permissions/helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

const made: string[] = [];
function tmp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'agent-automem-')));
  made.push(d);
  return d;
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const file = (source: LoadedFile['source'], settings: Record<string, unknown>): LoadedFile => ({
  source,
  path: `${source}.json`,
  settings,
});
const warn = () => {};

describe('on and off', () => {
  it('on by default; the autoMemoryEnabled setting of any source turns it off; CLAUDE_CODE_DISABLE_AUTO_MEMORY wins both ways', () => {
    expect(autoMemoryEnabled({}, [])).toBe(true);
    expect(autoMemoryEnabled({}, [file('user', { autoMemoryEnabled: false })])).toBe(false);
    expect(autoMemoryEnabled({}, [file('project', { autoMemoryEnabled: false })])).toBe(false);
    expect(
      autoMemoryEnabled({}, [file('user', { autoMemoryEnabled: false }), file('local', { autoMemoryEnabled: true })]),
    ).toBe(true);
    expect(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, [])).toBe(false);
    expect(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: 'true' }, [])).toBe(false);
    expect(
      autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, [file('user', { autoMemoryEnabled: false })]),
    ).toBe(true);
    expect(
      autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, [file('local', { autoMemoryEnabled: true })]),
    ).toBe(false);
  });
});

describe('the folder', () => {
  it('is <config>/projects/<slug of the repository root>/memory/, from a subfolder and from a linked worktree', () => {
    const root = tmp();
    const repo = join(root, 'repo');
    mkdirSync(join(repo, '.git', 'worktrees', 'wt'), { recursive: true });
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(join(repo, 'a', 'b'), { recursive: true });
    // A linked worktree: .git is a file naming its git dir, whose commondir leads back.
    const wt = join(root, 'wt');
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'wt')}\n`);
    writeFileSync(join(repo, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    writeFileSync(join(repo, '.git', 'worktrees', 'wt', 'HEAD'), 'ref: refs/heads/topic\n');
    const env = { CLAUDE_CONFIG_DIR: '/cfg' };
    const slug = repo.replace(/[^a-zA-Z0-9]/g, '-');
    const sub = join(repo, 'a', 'b');
    expect(gitFacts(sub)).toEqual({ root: repo, checkout: repo, branch: 'main' });
    expect(gitFacts(wt)).toEqual({ root: repo, checkout: wt, branch: 'topic' });
    for (const cwd of [sub, wt])
      expect(autoMemoryDir({ cwd, env, git: gitFacts(cwd), files: [], warn })).toBe(`/cfg/projects/${slug}/memory/`);
    // No repository: the cwd is the project.
    const plain = tmp();
    expect(autoMemoryDir({ cwd: plain, env, files: [], warn })).toBe(
      `/cfg/projects/${plain.replace(/[^a-zA-Z0-9]/g, '-')}/memory/`,
    );
  });

  it('autoMemoryDirectory moves it (~/ expanded), except from the checked-in project settings or into the repository', () => {
    const cwd = tmp();
    mkdirSync(join(cwd, '.git'));
    const env = { CLAUDE_CONFIG_DIR: '/cfg', HOME: '/home/u' };
    const git = gitFacts(cwd);
    const def = `/cfg/projects/${cwd.replace(/[^a-zA-Z0-9]/g, '-')}/memory/`;
    expect(autoMemoryDir({ cwd, env, git, files: [file('user', { autoMemoryDirectory: '~/notes' })], warn })).toBe(
      `/home/u/notes${sep}`,
    );
    expect(autoMemoryDir({ cwd, env, git, files: [file('project', { autoMemoryDirectory: '/x/mem' })], warn })).toBe(
      def,
    );
    const warnings: string[] = [];
    expect(
      autoMemoryDir({
        cwd,
        env,
        git,
        files: [file('local', { autoMemoryDirectory: join(cwd, 'mem') })],
        warn: (m) => warnings.push(m),
      }),
    ).toBe(def);
    expect(warnings[0]).toMatch(/inside the git repository .*never written into a repository/);
  });

  it('setup makes the folder and reads its index; off, it does neither', () => {
    const cwd = tmp();
    const config = tmp();
    const env = { CLAUDE_CONFIG_DIR: config };
    const m = setupAutoMemory({ cwd, env, files: [], warn })!;
    expect(m.dir.startsWith(join(config, 'projects'))).toBe(true);
    expect(m.index).toBe('');
    writeFileSync(join(m.dir, 'MEMORY.md'), '- [A](a.md) — first\n');
    expect(setupAutoMemory({ cwd, env, files: [], warn })!.index).toBe('- [A](a.md) — first');
    expect(setupAutoMemory({ cwd, env: { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, files: [], warn })).toBe(
      undefined,
    );
  });
});

describe('the index', () => {
  it('keeps whole lines up to 200 lines and 25,000 bytes, and says what was cut', () => {
    const many = Array.from({ length: 300 }, (_, i) => `- [m${i + 1}](m${i + 1}.md) — line ${i + 1}`).join('\n');
    const a = loadIndex(many);
    expect(a.index.split('\n')).toHaveLength(200);
    expect(a.note).toMatch(/300 lines .*only the first 200 lines fit .*100 were left out, from line 201 on/);
    const long = Array.from({ length: 150 }, (_, i) => `- [m${i}](m${i}.md) ${'x'.repeat(480)}`).join('\n');
    const b = loadIndex(long);
    expect(Buffer.byteLength(b.index)).toBeLessThanOrEqual(MAX_INDEX_BYTES);
    expect(b.index.split('\n').every((l) => l.length > 480)).toBe(true);
    expect(b.note).toBeDefined();
    expect(loadIndex('- [A](a.md) — x\n')).toEqual({ index: '- [A](a.md) — x' });
  });
});

describe('permissions', () => {
  it('Write and Edit inside the memory folder run unasked in default mode; outside it they ask; deny rules win; Bash rm still asks', () => {
    const cwd = tmp();
    const mem = join(tmp(), 'memory');
    const s = state({ cwd });
    s.memoryDir = workingDir(`${mem}/`, cwd);
    const write = (p: string) =>
      decidePermission(s, { call: callFacts(Write, 'Write', { file_path: p, content: 'x' }) });
    expect(write(join(mem, 'fact.md')).behavior).toBe('allow');
    expect(
      decidePermission(s, {
        call: callFacts(Edit, 'Edit', { file_path: join(mem, 'MEMORY.md'), old_string: 'a', new_string: 'b' }),
      }).behavior,
    ).toBe('allow');
    expect(write(join(mem, '..', 'elsewhere.md')).behavior).toBe('ask');
    expect(decidePermission(s, { call: callFacts(Bash, 'Bash', { command: `rm ${mem}/fact.md` }) }).behavior).toBe(
      'ask',
    );
    const denied = state({ cwd, deny: [`Write(/${mem}/**)`] });
    denied.memoryDir = s.memoryDir;
    expect(
      decidePermission(denied, { call: callFacts(Write, 'Write', { file_path: join(mem, 'f.md'), content: '' }) })
        .behavior,
    ).toBe('deny');
  });
});
