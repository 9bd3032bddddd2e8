// Memory files (CLAUDE.md and friends) and the system prompt's static/dynamic split, checked in
// what reached the model (the fake API's request log), driven by bin/agent and by the SDK.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemText, text } from '../fake-api/server.js';
import { runAgent, startFakeApi, tempDir, type FakeApi, once } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

function write(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/** A repository with a nested working directory and memory files at every level. */
function project() {
  // The repository sits inside a folder of its own, so the file above its root is ours alone.
  const outer = tempDir('agent-memory-outer-');
  const repo = join(outer, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  const cwd = join(repo, 'pkg', 'app');
  mkdirSync(cwd, { recursive: true });
  const config = tempDir('agent-memory-config-');
  write(join(config, 'CLAUDE.md'), 'USER-MEMORY: answer in English.');
  write(
    join(repo, 'CLAUDE.md'),
    'ROOT-MEMORY: this is the monorepo.\nSee @docs/style.md for the style.\nMail @alice about it.',
  );
  write(join(repo, 'docs', 'style.md'), 'IMPORTED-STYLE: two-space indents. Also @../CLAUDE.md again.');
  write(join(repo, 'pkg', '.claude', 'CLAUDE.md'), 'PKG-MEMORY: the package.');
  write(join(cwd, 'CLAUDE.md'), 'APP-MEMORY: the app.');
  write(join(cwd, 'CLAUDE.local.md'), 'LOCAL-MEMORY: my own notes.');
  write(join(cwd, '.claude', 'rules', 'a-always.md'), 'RULE-ALWAYS: run the tests.');
  write(
    join(cwd, '.claude', 'rules', 'b-tests.md'),
    '---\npaths:\n  - "src/**/*.test.ts"\n---\nRULE-TESTS: use vitest.',
  );
  // Above the repository root: never read.
  write(join(outer, 'CLAUDE.md'), 'OUTSIDE-MEMORY');
  return { repo, cwd, config };
}

/**
 * One run for two tests, made by whichever asks first: its CLAUDE.md imports a file that is not
 * there and starts a chain of imports nine deep that ends in a cycle back to it; its
 * .claude/CLAUDE.md cannot be read.
 */
const brokenImports = once(runBrokenImports);

async function runBrokenImports() {
  const own = await startFakeApi([text('ok')]);
  try {
    const cwd = tempDir();
    write(join(cwd, 'CLAUDE.md'), 'MAIN-MEMORY @./missing.md\nLEVEL-0 @l1.md');
    for (let i = 1; i <= 7; i++) write(join(cwd, `l${i}.md`), `LEVEL-${i} @l${i + 1}.md`);
    write(join(cwd, 'l8.md'), 'LEVEL-8 @CLAUDE.md');
    write(join(cwd, '.claude', 'CLAUDE.md'), 'SECRET');
    chmodSync(join(cwd, '.claude', 'CLAUDE.md'), 0o000);
    const r = await runAgent({ api: own, cwd, env: { CLAUDE_CONFIG_DIR: tempDir() }, args: ['-p', 'hi'] });
    expect(own.requests, `the shared run's requests; stderr: ${r.stderr}`).toHaveLength(1);
    return { r, sys: systemText(own.requests[0]!) };
  } finally {
    await own.close();
  }
}

describe('memory files', () => {
  it('every source loads in a fixed order (user, root → cwd, rules, local), imports resolve, a rule names its paths, the repository bounds the walk', async () => {
    api = await startFakeApi([text('ok'), text('ok again')]);
    const p = project();
    const env = { CLAUDE_CONFIG_DIR: p.config };
    const r = await runAgent({ api, cwd: p.cwd, env, args: ['-p', 'hi'] });
    expect(r.code, r.stderr).toBe(0);
    const sys = systemText(api.requests[0]);
    const order = [
      'USER-MEMORY',
      'ROOT-MEMORY',
      'IMPORTED-STYLE',
      'PKG-MEMORY',
      'APP-MEMORY',
      'RULE-ALWAYS',
      'RULE-TESTS',
      'LOCAL-MEMORY',
    ].map((m) => sys.indexOf(m));
    expect(
      order.every((i) => i >= 0),
      sys,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(sys).not.toContain('OUTSIDE-MEMORY');
    expect(sys).toContain(`Contents of ${join(p.cwd, 'CLAUDE.md')}`);
    expect(sys).toMatch(/only when working with files matching: src\/\*\*\/\*\.test\.ts/);
    // The import of the root file back is a cycle already loaded: no second copy.
    expect(sys.split('ROOT-MEMORY').length).toBe(2);
    // The memory lives in the per-session block; the static block is the same for any project.
    const blocks = api.requests[0].body.system;
    expect(blocks).toHaveLength(2);
    expect(blocks[0].text).not.toMatch(/[A-Z]+-MEMORY/);
    // A second run sends byte-identical system blocks (the prompt cache holds).
    await runAgent({ api, cwd: p.cwd, env, args: ['-p', 'hi'] });
    expect(api.requests[1].body.system).toEqual(blocks);
  });

  it('--setting-sources limits what loads: project only, then none', async () => {
    api = await startFakeApi([text('ok'), text('ok')]);
    const p = project();
    const env = { CLAUDE_CONFIG_DIR: p.config };
    await runAgent({ api, cwd: p.cwd, env, args: ['-p', 'hi', '--setting-sources', 'project'] });
    const sys = systemText(api.requests[0]);
    expect(sys).toContain('APP-MEMORY');
    expect(sys).not.toContain('USER-MEMORY');
    expect(sys).not.toContain('LOCAL-MEMORY');
    await runAgent({ api, cwd: p.cwd, env, args: ['-p', 'hi', '--setting-sources', ''] });
    expect(systemText(api.requests[1])).not.toMatch(/[A-Z]+-MEMORY/);
  });

  it('an unreadable memory file and a missing import are skipped with a stderr note; the run goes on', async () => {
    const { r, sys } = await brokenImports();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/memory: cannot read .*missing\.md/);
    if (process.getuid?.() !== 0) expect(r.stderr).toMatch(/memory: cannot read .*\.claude\/CLAUDE\.md/);
    expect(sys).toContain('MAIN-MEMORY');
  });

  it('imports stop at depth 5 and cycles are refused', async () => {
    const { r, sys } = await brokenImports();
    expect(sys).toContain('LEVEL-5');
    expect(sys).not.toContain('LEVEL-6');
    expect(r.stderr).toMatch(/deeper than 5 levels/);
  });

  it('--add-dir folders add their memory only with CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1', async () => {
    api = await startFakeApi([text('ok'), text('ok')]);
    const cwd = tempDir();
    const extra = tempDir();
    write(join(extra, 'CLAUDE.md'), 'EXTRA-MEMORY');
    const env = { CLAUDE_CONFIG_DIR: tempDir() };
    await runAgent({ api, cwd, env, args: ['-p', 'hi', '--add-dir', extra] });
    expect(systemText(api.requests[0])).not.toContain('EXTRA-MEMORY');
    await runAgent({
      api,
      cwd,
      env: { ...env, CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD: '1' },
      args: ['-p', 'hi', '--add-dir', extra],
    });
    expect(systemText(api.requests[1])).toContain('EXTRA-MEMORY');
  });

  it("through the SDK: settingSources ['project'] sends the project's CLAUDE.md to the model", async () => {
    api = await startFakeApi([text('ok')]);
    const p = project();
    const opts = sdkOptions(api.url, p.cwd, { settingSources: ['project'] });
    opts.env.CLAUDE_CONFIG_DIR = p.config;
    for await (const _ of query({ prompt: 'hi', options: opts as never }));
    const sys = systemText(api.requests[0]);
    expect(sys).toContain('APP-MEMORY');
    expect(sys).not.toContain('USER-MEMORY');
  });
});

describe('system prompt arrays with the dynamic boundary', () => {
  it('the part before the marker is the static block, the part after it the dynamic one; the marker never reaches the model', async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    write(join(cwd, 'CLAUDE.md'), 'PROJECT-MEMORY');
    const opts = sdkOptions(api.url, cwd, {
      systemPrompt: [
        'You are STATIC-ONE.',
        'And STATIC-TWO.',
        '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__',
        'Today: DYNAMIC-PART.',
      ],
      settingSources: ['project'],
    });
    for await (const _ of query({ prompt: 'hi', options: opts as never }));
    const blocks = api.requests[0].body.system;
    expect(JSON.stringify(blocks)).not.toContain('__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__');
    expect(blocks).toHaveLength(2);
    expect(blocks[0].text).toBe('You are STATIC-ONE.\n\nAnd STATIC-TWO.');
    expect(blocks[1].text).toMatch(/^Today: DYNAMIC-PART\.\n\n<memory>[\s\S]*PROJECT-MEMORY/);
  });
});
