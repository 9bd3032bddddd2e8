// Our own system prompt and persistent memory, checked in what reached the model (the fake API's
// request log), driven by bin/agent and by the official SDK: the sections and the environment
// block, the static block's bytes across sessions, --system-prompt / --append-system-prompt, the
// built-in output styles, the Bash tool's git rules, and a memory written in one session that
// the next one loads.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemText, text } from '../fake-api/server.js';
import { calls, runAgent, startFakeApi, tempDir, writeJson, type FakeApi } from './harness.js';
import { prompts, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
const made: string[] = [];
function dir(prefix: string): string {
  const d = tempDir(prefix);
  made.push(d);
  return d;
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const slug = (p: string) => p.replace(/[^a-zA-Z0-9]/g, '-');

describe('the system prompt', () => {
  it('carries our sections, then the environment block after the cache boundary; the static block is the same bytes for another project', async () => {
    api = await startFakeApi([text('one'), text('two')]);
    const repo = dir('agent-prompt-repo-');
    execFileSync('git', ['init', '-q', '-b', 'trunk'], { cwd: repo });
    const config = dir('agent-prompt-config-');
    const r = await runAgent({
      api,
      cwd: repo,
      env: { CLAUDE_CONFIG_DIR: config },
      args: ['-p', 'hi', '--model', 'opus'],
    });
    expect(r.code, r.stderr).toBe(0);
    const [stat, dyn] = api.requests[0].body.system;
    for (const heading of [
      '# How your replies reach the user',
      '# Tools, permissions and the messages around them',
      '# Choosing tools',
      '# Care with actions that are hard to undo or reach beyond this machine',
      '# Reporting what happened',
      '# Security-sensitive requests',
      '# Skills and commands',
      '# Long conversations',
      '# Persistent memory',
    ])
      expect(stat.text).toContain(heading);
    expect(stat.cache_control).toEqual({ type: 'ephemeral' });
    expect(dyn.cache_control).toEqual({ type: 'ephemeral' });
    expect(dyn.text).toContain(`- Working directory: ${repo}`);
    expect(dyn.text).toContain(`- Git repository: yes, on branch trunk (repository root: ${repo})`);
    expect(dyn.text).toMatch(/- Platform: linux\n- Shell: bash\n- OS version: Linux \S+/);
    expect(dyn.text).toContain(`- Today's date: ${new Date().toISOString().slice(0, 10)}`);
    expect(dyn.text).toContain('you are Claude Opus 5.5, model id `claude-opus-5-5`');
    expect(dyn.text).toContain('Haiku 5.5 (`claude-haiku-5-5`)');
    expect(dyn.text).toContain(
      `Your memory folder for this project is \`${join(config, 'projects', slug(repo), 'memory')}/\``,
    );
    // The git rules sit in the Bash tool's description.
    const bash = api.requests[0].body.tools.find((t: { name: string }) => t.name === 'Bash');
    expect(bash.description).toMatch(/Commit only when the user asks/);
    expect(bash.description).toMatch(/Never force-push to main/);
    expect(bash.description).toMatch(/Never change the git configuration/);
    expect(bash.description).toMatch(/Never skip or disable hooks/);
    expect(bash.description).toMatch(/commit message from the diff/);

    const other = dir('agent-prompt-other-');
    const r2 = await runAgent({
      api,
      cwd: other,
      env: { CLAUDE_CONFIG_DIR: dir('agent-prompt-config-') },
      args: ['-p', 'hi'],
    });
    expect(r2.code, r2.stderr).toBe(0);
    const [stat2, dyn2] = api.requests[1].body.system;
    expect(stat2.text).toBe(stat.text);
    expect(dyn2.text).toContain('- Git repository: no');
    expect(dyn2.text).not.toBe(dyn.text);
  });

  it('--system-prompt replaces ours; --append-system-prompt adds to it, after the environment', async () => {
    api = await startFakeApi([text('a'), text('b')]);
    const cwd = dir('agent-prompt-cwd-');
    const env = { CLAUDE_CONFIG_DIR: dir('agent-prompt-config-') };
    await runAgent({ api, cwd, env, args: ['-p', 'hi', '--system-prompt', 'You are a pirate.'] });
    expect(api.requests[0].body.system[0].text).toBe('You are a pirate.');
    expect(systemText(api.requests[0])).not.toContain('# Reporting what happened');
    // Nor the environment block: the reference sends none with a custom prompt either (measured).
    expect(systemText(api.requests[0])).not.toContain('# Environment');
    expect(systemText(api.requests[0])).not.toContain(cwd);
    await runAgent({ api, cwd, env, args: ['-p', 'hi', '--append-system-prompt', 'ALWAYS-FRENCH'] });
    const sys = api.requests[1].body.system;
    expect(sys[0].text).toContain('# Reporting what happened');
    expect(sys[1].text.endsWith('ALWAYS-FRENCH')).toBe(true);
    expect(sys[1].text.indexOf('# Environment')).toBe(0);
  });

  it('the official SDK switches to the built-in Explanatory and Learning styles with updateSettings; their text joins ours', async () => {
    api = await startFakeApi([text('one'), text('two'), text('three')]);
    const cwd = dir('agent-prompt-sdk-');
    const feed = prompts(['first', 'second', 'third']);
    const q = query({ prompt: feed as never, options: sdkOptions(api.url, cwd) as never });
    const init = await q.initializationResult();
    expect(init.available_output_styles).toEqual(['default', 'Explanatory', 'Learning']);
    let results = 0;
    for await (const m of q) {
      if (m.type !== 'result') continue;
      results++;
      if (results === 1) await q.updateSettings('localSettings', { outputStyle: 'Explanatory' });
      if (results === 2) await q.updateSettings('localSettings', { outputStyle: 'Learning' });
      feed.onResult();
    }
    const [plain, explanatory, learning] = api.requests.map((r) => r.body.system[0].text as string);
    expect(plain).not.toContain('# Output style');
    expect(explanatory.startsWith(plain)).toBe(true);
    expect(explanatory).toContain('# Output style: Explanatory\nYou are working in the Explanatory style');
    expect(learning).toContain('# Output style: Learning\nYou are working in the Learning style');
    expect(learning).toContain('TODO(human)');
    expect(JSON.parse(readFileSync(join(cwd, '.claude', 'settings.local.json'), 'utf8'))).toEqual({
      outputStyle: 'Learning',
    });
  });
});

describe('persistent memory', () => {
  it("a memory the model writes with Write (unasked, outside the working directory) is in the next session's index; nothing is written into the repository", async () => {
    const repo = dir('agent-memory-repo-');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const cwd = join(repo, 'pkg');
    mkdirSync(cwd);
    const config = dir('agent-memory-config-');
    const folder = join(config, 'projects', slug(repo), 'memory');
    const fact =
      '---\nname: prefers-tabs\ndescription: The user indents with tabs\nmetadata:\n  type: user\n---\n\nThe user indents with tabs.\n';
    api = await startFakeApi([
      calls([
        ['Write', { file_path: join(folder, 'prefers-tabs.md'), content: fact }],
        [
          'Write',
          { file_path: join(folder, 'MEMORY.md'), content: '- [Prefers tabs](prefers-tabs.md) — indentation style\n' },
        ],
      ]),
      text('saved'),
      text('hello again'),
    ]);
    const env = { CLAUDE_CONFIG_DIR: config };
    // -p in default mode: nothing can be asked, so an ask would be a denial.
    const r = await runAgent({ api, cwd, env, args: ['-p', 'remember that I use tabs', '--output-format', 'json'] });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).permission_denials).toEqual([]);
    expect(readFileSync(join(folder, 'prefers-tabs.md'), 'utf8')).toBe(fact);
    expect(systemText(api.requests[0])).toContain('MEMORY.md is empty');

    const r2 = await runAgent({ api, cwd, env, args: ['-p', 'hi'] });
    expect(r2.code, r2.stderr).toBe(0);
    const dyn = api.requests[2].body.system[1].text as string;
    expect(dyn).toContain(`<memory-index>\n- [Prefers tabs](prefers-tabs.md) — indentation style\n</memory-index>`);
    // The fact itself is not loaded, only the index.
    expect(systemText(api.requests[2])).not.toContain('The user indents with tabs.');
    expect(readdirSync(repo).sort()).toEqual(['.git', 'pkg']);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('is off with CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 or autoMemoryEnabled: false (and =0 turns it back on); off, no folder is made', async () => {
    api = await startFakeApi([text('a'), text('b'), text('c')]);
    const cwd = dir('agent-memory-off-');
    const config = dir('agent-memory-config-');
    const env = { CLAUDE_CONFIG_DIR: config };
    await runAgent({ api, cwd, env: { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, args: ['-p', 'hi'] });
    expect(systemText(api.requests[0])).not.toMatch(/# Persistent memory|# Memory/);
    expect(existsSync(join(config, 'projects', slug(cwd), 'memory'))).toBe(false);
    writeJson(join(config, 'settings.json'), { autoMemoryEnabled: false });
    await runAgent({ api, cwd, env, args: ['-p', 'hi'] });
    expect(systemText(api.requests[1])).not.toMatch(/# Persistent memory|# Memory/);
    await runAgent({ api, cwd, env: { ...env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' }, args: ['-p', 'hi'] });
    expect(systemText(api.requests[2])).toContain('# Persistent memory');
    expect(existsSync(join(config, 'projects', slug(cwd), 'memory'))).toBe(true);
  });
});
