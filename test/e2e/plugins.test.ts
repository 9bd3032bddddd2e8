// Plugins end to end: a real plugin folder (manifest, commands, agents, skills, hooks, an MCP
// server that is a real process) loaded by --plugin-dir and by the official SDK's `plugins`
// option (both deliveries); names namespaced as the reference does; ${CLAUDE_PLUGIN_ROOT}
// expanded; init.plugins; reload_plugins adds, reloads, holds and refuses; a broken plugin is a
// start error naming its file.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { lastToolResults, lastUserText, text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, STREAM_ARGS, tempDir, userLine, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

const CALC = mcpFixture('mcp-calc-server');

let api: FakeApi | undefined;

/** A plugin folder named `name` with one of each thing a plugin ships. */
function makePlugin(name: string, opts: { mcp?: boolean } = {}): string {
  const root = join(tempDir('agent-plugin-'), name);
  const w = (rel: string, body: string) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), body);
  };
  w('.claude-plugin/plugin.json', JSON.stringify({ name, version: '1.2.0', description: `the ${name} plugin` }));
  w(
    'commands/greet.md',
    '---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS; templates live in ${CLAUDE_PLUGIN_ROOT}/templates.\n',
  );
  w('commands/sub/deep.md', 'A nested command.\n');
  w('agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews code for the plugin\n---\nYou review code.\n');
  w(
    'skills/lint/SKILL.md',
    '---\nname: lint\ndescription: Lint the code base\n---\nLINT-BODY: run the linter in ${CLAUDE_PLUGIN_ROOT}.\n',
  );
  // The hook's command names the root (expanded) and reads it from its environment too.
  w(
    'hooks/hooks.json',
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'printf "%s" "$CLAUDE_PLUGIN_ROOT" > "${CLAUDE_PLUGIN_ROOT}/hook-ran.txt"' },
            ],
          },
        ],
      },
    }),
  );
  if (opts.mcp !== false) {
    w('server.mjs', `import ${JSON.stringify(CALC)};\n`);
    w(
      '.mcp.json',
      JSON.stringify({ mcpServers: { calc: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } } }),
    );
  }
  return root;
}

function lines(stdout: string): any[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('plugins from --plugin-dir', () => {
  it('load commands, agents, skills, hooks and MCP servers, namespaced; init lists them; ${CLAUDE_PLUGIN_ROOT} is expanded', async () => {
    const root = makePlugin('kit');
    const cwd = tempDir();
    api = await startFakeApi([
      toolUse('mcp__plugin_kit_calc__add', { a: 2, b: 3 }, 'toolu_add'),
      toolUse('Bash', { command: 'echo ran' }, 'toolu_bash'),
      toolUse('Skill', { skill: 'kit:lint' }, 'toolu_skill'),
      text('first done'),
      text('greeted'),
    ]);
    const input = `${userLine('add them')}\n${userLine('/kit:greet Ana')}\n`;
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions', '--plugin-dir', root],
      input,
    });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init.plugins).toEqual([{ name: 'kit', path: root }]);
    expect(init.slash_commands).toEqual(expect.arrayContaining(['kit:greet', 'kit:sub:deep']));
    expect(init.agents).toContain('kit:reviewer');
    expect(init.skills).toEqual(['kit:lint']);
    expect(init.tools).toEqual(expect.arrayContaining(['Skill', 'mcp__plugin_kit_calc__add']));
    expect(init.mcp_servers).toContainEqual({ name: 'plugin:kit:calc', status: 'connected' });
    // The MCP server (started from ${CLAUDE_PLUGIN_ROOT}/server.mjs) answered.
    expect(JSON.stringify(lastToolResults(api.requests[1]))).toContain('5');
    // The hook ran before Bash, with the root expanded in its command and set in its environment.
    expect(readFileSync(join(root, 'hook-ran.txt'), 'utf8')).toBe(root);
    const [skill] = lastToolResults(api.requests[3]);
    expect(JSON.stringify(skill.content)).toContain(`LINT-BODY: run the linter in ${root}.`);
    // The Agent tool lists the plugin's agent by its namespaced name.
    const agentTool = api.requests[0].body.tools.find((t: any) => t.name === 'Agent' || t.name === 'Task');
    expect(agentTool.description).toContain('kit:reviewer');
    // The command ran as the second turn's prompt.
    expect(lastUserText(api.requests[4])).toBe(`Say hello to Ana; templates live in ${root}/templates.`);
  });

  it('--plugin-dir-no-mcp loads everything but the MCP servers; the plugin agent runs as a subagent', async () => {
    const root = makePlugin('kit');
    api = await startFakeApi([
      toolUse('Agent', { description: 'review', prompt: 'review the diff', subagent_type: 'kit:reviewer' }, 'toolu_a'),
      text('looks fine'),
      text('ok'),
    ]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions', '--plugin-dir-no-mcp', root],
      input: `${userLine('hi')}\n`,
    });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init.plugins).toEqual([{ name: 'kit', path: root }]);
    expect(init.slash_commands).toContain('kit:greet');
    expect(init.mcp_servers).toEqual([]);
    expect(init.tools.some((t: string) => t.startsWith('mcp__plugin_kit'))).toBe(false);
    expect(JSON.stringify(api.requests[1].body.system)).toContain('You review code.');
    expect(JSON.stringify(lastToolResults(api.requests[2]))).toContain('looks fine');
  });

  it("--strict-mcp-config leaves the plugins' MCP servers out, and says so", async () => {
    const root = makePlugin('kit');
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--strict-mcp-config', '--plugin-dir', root],
      input: `${userLine('hi')}\n`,
    });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init.mcp_servers).toEqual([]);
    expect(init.slash_commands).toContain('kit:greet');
    expect(r.stderr).toContain("agent: --strict-mcp-config: the plugins' MCP servers are not started: plugin:kit:calc");
  });

  it("deniedMcpServers holds for a plugin's MCP server: it is failed with the reason", async () => {
    const root = makePlugin('kit');
    api = await startFakeApi([text('ok')]);
    const settings = JSON.stringify({ deniedMcpServers: [{ serverName: 'plugin:kit:calc' }] });
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--settings', settings, '--plugin-dir', root],
      input: `${userLine('hi')}\n`,
    });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init.mcp_servers).toEqual([{ name: 'plugin:kit:calc', status: 'failed' }]);
    expect(r.stderr).toContain(
      'MCP server "plugin:kit:calc" failed: blocked by deniedMcpServers (serverName "plugin:kit:calc")',
    );
  });

  it('a malformed manifest, a broken hooks file, a missing folder or two plugins of one name stop the start (exit 2), naming the file', async () => {
    api = await startFakeApi([text('never')]);
    const bad = makePlugin('bad', { mcp: false });
    writeFileSync(join(bad, '.claude-plugin/plugin.json'), '{"name": "bad",');
    let r = await runAgent({ api, args: ['-p', 'hi', '--plugin-dir', bad] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(bad, '.claude-plugin/plugin.json')}: the plugin manifest is not valid JSON`);

    writeFileSync(join(bad, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'has space' }));
    r = await runAgent({ api, args: ['-p', 'hi', '--plugin-dir', bad] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/plugin\.json: invalid plugin manifest: name: must be letters/);

    writeFileSync(join(bad, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'bad' }));
    writeFileSync(
      join(bad, 'hooks/hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }] } }),
    );
    r = await runAgent({ api, args: ['-p', 'hi', '--plugin-dir', bad] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(bad, 'hooks/hooks.json')}: invalid hooks: PreToolUse.0.hooks.0.command`);

    r = await runAgent({ api, args: ['-p', 'hi', '--plugin-dir', join(bad, 'nope')] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`plugin folder ${join(bad, 'nope')}: no such directory`);

    const a = makePlugin('twin', { mcp: false });
    const b = makePlugin('twin', { mcp: false });
    r = await runAgent({ api, args: ['-p', 'hi', '--plugin-dir', a, '--plugin-dir', b] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`two plugins are named "twin": ${a} and ${b}`);
    expect(api.requests).toHaveLength(0);
  });
});

describe("plugins from the SDK's plugins option", () => {
  it('argv delivery: loaded; reloadPlugins adds one, reads the files again, and counts a broken one while keeping its last good version', async () => {
    const kit = makePlugin('kit', { mcp: false });
    const extra = makePlugin('extra');
    const cwd = tempDir();
    api = await startFakeApi([
      text('one'),
      toolUse('mcp__plugin_extra_calc__add', { a: 4, b: 5 }, 'toolu_x'),
      text('two'),
    ]);
    const input = promptStream();
    const q = query({
      prompt: input as never,
      options: sdkOptions(api.url, cwd, {
        plugins: [{ type: 'local', path: kit }],
        allowedTools: ['mcp__plugin_extra_calc__add'],
      }) as never,
    });
    input.push('hi');
    const inits: any[] = [];
    let results = 0;
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') inits.push(m);
      if (m.type !== 'result') continue;
      results++;
      if (results === 1) {
        // A new command file, a broken manifest on reload: kit keeps what it had; extra joins.
        writeFileSync(join(kit, 'commands/later.md'), 'Added later.\n');
        const held = await q.reloadPlugins({ holdOnCacheImpact: true, addPlugins: [{ type: 'local', path: extra }] });
        // The conversation has a turn and extra brings an MCP server: nothing applied.
        expect(held.held).toBe(true);
        expect(held.cache_impact).toEqual({
          mcp_servers_added: ['plugin:extra:calc'],
          mcp_servers_removed: [],
          lsp_tool_change: null,
        });
        expect(held.plugins.map((p) => p.name)).toEqual(['kit']);

        const r1 = await q.reloadPlugins({ addPlugins: [{ type: 'local', path: extra }] });
        expect(r1.error_count).toBe(0);
        expect(r1.plugins).toEqual([
          { name: 'kit', path: kit, version: '1.2.0' },
          { name: 'extra', path: extra, version: '1.2.0' },
        ]);
        expect(r1.commands.map((c) => c.name)).toEqual(expect.arrayContaining(['kit:later', 'extra:greet']));
        expect(r1.agents.map((a) => a.name)).toEqual(expect.arrayContaining(['kit:reviewer', 'extra:reviewer']));
        expect(r1.mcpServers).toContainEqual(
          expect.objectContaining({ name: 'plugin:extra:calc', status: 'connected', source: 'plugin' }),
        );

        writeFileSync(join(kit, '.claude-plugin/plugin.json'), '{oops');
        const r2 = await q.reloadPlugins();
        expect(r2.error_count).toBe(1);
        expect(r2.plugins.map((p) => p.name)).toEqual(['kit', 'extra']);
        expect(r2.commands.map((c) => c.name)).toContain('kit:later');
        input.push('use extra');
      } else input.end();
    }
    expect(inits[0].plugins).toEqual([{ name: 'kit', path: kit }]);
    expect(inits[1].plugins).toEqual([
      { name: 'kit', path: kit },
      { name: 'extra', path: extra },
    ]);
    expect(inits[1].tools).toContain('mcp__plugin_extra_calc__add');
    expect(JSON.stringify(lastToolResults(api.requests[2]))).toContain('9');
  });

  it('initialize delivery: the plugins ride in initialize (plugins_applied: true); a malformed one ends the session; refuseIfBusy refuses in a turn', async () => {
    const kit = makePlugin('kit', { mcp: false });
    const cwd = tempDir();
    api = await startFakeApi([{ ...text('slow'), delayMs: 1500 }]);
    const input = promptStream();
    const q = query({
      prompt: input as never,
      options: sdkOptions(api.url, cwd, {
        plugins: [{ type: 'local', path: kit }],
        pluginDelivery: 'initialize',
      }) as never,
    });
    const init = await q.initializationResult();
    expect(init.plugins_applied).toBe(true);
    expect(init.commands.map((c) => c.name)).toContain('kit:greet');
    input.push('hi');
    let refused: any;
    let sysInit: any;
    for await (const m of q) {
      if (m.type === 'system' && m.subtype === 'init') {
        sysInit = m;
        refused = await q.reloadPlugins({ refuseIfBusy: true }).then(
          () => 'reloaded',
          (err) => err,
        );
      }
      if (m.type === 'result') input.end();
    }
    expect(sysInit.plugins).toEqual([{ name: 'kit', path: kit }]);
    expect(sysInit.capabilities).toContain('reload_plugins_refuse_if_busy_v1');
    expect(refused).toBeInstanceOf(Error);
    expect(refused.errorCode).toBe('reload_plugins_busy');
    expect(String(refused.message)).toContain('the session is busy');

    writeFileSync(join(kit, '.claude-plugin/plugin.json'), '[]');
    let error = '';
    try {
      for await (const _ of query({
        prompt: 'hi',
        options: sdkOptions(api.url, cwd, {
          plugins: [{ type: 'local', path: kit }],
          pluginDelivery: 'initialize',
        }) as never,
      }))
        void _;
    } catch (err) {
      error = (err as Error).message;
    }
    expect(error).toMatch(/invalid plugin manifest|exited with code 2/);
    expect(api.requests).toHaveLength(1);
    expect(existsSync(join(kit, 'hook-ran.txt'))).toBe(false);
  });
});
