// The system prompt's assembly: the static block is the same bytes for any session of this version
// (so the prompt cache holds across sessions and projects), the per-session block carries the
// environment, memory and appends, and --system-prompt / appends / output styles change what they should.
import { describe, expect, it } from 'vitest';
import type { EnvironmentFacts } from '../../../src/prompt/environment.js';
import { buildSystemPrompt, DYNAMIC_BOUNDARY, type SystemPromptParts } from '../../../src/prompt/systemPrompt.js';
import { BUILTIN_STYLES } from '../../../src/settings/builtinOutputStyles.js';
import { maskMachineState } from '../../../src/loop/volatile.js';

function facts(cwd: string, date: string, git?: EnvironmentFacts['git']): EnvironmentFacts {
  return { cwd, platform: 'linux', shell: 'bash', osVersion: 'Linux 6.1.0', date, ...(git ? { git } : {}) };
}

function parts(over: Partial<SystemPromptParts> = {}): SystemPromptParts {
  return {
    cwd: '/work/a',
    append: [],
    environment: facts('/work/a', '2026-01-02'),
    model: () => 'claude-opus-5-5',
    ...over,
  };
}

describe('buildSystemPrompt', () => {
  it('the static block is byte-identical across sessions with another cwd, date, git state, model and memory; the per-session block differs', () => {
    const a = buildSystemPrompt(
      parts({ autoMemory: { dir: '/cfg/projects/-work-a/memory/', index: '- [One](one.md) — a fact' } }),
    );
    const b = buildSystemPrompt(
      parts({
        cwd: '/elsewhere/b',
        environment: facts('/elsewhere/b', '2027-03-04', { root: '/elsewhere', checkout: '/elsewhere', branch: 'dev' }),
        model: () => 'claude-haiku-5-5',
        autoMemory: { dir: '/cfg/projects/-elsewhere/memory/', index: '' },
        memory: '<memory>CLAUDE.md text</memory>',
      }),
    );
    expect(a).toHaveLength(2);
    expect(b).toHaveLength(2);
    expect(b[0].text).toBe(a[0].text);
    expect(a[1].text).not.toBe(b[1].text);
    // Nothing of the machine, project, date or model leaks into the static block.
    for (const s of [
      '/work/a',
      '/elsewhere',
      '2026',
      '2027',
      'claude-opus-5-5',
      'claude-haiku-5-5',
      'CLAUDE.md text',
      'one.md',
    ])
      expect(a[0].text + b[0].text).not.toContain(s);
  });

  it('the static block covers the topics docs/prompt.md lists', () => {
    const text = buildSystemPrompt(parts({ autoMemory: { dir: '/m/', index: '' } }))[0].text;
    for (const heading of [
      '# How your replies reach the user',
      '# Tools, permissions and the messages around them',
      '# Choosing tools',
      '# Doing the work',
      '# Care with actions that are hard to undo or reach beyond this machine',
      '# Reporting what happened',
      '# Security-sensitive requests',
      '# Skills and commands',
      '# Long conversations',
      '# Persistent memory',
    ])
      expect(text).toContain(heading);
    expect(text).toContain('Markdown');
    expect(text).toContain('`path:line`');
    expect(text).toContain('<system-reminder>');
    expect(text).toMatch(/Never send the same call again unchanged/);
  });

  it('the per-session block: environment (cwd, git and branch, platform, shell, OS, date, model name and id, the family ids), then CLAUDE.md files, the memory index and appends', () => {
    const [, dyn] = buildSystemPrompt(
      parts({
        environment: facts('/work/a', '2026-01-02', { root: '/work', checkout: '/work', branch: 'feature/x' }),
        autoMemory: { dir: '/cfg/m/', index: '- [Tabs](tabs.md) — prefers tabs' },
        memory: 'CLAUDE-MD',
        append: ['APPENDED'],
      }),
    );
    expect(dyn.text).toContain('- Working directory: /work/a');
    expect(dyn.text).toContain('- Git repository: yes, on branch feature/x (repository root: /work)');
    expect(dyn.text).toContain('- Platform: linux\n- Shell: bash\n- OS version: Linux 6.1.0');
    expect(dyn.text).toContain("- Today's date: 2026-01-02");
    expect(dyn.text).toContain('you are Claude Opus 5.5, model id `claude-opus-5-5`');
    for (const id of ['claude-fable-5-2', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'])
      expect(dyn.text).toContain(`\`${id}\``);
    expect(dyn.text).toContain('Your memory folder for this project is `/cfg/m/`');
    expect(dyn.text).toContain('- [Tabs](tabs.md) — prefers tabs');
    const order = ['# Environment', 'CLAUDE-MD', '# Memory', 'APPENDED'].map((s) => dyn.text.indexOf(s));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(order[0]).toBe(0);
  });

  it('the model line follows a model switch; the static block does not move', () => {
    let model = 'claude-opus-5-5';
    const p = parts({ model: () => model });
    const before = buildSystemPrompt(p);
    model = 'claude-sonnet-5-5';
    const after = buildSystemPrompt(p);
    expect(after[0].text).toBe(before[0].text);
    expect(after[1].text).toContain('you are Claude Sonnet 5.5, model id `claude-sonnet-5-5`');
  });

  it('memory off: neither the instructions nor a folder', () => {
    const blocks = buildSystemPrompt(parts());
    expect(blocks[0].text).not.toContain('# Persistent memory');
    expect(blocks[1].text).not.toContain('# Memory');
  });

  it('--system-prompt replaces the default and its environment; memory and appends still follow', () => {
    const blocks = buildSystemPrompt(
      parts({ custom: 'You are a pirate.', append: ['APPENDED'], autoMemory: { dir: '/m/', index: 'IDX' } }),
    );
    expect(blocks[0].text).toBe('You are a pirate.');
    expect(blocks[1].text).not.toContain('# Environment');
    expect(blocks[1].text).toContain('IDX');
    expect(blocks[1].text).toContain('APPENDED');
    expect(blocks.map((b) => b.text).join('')).not.toContain('# Reporting what happened');
  });

  it("a host's array prompt splits at the boundary marker", () => {
    const blocks = buildSystemPrompt(parts({ custom: ['STATIC', DYNAMIC_BOUNDARY, 'PER-SESSION'] }));
    expect(blocks.map((b) => b.text)).toEqual(['STATIC', 'PER-SESSION']);
  });

  it('--append-system-prompt adds to the default, after the cache boundary', () => {
    const plain = buildSystemPrompt(parts());
    const appended = buildSystemPrompt(parts({ append: ['Always answer in French.'] }));
    expect(appended[0].text).toBe(plain[0].text);
    expect(appended[1].text.endsWith('Always answer in French.')).toBe(true);
  });

  it('an output style adds its text to the static block; one that drops the coding instructions keeps the rest', () => {
    const plain = buildSystemPrompt(parts())[0].text;
    const explanatory = BUILTIN_STYLES.find((s) => s.name === 'Explanatory')!;
    const styled = buildSystemPrompt(
      parts({ outputStyle: { name: 'Explanatory', prompt: explanatory.prompt, keepCodingInstructions: true } }),
    )[0].text;
    expect(styled.startsWith(plain)).toBe(true);
    expect(styled).toContain(`# Output style: Explanatory\n${explanatory.prompt}`);
    const bare = buildSystemPrompt(
      parts({ outputStyle: { name: 'Pirate', prompt: 'Say arr.', keepCodingInstructions: false } }),
    )[0].text;
    expect(bare).not.toContain('# Doing the work');
    expect(bare).toContain('# Reporting what happened');
    expect(bare.endsWith('# Output style: Pirate\nSay arr.')).toBe(true);
  });

  it("a recording's digest leaves out the day, the OS, the git line and the memory folder, and nothing else", () => {
    const json = (p: Partial<SystemPromptParts>) => maskMachineState(JSON.stringify(buildSystemPrompt(parts(p))));
    const here = json({ autoMemory: { dir: '/home/me/.claude/projects/-w/memory/', index: '- [A](a.md) — a' } });
    const ci = json({
      environment: {
        ...facts('/work/a', '2027-09-09', { root: '/work', checkout: '/work', branch: 'ci' }),
        osVersion: 'Linux 5.0',
      },
      autoMemory: { dir: '/runner/.claude/projects/-w/memory/', index: '' },
    });
    expect(ci).toBe(here);
    expect(json({ cwd: '/other', environment: facts('/other', '2026-01-02') })).not.toBe(json({}));
  });
});
