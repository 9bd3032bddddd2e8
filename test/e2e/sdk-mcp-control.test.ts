// MCP control through the official SDK as host: setMcpServers, toggleMcpServer,
// reconnectMcpServer, readMcpResource against a real stdio MCP server; the offered tools follow.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { text, type RecordedRequest } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

const SERVER = mcpFixture('mcp-calc-server');
const offered = (req: RecordedRequest) => ((req.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let api: FakeApi | undefined;

describe('MCP control requests from the SDK host', () => {
  it('setMcpServers adds and removes, toggle withdraws and restores the tools, reconnect restarts, readMcpResource reads ui://', async () => {
    api = await startFakeApi([text('one'), text('two'), text('three')]);
    const cwd = tempDir();
    const pidFile = `${tempDir()}/calc.pid`;
    const prompts = promptStream();
    const q = query({ prompt: prompts as never, options: sdkOptions(api.url, cwd) as never });
    const next = q[Symbol.asyncIterator]();
    const untilResult = async () => {
      for (;;) {
        const { value, done } = await next.next();
        if (done || value.type === 'result') return;
      }
    };

    const calc = { type: 'stdio', command: process.execPath, args: [SERVER], env: { MCP_CALC_PID_FILE: pidFile } };
    const set = await q.setMcpServers({ calc, broken: { type: 'stdio', command: '/nonexistent/mcp-server' } } as never);
    expect(set.added.sort()).toEqual(['broken', 'calc']);
    expect(set.removed).toEqual([]);
    expect(Object.keys(set.errors)).toEqual(['broken']);
    expect(set.errors.broken).toMatch(/ENOENT|nonexistent/);
    const firstPid = Number(readFileSync(pidFile, 'utf8'));

    prompts.push('first');
    await untilResult();
    expect(offered(api.requests[0])).toContain('mcp__calc__add');

    await q.toggleMcpServer('calc', false);
    expect((await q.mcpServerStatus()).find((s) => s.name === 'calc')?.status).toBe('disabled');
    expect(alive(firstPid)).toBe(false);
    await expect(q.reconnectMcpServer('calc')).rejects.toThrow(/disabled/);
    prompts.push('second');
    await untilResult();
    expect(offered(api.requests[1])).not.toContain('mcp__calc__add');

    await q.toggleMcpServer('calc', true);
    await q.reconnectMcpServer('calc');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).not.toBe(firstPid);
    expect((await q.mcpServerStatus()).find((s) => s.name === 'calc')).toMatchObject({
      status: 'connected',
      serverInfo: { name: 'calc', version: '1.2.3' },
    });

    const read = await q.readMcpResource('calc', 'ui://calc/widget');
    expect(read.contents).toEqual([{ uri: 'ui://calc/widget', mimeType: 'text/html', text: '<p>calc widget</p>' }]);
    await expect(q.readMcpResource('calc', 'file:///etc/passwd')).rejects.toThrow(/ui:\/\//);
    await expect(q.readMcpResource('broken', 'ui://x')).rejects.toThrow(/not connected \(failed/);
    await expect(q.reconnectMcpServer('nope')).rejects.toThrow(/no MCP server named "nope"/);
    await expect(q.toggleMcpServer('nope', false)).rejects.toThrow(/no MCP server named "nope"/);
    await expect(q.setMcpServers({ bad: { type: 'stdio', command: '' } } as never)).rejects.toThrow(
      /mcp_set_servers: server "bad": command: command must not be empty/,
    );

    prompts.push('third');
    await untilResult();
    expect(offered(api.requests[2])).toContain('mcp__calc__add');

    const cleared = await q.setMcpServers({});
    expect(cleared).toEqual({ added: [], removed: ['calc', 'broken'], errors: {} });
    expect(await q.mcpServerStatus()).toEqual([]);
    expect(alive(pid)).toBe(false);
    prompts.end();
    for (;;) if ((await next.next()).done) break;
  }, 30_000);
});
