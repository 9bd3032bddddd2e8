// MCP as the official SDK configures it: servers delivered in the initialize request
// (mcpServersDelivery 'initialize') and setMcpPermissionModeOverride, against a real stdio server.
import { query, type CanUseTool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { calls, resultsById, runAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

const CALC = mcpFixture('mcp-calc-server');
const ASKER = mcpFixture('mcp-elicit-server');
const PERMIT = mcpFixture('mcp-permit-server');
const calc = { type: 'stdio', command: process.execPath, args: [CALC] };

let api: FakeApi | undefined;

describe('MCP servers from the SDK host', () => {
  it("mcpServersDelivery 'initialize': the servers come in the initialize request, connect, and their tools run", async () => {
    api = await startFakeApi([toolUse('mcp__calc__add', { a: 2, b: 3 }, 'c1'), text('five')]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'add',
      options: sdkOptions(api.url, tempDir(), {
        mcpServers: { calc },
        mcpServersDelivery: 'initialize',
        allowedTools: ['mcp__calc'],
      }) as never,
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
    expect(status).toEqual([
      expect.objectContaining({ name: 'calc', status: 'connected', scope: 'dynamic', source: 'dynamic' }),
    ]);
  });

  it("mcpServersDelivery 'initialize' with a malformed server: the error answer ends the SDK's session, naming the server", async () => {
    api = await startFakeApi([text('never')]);
    const q = query({
      prompt: 'hi',
      options: sdkOptions(api.url, tempDir(), {
        mcpServers: { bad: { type: 'stdio', command: '' } },
        mcpServersDelivery: 'initialize',
      }) as never,
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
    api = await startFakeApi([
      toolUse('mcp__calc__add', { a: 1, b: 1 }, 'a1'),
      text('asked'),
      toolUse('mcp__calc__add', { a: 2, b: 2 }, 'a2'),
      text('ran'),
    ]);
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
    expect((await q.setMcpPermissionModeOverride('calk', 'default')).warning).toMatch(
      /no MCP server named "calk".*servers: calc/,
    );
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

describe('--permission-prompt-tool mcp__server__tool', () => {
  it('the MCP tool decides every ask: allow with updatedInput, deny; malformed, wrong-shaped and error answers deny with the reason; the model is not offered the tool', async () => {
    const cwd = tempDir();
    const log = join(tempDir(), 'permit.log');
    const permit = { type: 'stdio', command: process.execPath, args: [PERMIT], env: { MCP_PERMIT_LOG: log } };
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'touch allowed' }],
        ['Bash', { command: 'touch denied' }],
        ['Bash', { command: 'touch malformed' }],
        ['Bash', { command: 'touch wrongshape' }],
        ['Bash', { command: 'touch erroring' }],
      ]),
      text('done'),
    ]);
    const messages: SDKMessage[] = [];
    for await (const m of query({
      prompt: 'go',
      options: sdkOptions(api.url, cwd, {
        mcpServers: { permit },
        permissionPromptToolName: 'mcp__permit__decide',
      }) as never,
    }))
      messages.push(m);
    expect((messages.find((m) => m.type === 'result') as Record<string, unknown>).is_error).toBe(false);
    const r = resultsById(api.requests[1]);
    expect(r.t1.isError).toBe(false);
    expect(existsSync(join(cwd, 'rewritten'))).toBe(true);
    expect(existsSync(join(cwd, 'allowed'))).toBe(false);
    expect(r.t2).toEqual({ text: 'the permit server says no', isError: true });
    expect(r.t3.text).toMatch(
      /permission prompt tool mcp__permit__decide answered with text that is not JSON: "sure, go ahead"/,
    );
    expect(r.t4.text).toMatch(
      /mcp__permit__decide answered \{"behavior":"maybe"\}: behavior must be "allow" or "deny"/,
    );
    expect(r.t5.text).toMatch(/mcp__permit__decide answered with an error: permit database is down/);
    for (const t of ['t3', 't4', 't5']) expect(r[t].isError).toBe(true);
    for (const f of ['denied', 'malformed', 'wrongshape', 'erroring']) expect(existsSync(join(cwd, f))).toBe(false);
    const asked = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(asked[0]).toEqual({ tool_name: 'Bash', input: { command: 'touch allowed' }, tool_use_id: 't1' });
    expect(asked).toHaveLength(5);
    const offered = ((api.requests[0].body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toContain('Bash');
    expect(offered).not.toContain('mcp__permit__decide');
  });

  it('a --permission-prompt-tool that is neither stdio nor mcp__server__tool stops the start with exit 2', async () => {
    api = await startFakeApi([text('never')]);
    const r = await runAgent({ api, args: ['-p', 'hi', '--permission-prompt-tool', 'decide'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--permission-prompt-tool decide: expected "stdio" \(ask the host\) or an MCP tool named mcp__<server>__<tool>/,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('a prompt tool no connected server has: every ask is denied, naming the tool and the failed server', async () => {
    const cwd = tempDir();
    api = await startFakeApi([calls([['Bash', { command: 'touch x' }]]), text('done')]);
    const broken = { type: 'stdio', command: '/nonexistent/permit-server' };
    for await (const _ of query({
      prompt: 'go',
      options: sdkOptions(api.url, cwd, {
        mcpServers: { permit: broken },
        permissionPromptToolName: 'mcp__permit__decide',
      }) as never,
    })) {
      /* drain */
    }
    expect(resultsById(api.requests[1]).t1.text).toMatch(
      /mcp__permit__decide could not be called: is not a tool of any connected MCP server \(not connected: permit \(failed\)\)/,
    );
    expect(existsSync(join(cwd, 'x'))).toBe(false);
  });
});

describe('MCP elicitation', () => {
  const asker = { type: 'stdio', command: process.execPath, args: [ASKER] };
  const askBoth = () =>
    calls([
      ['mcp__asker__ask_name', {}],
      ['mcp__asker__login', {}],
    ]);

  it("form and url requests reach the SDK's onElicitation; its answers go back to the server; url completion becomes elicitation_complete", async () => {
    api = await startFakeApi([askBoth(), text('done')]);
    const asked: Array<Record<string, unknown>> = [];
    const onElicitation = async (req: Record<string, unknown>) => {
      asked.push(req);
      return req.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada', age: 36 } };
    };
    const messages: SDKMessage[] = [];
    for await (const m of query({
      prompt: 'go',
      options: sdkOptions(api.url, tempDir(), {
        mcpServers: { asker },
        allowedTools: ['mcp__asker'],
        onElicitation,
      }) as never,
    }))
      messages.push(m);
    const r = resultsById(api.requests[1]);
    expect(r.t1).toEqual({ text: 'action=accept content={"name":"Ada","age":36}', isError: false });
    expect(r.t2).toEqual({ text: 'action=accept content=null', isError: false });
    expect(asked[0]).toMatchObject({
      serverName: 'asker',
      message: 'What is your name?',
      mode: 'form',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name' }, age: { type: 'number' } },
        required: ['name'],
      },
    });
    expect(asked[1]).toMatchObject({
      serverName: 'asker',
      message: 'Log in to continue',
      mode: 'url',
      url: 'https://login.example/x',
      elicitationId: 'el-42',
    });
    expect(
      messages.find((m) => m.type === 'system' && (m as { subtype?: string }).subtype === 'elicitation_complete'),
    ).toMatchObject({ mcp_server_name: 'asker', elicitation_id: 'el-42' });
  });

  it('a host without onElicitation declines (the SDK answers); Elicitation hooks answer first and ElicitationResult hooks see the answer', async () => {
    api = await startFakeApi([askBoth(), text('done'), toolUse('mcp__asker__ask_name', {}, 'h1'), text('done')]);
    for await (const _ of query({
      prompt: 'go',
      options: sdkOptions(api.url, tempDir(), { mcpServers: { asker }, allowedTools: ['mcp__asker'] }) as never,
    })) {
      /* drain */
    }
    expect(resultsById(api.requests[1]).t1.text).toBe('action=decline content=null');

    const results: Array<Record<string, unknown>> = [];
    const hooks = {
      Elicitation: [
        {
          matcher: 'asker',
          hooks: [
            async () => ({
              hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { name: 'Hook' } },
            }),
          ],
        },
      ],
      ElicitationResult: [
        {
          hooks: [
            async (input: Record<string, unknown>) => {
              results.push(input);
              return {
                hookSpecificOutput: {
                  hookEventName: 'ElicitationResult',
                  action: 'accept',
                  content: { name: 'Hook, amended' },
                },
              };
            },
          ],
        },
      ],
    };
    for await (const _ of query({
      prompt: 'go',
      options: sdkOptions(api.url, tempDir(), { mcpServers: { asker }, allowedTools: ['mcp__asker'], hooks }) as never,
    })) {
      /* drain */
    }
    expect(resultsById(api.requests[3]).h1.text).toBe('action=accept content={"name":"Hook, amended"}');
    expect(results[0]).toMatchObject({
      hook_event_name: 'ElicitationResult',
      mcp_server_name: 'asker',
      mode: 'form',
      action: 'accept',
      content: { name: 'Hook' },
    });
  });

  it('with no host (-p) the request is declined at once and told on stderr', async () => {
    api = await startFakeApi([toolUse('mcp__asker__ask_name', {}, 'p1'), text('done')]);
    const config = JSON.stringify({ mcpServers: { asker } });
    const r = await runAgent({ api, args: ['-p', 'go', '--mcp-config', config, '--allowedTools', 'mcp__asker'] });
    expect(r.code).toBe(0);
    expect(resultsById(api.requests[1]).p1.text).toBe('action=decline content=null');
    expect(r.stderr).toMatch(
      /MCP server "asker" asked for input \(form: "What is your name\?"\); answered decline: no host or hook can answer/,
    );
  });
});
