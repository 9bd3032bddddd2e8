// The plugin loader on its own: manifest forms, inline hooks and MCP servers, paths kept inside the
// plugin folder, ${CLAUDE_PLUGIN_ROOT} expansion, and what a reload keeps when a plugin breaks.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandPluginRoot, loadPlugin } from '../../../src/plugins/load.js';
import { PluginError } from '../../../src/plugins/manifest.js';
import { PluginSet } from '../../../src/plugins/pluginSet.js';
import { makeTempDir } from '../../tempDirs.js';

function folder(name: string, files: Record<string, string>): string {
  const root = join(makeTempDir('plugin-unit-'), name);
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), body);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

describe('plugin loader', () => {
  it('without a manifest the folder name is the plugin name', async () => {
    const root = folder('tools-kit', { 'commands/hi.md': 'Hi.' });
    const p = await loadPlugin({ path: root }, '/');
    expect(p.name).toBe('tools-kit');
    expect(p.commands.map((c) => c.name)).toEqual(['tools-kit:hi']);
  });

  it('inline hooks and mcpServers in the manifest, with ${CLAUDE_PLUGIN_ROOT} expanded and set in the server env', async () => {
    const root = folder('p', {
      '.claude-plugin/plugin.json': JSON.stringify({
        name: 'inline',
        hooks: { Stop: [{ hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/stop.sh' }] }] },
        mcpServers: {
          db: { command: '${CLAUDE_PLUGIN_ROOT}/db', args: ['--dir', '${CLAUDE_PLUGIN_ROOT}/data'] },
          web: { type: 'http', url: 'http://localhost:1/${CLAUDE_PLUGIN_ROOT}' },
        },
      }),
    });
    const p = await loadPlugin({ path: root }, '/');
    expect(p.hooks.Stop[0].hooks[0].command).toBe(`${root}/stop.sh`);
    expect(p.mcpServers.get('plugin:inline:db')).toEqual({
      command: `${root}/db`,
      args: ['--dir', `${root}/data`],
      env: { CLAUDE_PLUGIN_ROOT: root },
    });
    expect([...p.mcpServers.keys()]).toEqual(['plugin:inline:db', 'plugin:inline:web']);
    const noMcp = await loadPlugin({ path: root, skipMcp: true }, '/');
    expect(noMcp.mcpServers.size).toBe(0);
  });

  it('manifest paths: extra command folders load; a path outside the plugin or missing is an error naming the manifest', async () => {
    const root = folder('p', {
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'x', commands: ['./more'] }),
      'more/a.md': 'A.',
    });
    expect((await loadPlugin({ path: root }, '/')).commands.map((c) => c.name)).toEqual(['x:a']);
    const out = folder('q', { '.claude-plugin/plugin.json': JSON.stringify({ name: 'x', skills: '../elsewhere' }) });
    await expect(loadPlugin({ path: out }, '/')).rejects.toThrow(
      `${join(out, '.claude-plugin/plugin.json')}: skills: "../elsewhere" is outside the plugin folder`,
    );
    const gone = folder('r', { '.claude-plugin/plugin.json': JSON.stringify({ name: 'x', hooks: './none.json' }) });
    await expect(loadPlugin({ path: gone }, '/')).rejects.toThrow(/hooks: ".\/none.json" does not exist/);
  });

  it('a bad MCP server config is an error naming the file and the server', async () => {
    const root = folder('p', { '.mcp.json': JSON.stringify({ mcpServers: { bad: { command: '' } } }) });
    const err = await loadPlugin({ path: root }, '/').catch((e) => e);
    expect(err).toBeInstanceOf(PluginError);
    expect(err.message).toContain(
      `${join(root, '.mcp.json')}: server "plugin:p:bad": command: command must not be empty`,
    );
  });

  it('${VAR} and ${VAR:-default} in MCP configs take the environment; a variable not set makes that server failed, naming it', async () => {
    const root = folder('p', {
      '.mcp.json': JSON.stringify({
        mcpServers: {
          ok: { command: '${TOOL_BIN}', args: ['${MODE:-fast}'] },
          gone: { command: '${NOT_SET_ANYWHERE}' },
        },
      }),
    });
    const p = await loadPlugin({ path: root }, '/', { TOOL_BIN: '/bin/tool' });
    expect(p.mcpServers.get('plugin:p:ok')).toMatchObject({ command: '/bin/tool', args: ['fast'] });
    expect(p.mcpServers.get('plugin:p:gone')).toEqual({
      type: 'unsupported',
      reason: expect.stringContaining('server "gone": environment variable NOT_SET_ANYWHERE not set'),
    });
  });

  it('a bad command file is a warning, not an error', async () => {
    const root = folder('p', { 'commands/ok.md': 'Fine.', 'commands/bad.md': '---\n: : :\n---\nx' });
    const p = await loadPlugin({ path: root }, '/');
    expect(p.commands.map((c) => c.name)).toEqual(['p:ok']);
    expect(p.warnings.join('\n')).toMatch(/bad\.md: front matter is not valid YAML/);
  });

  it('expandPluginRoot reaches every string and leaves other values', () => {
    expect(
      expandPluginRoot(
        { a: ['$CLAUDE_PLUGIN_ROOT/x', 1, null], b: { c: '${CLAUDE_PLUGIN_ROOT}' }, d: '$CLAUDE_PLUGIN_ROOTS' },
        '/r',
      ),
    ).toEqual({
      a: ['/r/x', 1, null],
      b: { c: '/r' },
      d: '$CLAUDE_PLUGIN_ROOTS',
    });
  });

  it('a reload keeps the last good version of a plugin that broke, and does not add a broken new one', async () => {
    const root = folder('keep', { 'commands/a.md': 'A.' });
    const set = new PluginSet('/', () => {});
    await set.add([{ path: root }]);
    writeFileSync(join(root, 'commands/b.md'), 'B.');
    mkdirSync(join(root, '.claude-plugin'));
    writeFileSync(join(root, '.claude-plugin/plugin.json'), 'nope');
    const broken = folder('new', { '.claude-plugin/plugin.json': '{' });
    const r = await set.prepareReload([{ path: broken }]);
    expect(r.errors).toHaveLength(2);
    expect(r.plugins.map((p) => [p.name, p.commands.map((c) => c.name)])).toEqual([['keep', ['keep:a']]]);
    set.commit(r);
    expect(set.has(root)).toBe(true);
    expect(set.has(broken)).toBe(false);
  });
});
