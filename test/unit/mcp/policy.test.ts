import { describe, expect, it } from 'vitest';
import { mcpPolicy, urlMatches } from '../../../src/mcp/policy.js';
import type { LoadedFile } from '../../../src/settings/load.js';

const file = (source: LoadedFile['source'], settings: Record<string, unknown>): LoadedFile => ({
  source,
  path: `${source}.json`,
  settings,
});
const stdio = (command: string, args: string[] = []) => ({ command, args, env: {} });
const http = (url: string) => ({ type: 'http' as const, url, headers: {} });

describe('MCP server policy lists', () => {
  it('deniedMcpServers blocks by name, exact command or URL pattern, from any source and in any scope', () => {
    const p = mcpPolicy([
      file('user', { deniedMcpServers: [{ serverName: 'evil' }] }),
      file('project', {
        deniedMcpServers: [{ serverCommand: ['npx', 'bad-server'] }, { serverUrl: 'https://*.bad.example/*' }],
      }),
    ]);
    expect(p.blocked('evil', stdio('node'), 'managed')).toBe('blocked by deniedMcpServers (serverName "evil")');
    expect(p.blocked('x', stdio('npx', ['bad-server']), 'user')).toMatch(/serverCommand \["npx","bad-server"\]/);
    expect(p.blocked('x', stdio('npx', ['bad-server', '--flag']), 'user')).toBeUndefined();
    expect(p.blocked('y', http('https://api.bad.example/mcp'), 'dynamic')).toMatch(/serverUrl/);
    expect(p.blocked('y', http('https://good.example/mcp'), 'dynamic')).toBeUndefined();
  });

  it('allowedMcpServers admits only what it lists (managed servers need no entry); an empty list admits none; project files cannot set it', () => {
    const p = mcpPolicy([
      file('managed', { allowedMcpServers: [{ serverName: 'ok' }] }),
      file('local', { allowedMcpServers: [{ serverName: 'sneaky' }] }),
    ]);
    expect(p.blocked('ok', stdio('node'), 'project')).toBeUndefined();
    expect(p.blocked('sneaky', stdio('node'), 'local')).toBe('not in allowedMcpServers');
    expect(p.blocked('org', stdio('node'), 'managed')).toBeUndefined();
    expect(p.warnings).toEqual([expect.stringMatching(/local\.json: allowedMcpServers ignored here/)]);
    expect(mcpPolicy([file('user', { allowedMcpServers: [] })]).blocked('a', stdio('node'), 'user')).toMatch(
      /allowedMcpServers is empty/,
    );
    expect(mcpPolicy([]).blocked('a', stdio('node'), 'user')).toBeUndefined();
  });

  it('a malformed entry names the file and the key', () => {
    expect(() => mcpPolicy([file('user', { deniedMcpServers: [{}] })])).toThrow(
      /user\.json: deniedMcpServers\[0\]: an entry needs serverName, serverCommand or serverUrl/,
    );
    expect(() => mcpPolicy([file('user', { allowedMcpServers: 'all' })])).toThrow(/user\.json: allowedMcpServers/);
  });

  it('URL patterns: * wildcards; no query in the pattern also matches a query or a trailing slash', () => {
    expect(urlMatches('https://x.example/mcp', 'https://x.example/mcp?token=1')).toBe(true);
    expect(urlMatches('https://x.example/mcp', 'https://x.example/mcp/')).toBe(true);
    expect(urlMatches('https://x.example/mcp', 'https://x.example/mcpx')).toBe(false);
    expect(urlMatches('https://*.example/*', 'https://a.b.example/p')).toBe(true);
  });
});
