// MCP as the official SDK configures it: servers delivered in the initialize request
// (mcpServersDelivery 'initialize') and setMcpPermissionModeOverride, against a real stdio server.
import { query, type CanUseTool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { resultsById, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

const CALC = fileURLToPath(new URL('../fixtures/mcp-calc-server.mjs', import.meta.url));
const calc = { type: 'stdio', command: process.execPath, args: [CALC] };

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('MCP servers from the SDK host', () => {
  it("mcpServersDelivery 'initialize': the servers come in the initialize request, connect, and their tools run", async () => {
    api = await startFakeApi([toolUse('mcp__calc__add', { a: 2, b: 3 }, 'c1'), text('five')]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'add',
      options: sdkOptions(api.url, tempDir(), { mcpServers: { calc }, mcpServersDelivery: 'initialize', allowedTools: ['mcp__calc'] }) as never,
    });
    let status: Array<Record<string, unknown>> = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'system' && m.subtype === 'init') status = (await q.mcpServerStatus()) as never;
    }
    expect(((await q.initializationResult()) as Record<string, unknown>).mcp_servers_applied).toBe(true);
    const result = messages.find((m) => m.type === 'result') as Record<string, unknown>;
    expect(result.is_error).toBe(false);
    expect(resultsById(api.requests[1]).c1).toEqual({ text: '5', isError: false });
    expect(status).toEqual([expect.objectContaining({ name: 'calc', status: 'connected', scope: 'dynamic', source: 'dynamic' })]);
  });

  it("mcpServersDelivery 'initialize' with a malformed server: the error answer ends the SDK's session, naming the server", async () => {
    api = await startFakeApi([text('never')]);
    const q = query({
      prompt: 'hi',
      options: sdkOptions(api.url, tempDir(), { mcpServers: { bad: { type: 'stdio', command: '' } }, mcpServersDelivery: 'initialize' }) as never,
    });
    await expect(
      (async () => {
        for await (const _ of q) {
          /* drain */
        }
      })(),
    ).rejects.toThrow(/initialize: mcpServers: server "bad": command: command must not be empty/);
    expect(api.requests).toHaveLength(0);
  });
});

describe('setMcpPermissionModeOverride', () => {
  it("'default' makes a server's tools ask even in bypassPermissions; null lifts it; 'auto' is refused with the reason; an unknown name warns", async () => {
    api = await startFakeApi([toolUse('mcp__calc__add', { a: 1, b: 1 }, 'a1'), text('asked'), toolUse('mcp__calc__add', { a: 2, b: 2 }, 'a2'), text('ran')]);
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (toolName) => {
      asked.push(toolName);
      return { behavior: 'deny', message: 'not now' };
    };
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, tempDir(), {
        mcpServers: { calc },
        canUseTool,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    const next = q[Symbol.asyncIterator]();
    const untilResult = async () => {
      for (;;) {
        const { value, done } = await next.next();
        if (done || value.type === 'result') return value;
      }
    };
    expect(await q.setMcpPermissionModeOverride('calc', 'default')).toEqual({});
    expect((await q.setMcpPermissionModeOverride('calk', 'default')).warning).toMatch(/no MCP server named "calk".*servers: calc/);
    await expect(q.setMcpPermissionModeOverride('calc', 'auto')).rejects.toThrow(/"auto".*auto-mode classifier/);

    prompts.push('first');
    await untilResult();
    expect(asked).toEqual(['mcp__calc__add']);
    expect(resultsById(api.requests[1]).a1).toEqual({ text: 'not now', isError: true });

    expect(await q.setMcpPermissionModeOverride('calc', null)).toEqual({});
    prompts.push('second');
    await untilResult();
    expect(asked).toEqual(['mcp__calc__add']);
    expect(resultsById(api.requests[3]).a2).toEqual({ text: '4', isError: false });
    prompts.end();
    await untilResult();
  });
});
