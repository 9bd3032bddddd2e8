// MCP servers end to end: a real stdio MCP server (test/fixtures/mcp-calc-server.mjs) started from
// --mcp-config, its tools offered as mcp__calc__*, called through the permission pipeline, its
// failures reported (never a crash or a hang), its process gone when the agent exits; and the
// official SDK's in-process servers (createSdkMcpServer) reached through mcp_message.
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lastToolResults, text, toolUse, type RecordedRequest } from '../fake-api/server.js';
import { alive, waitForFile, waitUntil } from '../processes.js';
import {
  calls,
  resultsById,
  runAgent,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type FakeApi,
} from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

const SERVER = fileURLToPath(new URL('../fixtures/mcp-calc-server.mjs', import.meta.url));

function calcConfig(pidFile?: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    mcpServers: {
      calc: {
        command: process.execPath,
        args: [SERVER],
        ...(pidFile ? { env: { MCP_CALC_PID_FILE: pidFile, MCP_CALC_STAY: '1' } } : {}),
      },
      ...extra,
    },
  });
}

const init = (r: { json: () => Array<Record<string, any>> }) =>
  r.json().find((m) => m.type === 'system' && m.subtype === 'init')!;
const resultOf = (r: { json: () => Array<Record<string, any>> }) =>
  r
    .json()
    .filter((m) => m.type === 'result')
    .pop()!;
const offered = (req: RecordedRequest) =>
  (req.body.tools ?? []) as Array<{ name: string; description: string; input_schema: any }>;

describe('MCP servers from --mcp-config (stdio)', () => {
  it('connects the server, offers mcp__calc__add with its schema, and the call returns the sum', async () => {
    const cwd = tempDir();
    const pidFile = join(cwd, 'calc.pid');
    api = await startFakeApi([toolUse('mcp__calc__add', { a: 2, b: 40 }, 'c1'), text('42 it is.')]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(pidFile), '--allowedTools', 'mcp__calc'],
      input: userLine('add'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(init(r).mcp_servers).toEqual([{ name: 'calc', status: 'connected' }]);
    expect(init(r).tools).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__fail', 'Bash']));
    const add = offered(api.requests[0]).find((t) => t.name === 'mcp__calc__add')!;
    expect(add.description).toBe('Add two numbers');
    expect(add.input_schema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add.input_schema.$schema).toBeUndefined();
    expect(resultsById(api.requests[1]).c1).toEqual({ text: '42', isError: false });
    const toolResult = r.json().find((m) => m.type === 'user' && m.message.content?.[0]?.tool_use_id === 'c1')!;
    expect(toolResult.tool_use_result).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: '42 it is.' });
    // The server process (which ignores the end of its stdin) is gone once the agent has exited.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
  });

  it('many calls in one run leave no listener behind on the run signal (no MaxListenersExceededWarning)', async () => {
    const adds = Array.from(
      { length: 14 },
      (_, i) => ['mcp__calc__add', { a: i, b: 1 }] as [string, Record<string, unknown>],
    );
    api = await startFakeApi([...adds.map((c, i) => calls([c], `a${i}-`)), text('added')]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(), '--allowedTools', 'mcp__calc'],
      input: userLine('add many'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: 'added' });
    expect(r.stderr).not.toMatch(/MaxListenersExceeded/);
  });

  it('a tool answering isError gives an is_error tool_result with its text; the run goes on', async () => {
    api = await startFakeApi([toolUse('mcp__calc__fail', { why: 'division by zero' }, 'f1'), text('It failed.')]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(), '--allowedTools', 'mcp__calc__fail'],
      input: userLine('fail'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(resultsById(api.requests[1]).f1).toEqual({ text: 'calc failed: division by zero', isError: true });
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: 'It failed.' });
  });

  it('a server whose command does not exist is "failed" in init and on stderr; the run still answers', async () => {
    api = await startFakeApi([text('Still here.')]);
    const config = JSON.stringify({ mcpServers: { ghost: { command: '/nonexistent/mcp-server-xyz' } } });
    const started = Date.now();
    const r = await runAgent({ api, args: [...STREAM_ARGS, '--mcp-config', config], input: userLine('hi') });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(init(r).mcp_servers).toEqual([{ name: 'ghost', status: 'failed' }]);
    expect(r.stderr).toMatch(/MCP server "ghost" failed: .*ENOENT/);
    expect(offered(api.requests[0]).some((t) => t.name.startsWith('mcp__'))).toBe(false);
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: 'Still here.' });
  });

  it('a server that never answers is "failed" after MCP_TIMEOUT, not a hang; good servers beside it connect', async () => {
    const cwd = tempDir();
    const silent = join(cwd, 'silent.mjs');
    writeFileSync(silent, "process.stderr.write('silent: up\\n'); setInterval(() => {}, 1000);\n");
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({
      api,
      cwd,
      env: { MCP_TIMEOUT: '3000' },
      args: [
        ...STREAM_ARGS,
        '--mcp-config',
        calcConfig(undefined, { silent: { command: process.execPath, args: [silent] } }),
      ],
      input: userLine('hi'),
    });
    expect(r.code).toBe(0);
    expect(init(r).mcp_servers).toEqual([
      { name: 'calc', status: 'connected' },
      { name: 'silent', status: 'failed' },
    ]);
    // The reason and the server's own stderr tail are told on our stderr, never on stdout.
    expect(r.stderr).toMatch(/MCP server "silent" failed: no answer within 3 s \(MCP_TIMEOUT\)\nsilent: up/);
    expect(r.stdout).not.toContain('silent: up');
    expect(r.stdout).not.toContain('calc server: starting');
  });

  it('an interrupt while a server is still connecting ends the run at once, not after MCP_TIMEOUT', async () => {
    const cwd = tempDir();
    const silent = join(cwd, 'silent.cjs');
    const pidFile = join(cwd, 'silent.pid');
    writeFileSync(
      silent,
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);\n`,
    );
    api = await startFakeApi([text('never asked')]);
    const p = startAgent({
      api,
      cwd,
      env: { MCP_TIMEOUT: '20000' },
      args: [
        ...STREAM_ARGS,
        '--mcp-config',
        JSON.stringify({ mcpServers: { silent: { command: process.execPath, args: [silent] } } }),
      ],
    });
    p.sendRaw(userLine('hi'));
    const pid = Number(await waitForFile(pidFile));
    const asked = Date.now();
    p.send({ type: 'control_request', request_id: 'i1', request: { subtype: 'interrupt' } });
    const result = await p.waitFor((m) => m.type === 'result', 5000);
    expect(Date.now() - asked).toBeLessThan(3000);
    expect(result.is_error).toBe(true);
    expect(api.requests).toHaveLength(0);
    // The server that never connected (and ignores the end of its stdin) is ended with us too.
    p.endInput();
    await p.exited;
    expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
  });

  it('permissions: default mode denies an MCP tool with no allow rule; --allowedTools mcp__calc lets it run', async () => {
    api = await startFakeApi([
      toolUse('mcp__calc__add', { a: 1, b: 1 }, 'd1'),
      text('denied'),
      toolUse('mcp__calc__add', { a: 1, b: 1 }, 'a1'),
      text('allowed'),
    ]);
    const denied = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig()],
      input: userLine('add'),
    });
    expect(resultsById(api.requests[1]).d1.isError).toBe(true);
    expect(resultOf(denied).permission_denials).toEqual([
      { tool_name: 'mcp__calc__add', tool_use_id: 'd1', tool_input: { a: 1, b: 1 } },
    ]);
    const allowed = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(), '--allowedTools', 'mcp__calc'],
      input: userLine('add'),
    });
    expect(resultsById(api.requests[3]).a1).toEqual({ text: '2', isError: false });
    expect(resultOf(allowed).permission_denials).toEqual([]);
  });

  it('--disallowedTools mcp__calc__fail removes that tool; --strict-mcp-config is accepted; a config file path works', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'mcp.json'), calcConfig());
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--mcp-config', 'mcp.json', '--strict-mcp-config', '--disallowedTools', 'mcp__calc__fail'],
      input: userLine('hi'),
    });
    expect(r.code, r.stderr).toBe(0);
    const names = offered(api.requests[0]).map((t) => t.name);
    expect(names).toContain('mcp__calc__add');
    expect(names).not.toContain('mcp__calc__fail');
  });

  it('a malformed --mcp-config stops the start with exit 2 and a clear line', async () => {
    const bad = await runAgent({ args: ['-p', 'hi', '--mcp-config', '{"mcpServers": {"x": {"type": "http"}}}'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mcp-config: server "x": url/);
    const missing = await runAgent({ args: ['-p', 'hi', '--mcp-config', 'no-such-file.json'] });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--mcp-config: cannot read no-such-file.json: ENOENT/);
  });

  it('mcp_status answers with serverInfo; SIGTERM takes the server process with us', async () => {
    const cwd = tempDir();
    const pidFile = join(cwd, 'calc.pid');
    const p = startAgent({ cwd, args: [...STREAM_ARGS, '--mcp-config', calcConfig(pidFile)] });
    const pid = Number(await waitForFile(pidFile));
    // While it connects the answer says "pending"; ask until it is settled.
    let status: Record<string, any> = {};
    for (let i = 0; i < 50; i++) {
      p.send({ type: 'control_request', request_id: `s${i}`, request: { subtype: 'mcp_status' } });
      status = await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === `s${i}`);
      expect(status.response.response.mcpServers[0].status).toMatch(/^(pending|connected)$/);
      if (status.response.response.mcpServers[0].status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status.response).toMatchObject({
      subtype: 'success',
      response: { mcpServers: [{ name: 'calc', status: 'connected', serverInfo: { name: 'calc', version: '1.2.3' } }] },
    });
    expect(alive(pid)).toBe(true);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(143);
    expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
  });
});

describe('SDK in-process MCP servers (initialize.sdkMcpServers → mcp_message)', () => {
  it('the model calls a createSdkMcpServer tool and gets its answer through the host', async () => {
    const cwd = tempDir();
    const seen: Array<{ city: string }> = [];
    const weather = createSdkMcpServer({
      name: 'weather',
      version: '0.0.1',
      tools: [
        tool('forecast', 'The forecast for a city', { city: z.string() }, async (args) => {
          seen.push(args);
          return { content: [{ type: 'text', text: `Sunny in ${args.city}` }] };
        }),
      ],
    });
    api = await startFakeApi([toolUse('mcp__weather__forecast', { city: 'Oslo' }, 'w1'), text('It will be sunny.')]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'weather in Oslo?',
      options: sdkOptions(api.url, cwd, { mcpServers: { weather }, allowedTools: ['mcp__weather'] }) as never,
    });
    for await (const m of q) messages.push(m);
    const initMsg = messages.find((m) => m.type === 'system' && m.subtype === 'init') as any;
    expect(initMsg.mcp_servers).toEqual([{ name: 'weather', status: 'connected' }]);
    expect(initMsg.tools).toContain('mcp__weather__forecast');
    const offeredTool = offered(api.requests[0]).find((t) => t.name === 'mcp__weather__forecast')!;
    expect(offeredTool.description).toBe('The forecast for a city');
    expect(offeredTool.input_schema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
    expect(seen).toEqual([{ city: 'Oslo' }]);
    expect(resultsById(api.requests[1]).w1).toEqual({ text: 'Sunny in Oslo', isError: false });
    expect(messages.find((m) => m.type === 'result')).toMatchObject({
      subtype: 'success',
      result: 'It will be sunny.',
    });
  });
});

describe('initialize.sdkMcpServerManifests: the handshake the host already ran', () => {
  it("the official SDK sends its servers' handshake results; they are parked, and the server is never initialized again by us", async () => {
    const cwd = tempDir();
    const weather = createSdkMcpServer({
      name: 'weather',
      version: '0.0.1',
      tools: [
        tool('forecast', 'The forecast', { city: z.string() }, async (a) => ({
          content: [{ type: 'text', text: `Rain in ${a.city}` }],
        })),
      ],
    });
    api = await startFakeApi([toolUse('mcp__weather__forecast', { city: 'Bergen' }, 'w1'), text('rain')]);
    const q = query({
      prompt: 'weather?',
      options: sdkOptions(api.url, cwd, { mcpServers: { weather }, allowedTools: ['mcp__weather'] }) as never,
    });
    const messages: SDKMessage[] = [];
    for await (const m of q) messages.push(m);
    expect(((await q.initializationResult()) as Record<string, unknown>).sdk_mcp_manifests_parked).toEqual({
      weather: 'parked',
    });
    // The tool list came from the manifest, and the call still went to the host.
    expect(offered(api.requests[0]).map((t) => t.name)).toContain('mcp__weather__forecast');
    expect(resultsById(api.requests[1]).w1).toEqual({ text: 'Rain in Bergen', isError: false });
    // Only the SDK's own capture initialized the server: our client's initialize was answered locally.
    expect(weather.instance.server.getClientVersion()?.name).toBe('claude-code');
  });

  it('a raw host: with a manifest the first mcp_message is the tool call; a mismatched or malformed entry is handshaken live', async () => {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'h', version: '1' },
    };
    const toolsList = { tools: [{ name: 'ping', description: 'Ping', inputSchema: { type: 'object' } }] };
    const run = async (manifests: unknown) => {
      api = await startFakeApi([toolUse('mcp__h__ping', {}, 'p1'), text('done')]);
      const p = startAgent({ api, args: [...STREAM_ARGS, '--allowedTools', 'mcp__h'] });
      const methods: string[] = [];
      let seen = 0;
      // Answer each mcp_message as the host's server would, and note its method.
      p.child.stdout!.on('data', () => {
        for (; seen < p.lines.length; seen++) answer(JSON.parse(p.lines[seen]));
      });
      const answer = (l: Record<string, any>) => {
        if (l.type !== 'control_request' || l.request.subtype !== 'mcp_message') return;
        const msg = l.request.message;
        methods.push(msg.method);
        const result =
          msg.method === 'initialize'
            ? init
            : msg.method === 'tools/list'
              ? toolsList
              : msg.method === 'tools/call'
                ? { content: [{ type: 'text', text: 'pong' }] }
                : {};
        p.send({
          type: 'control_response',
          response: {
            subtype: 'success',
            request_id: l.request_id,
            response: { mcp_response: { jsonrpc: '2.0', id: msg.id ?? 0, result } },
          },
        });
      };
      p.send({
        type: 'control_request',
        request_id: 'i1',
        request: { subtype: 'initialize', sdkMcpServers: ['h'], sdkMcpServerManifests: manifests },
      });
      const initialized = await p.waitFor((l) => l.type === 'control_response' && l.response.request_id === 'i1');
      p.send(JSON.parse(userLine('ping')));
      await p.waitFor((l) => l.type === 'result');
      p.endInput();
      await p.exited;
      await api.close();
      api = undefined;
      return { parked: initialized.response.response.sdk_mcp_manifests_parked, methods };
    };
    expect(await run({ h: { initializeResult: init, toolsListResult: toolsList } })).toEqual({
      parked: { h: 'parked' },
      methods: ['tools/call'],
    });
    const live = ['initialize', 'notifications/initialized', 'tools/list', 'tools/call'];
    expect(await run({ h: { initializeResult: { ...init, protocolVersion: '2024-11-05' } } })).toEqual({
      parked: { h: 'protocol_version_mismatch' },
      methods: live,
    });
    expect(await run({ h: { toolsListResult: toolsList } })).toEqual({ parked: { h: 'malformed' }, methods: live });
  });
});

describe('what an editor host needs of an MCP tool call', () => {
  const META_SERVER = fileURLToPath(new URL('../fixtures/mcp-meta-server.mjs', import.meta.url));

  it('tools/call carries _meta with the tool_use id and a progress token; progress becomes tool_progress; content blocks stay apart', async () => {
    api = await startFakeApi([toolUse('mcp__editor__edit', { path: 'a.ts' }, 'toolu_E1'), text('edited')]);
    const config = JSON.stringify({ mcpServers: { editor: { command: process.execPath, args: [META_SERVER] } } });
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', config, '--allowedTools', 'mcp__editor'],
      input: userLine('edit'),
    });
    expect(r.code).toBe(0);
    const lines = r.json();
    const toolResult = lines.find((m) => m.type === 'user' && m.message.content[0]?.tool_use_id === 'toolu_E1')!;
    const content = toolResult.message.content[0].content;
    expect(content).toEqual([
      { type: 'text', text: expect.stringMatching(/^edited a\.ts for toolu_E1 \(progressToken \d+\)$/) },
      { type: 'text', text: '--- a.ts\n+++ a.ts\n-old\n+new' },
    ]);
    expect(toolResult.tool_use_result.content).toHaveLength(2);
    const progress = lines.filter((m) => m.type === 'tool_progress' && m.tool_use_id === 'toolu_E1');
    expect(progress.length).toBe(2);
    expect(progress[0]).toMatchObject({ tool_name: 'mcp__editor__edit', parent_tool_use_id: null });
    // The model sees the two blocks too.
    const seen = lastToolResults(api.requests[1])[0];
    expect(seen.content).toHaveLength(2);
  });
});

describe('MCP resources as tools', () => {
  it('ListMcpResources lists the server resources, ReadMcpResource reads one; an unknown server is an is_error result', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls(
        [
          ['ListMcpResources', {}],
          ['ReadMcpResource', { server: 'calc', uri: 'ui://calc/widget' }],
          ['ReadMcpResource', { server: 'nope', uri: 'ui://x' }],
        ],
        'r',
      ),
      text('read'),
    ]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig()],
      input: userLine('resources'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(offered(api.requests[0]).map((t) => t.name)).toEqual(
      expect.arrayContaining(['ListMcpResources', 'ReadMcpResource']),
    );
    const results = resultsById(api.requests[1]);
    expect(JSON.parse(results.r1.text)).toEqual([
      { uri: 'ui://calc/widget', name: 'widget', mimeType: 'text/html', server: 'calc' },
    ]);
    expect(results.r1.isError).toBe(false);
    expect(JSON.parse(results.r2.text)).toEqual({
      contents: [{ uri: 'ui://calc/widget', mimeType: 'text/html', text: '<p>calc widget</p>' }],
    });
    expect(results.r3).toEqual({
      text: expect.stringMatching(/Server "nope" not found.*Servers with resources: calc/),
      isError: true,
    });
  });

  it('the resource tools are not offered when no server has resources', async () => {
    api = await startFakeApi([text('ok')]);
    const r = await runAgent({ api, cwd: tempDir(), args: [...STREAM_ARGS], input: userLine('hi') });
    expect(r.code, r.stderr).toBe(0);
    expect(offered(api.requests[0]).map((t) => t.name)).not.toContain('ListMcpResources');
  });
});

describe('tools/list_changed', () => {
  it('a server that adds a tool mid-session has it offered on the next turn, and the call works', async () => {
    api = await startFakeApi([
      toolUse('mcp__calc__grow', {}, 'g1'),
      text('grown'),
      toolUse('mcp__calc__mul', { a: 6, b: 7 }, 'm1'),
      text('42'),
    ]);
    const r = await runAgent({
      api,
      cwd: tempDir(),
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(), '--allowedTools', 'mcp__calc'],
      input: userLine('grow') + userLine('multiply'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(offered(api.requests[0]).map((t) => t.name)).not.toContain('mcp__calc__mul');
    expect(offered(api.requests[2]).map((t) => t.name)).toContain('mcp__calc__mul');
    expect(resultsById(api.requests[3]).m1).toEqual({ text: '42', isError: false });
  });
});
