import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandVars, gatherMcpServers } from '../../../src/mcp/sources.js';
import type { LoadedFile } from '../../../src/settings/load.js';
import { makeTempDir } from '../../tempDirs.js';

const server = (command: string) => ({ command });
const file = (source: LoadedFile['source'], settings: Record<string, unknown>): LoadedFile => ({
  source,
  path: `${source}.json`,
  settings,
});

function gather(
  files: LoadedFile[],
  mcpJson?: unknown,
  extra: { strict?: boolean; sources?: Array<'user' | 'project' | 'local'> } = {},
) {
  const root = makeTempDir('mcp-sources-');
  if (mcpJson !== undefined) writeFileSync(join(root, '.mcp.json'), JSON.stringify(mcpJson));
  mkdirSync(join(root, '.claude'), { recursive: true });
  const r = gatherMcpServers({
    projectRoot: root,
    sources: extra.sources ?? ['user', 'project', 'local'],
    files,
    flagServers: new Map(),
    strict: extra.strict ?? false,
    env: { HOME_X: '/h' },
  });
  const flat = Object.fromEntries(
    r.groups.flatMap((g) =>
      [...g.configs].map(([n, c]) => [
        n,
        { scope: g.scope, command: (c as { command?: string }).command, held: g.held.get(n) },
      ]),
    ),
  );
  return { flat, warnings: r.warnings };
}

describe('MCP server sources', () => {
  it('a higher source replaces a lower one whole: user < .mcp.json < project settings < local < --settings < managed', () => {
    const { flat } = gather(
      [
        file('user', { mcpServers: { a: server('user'), b: server('user') } }),
        file('local', { mcpServers: { b: server('local') }, enableAllProjectMcpServers: true }),
        file('managed', { mcpServers: { m: server('managed') } }),
      ],
      { mcpServers: { a: server('mcpjson'), c: server('mcpjson') } },
    );
    expect(flat).toEqual({
      a: { scope: 'project', command: 'mcpjson', held: undefined },
      b: { scope: 'local', command: 'local', held: undefined },
      c: { scope: 'project', command: 'mcpjson', held: undefined },
      m: { scope: 'managed', command: 'managed', held: undefined },
    });
  });

  it('approval: disabled beats enabled; the highest enableAllProjectMcpServers decides; project settings cannot approve (warned)', () => {
    const mcpJson = { mcpServers: { x: server('x'), y: server('y'), z: server('z') } };
    const r = gather(
      [
        file('user', { enableAllProjectMcpServers: true }),
        file('project', { enabledMcpjsonServers: ['y'] }),
        file('local', { enabledMcpjsonServers: ['x'], disabledMcpjsonServers: ['x'] }),
        file('managed', { enableAllProjectMcpServers: false }),
      ],
      mcpJson,
    );
    expect(r.flat.x.held).toBe('disabled by disabledMcpjsonServers');
    expect(r.flat.y.held).toMatch(/not started until approved/);
    expect(r.flat.z.held).toMatch(/not started until approved/);
    expect(r.warnings).toEqual([expect.stringMatching(/project\.json: enabledMcpjsonServers ignored here/)]);
  });

  it('--strict-mcp-config and a --setting-sources without project leave .mcp.json unread', () => {
    expect(
      gather([file('user', { mcpServers: { u: server('u') } })], { mcpServers: { p: server('p') } }, { strict: true })
        .flat,
    ).toEqual({});
    expect(
      Object.keys(
        gather(
          [file('user', { mcpServers: { u: server('u') } })],
          { mcpServers: { p: server('p') } },
          { sources: ['user'] },
        ).flat,
      ),
    ).toEqual(['u']);
  });

  it('${VAR} and ${VAR:-default} expand in every string; a missing one is named', () => {
    const missing = new Set<string>();
    expect(
      expandVars({ command: '${A}/bin', args: ['${B:-def}', 'x${C}y'], env: { K: '${A}' } }, { A: '/a' }, missing),
    ).toEqual({
      command: '/a/bin',
      args: ['def', 'xy'],
      env: { K: '/a' },
    });
    expect([...missing]).toEqual(['C']);
  });
});

describe('MCP server policy lists', () => {
  it('a settings file with managedMcpServers (not built yet) stops the start, naming the file and key', () => {
    expect(() => gather([file('managed', { managedMcpServers: { x: { type: 'http', url: 'https://x' } } })])).toThrow(
      /managed\.json: managedMcpServers is not supported by this agent runtime yet; refusing to start/,
    );
  });

  it('deniedMcpServers turns a matching server of any source into a failed one with the reason', () => {
    const r = gather([
      file('user', { deniedMcpServers: [{ serverName: 'a' }] }),
      file('local', { mcpServers: { a: server('x'), b: server('y') } }),
    ]);
    expect(Object.keys(r.flat)).toEqual(['a', 'b']);
    expect(r.flat.a.command).toBeUndefined();
    expect(r.flat.b.command).toBe('y');
  });
});
