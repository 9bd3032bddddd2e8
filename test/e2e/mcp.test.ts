// MCP servers end to end: a real stdio MCP server (test/fixtures/mcp-calc-server.mjs) started from
// --mcp-config, its tools offered as mcp__calc__*, called through the permission pipeline, its
// failures reported (never a crash or a hang), its process gone when the agent exits; and the
// official SDK's in-process servers (createSdkMcpServer) reached through mcp_message.
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  lastToolResults,
  lastUserText,
  startFakeApi as startFakeApiServer,
  text,
  toolUse,
  type RecordedRequest,
} from '../fake-api/server.js';
import { alive, waitForFile, waitUntil } from '../processes.js';
import {
  calls,
  resultsById,
  runAgent,
  startAgent,
  startTestApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type Call,
  once,
} from './harness.js';
import { sdkOptions } from './sdkHost.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

const SERVER = mcpFixture('mcp-calc-server');

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

/**
 * One session with the calc server (--allowedTools mcp__calc) that several tests below read, each
 * for its own checks, instead of a session (and a server process) each. Its first turn adds, calls
 * the failing tool, adds 14 times more, reads the resources and has the server grow a tool; its
 * second turn multiplies with the tool the server added. The agent is started once, by whichever
 * test asks first.
 */
const calcSession = once(runCalcSession);
const sharedCalcSession = () => calcSession();

async function runCalcSession() {
  const cwd = tempDir();
  const pidFile = join(cwd, 'calc.pid');
  const adds = Array.from({ length: 14 }, (_, i): Call => ['mcp__calc__add', { a: i, b: 1 }]);
  const api = await startFakeApiServer([
    toolUse('mcp__calc__add', { a: 2, b: 40 }, 'c1'),
    toolUse('mcp__calc__fail', { why: 'division by zero' }, 'f1'),
    ...adds.map((c, i) => calls([c], `a${i}-`)),
    calls(
      [
        ['ListMcpResources', {}],
        ['ReadMcpResource', { server: 'calc', uri: 'ui://calc/widget' }],
        ['ReadMcpResource', { server: 'nope', uri: 'ui://x' }],
      ],
      'r',
    ),
    toolUse('mcp__calc__grow', {}, 'g1'),
    text('42 it is.'),
    toolUse('mcp__calc__mul', { a: 6, b: 7 }, 'm1'),
    text('42'),
  ]);
  try {
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig(pidFile), '--allowedTools', 'mcp__calc'],
      input: userLine('add') + userLine('multiply'),
    });
    /** The request that carries the result of tool call `id`. */
    const requestWith = (id: string) => api.requests.find((q) => lastToolResults(q).some((t) => t.tool_use_id === id))!;
    /** The first request of the second turn. */
    const secondTurn = api.requests.find((q) => lastUserText(q) === 'multiply')!;
    const results = r.json().filter((m) => m.type === 'result');
    return { r, api, pidFile, requestWith, secondTurn, results };
  } finally {
    await api.close();
  }
}

/** A session whose only MCP server's command does not exist (two tests read it). */
const ghostSession = once(runGhostSession);
const sharedGhostSession = () => ghostSession();

async function runGhostSession() {
  const api = await startFakeApiServer([text('Still here.')]);
  try {
    const config = JSON.stringify({ mcpServers: { ghost: { command: '/nonexistent/mcp-server-xyz' } } });
    const started = Date.now();
    const r = await runAgent({ api, args: [...STREAM_ARGS, '--mcp-config', config], input: userLine('hi') });
    return { r, api, elapsed: Date.now() - started };
  } finally {
    await api.close();
  }
}

describe.concurrent('MCP servers from --mcp-config (stdio)', () => {
  it('connects the server, offers mcp__calc__add with its schema, and the call returns the sum', async () => {
    const { r, api, pidFile, requestWith, results } = await sharedCalcSession();
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
    expect(resultsById(requestWith('c1')).c1).toEqual({ text: '42', isError: false });
    const toolResult = r.json().find((m) => m.type === 'user' && m.message.content?.[0]?.tool_use_id === 'c1')!;
    expect(toolResult.tool_use_result).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(results[0]).toMatchObject({ subtype: 'success', result: '42 it is.' });
    // The server process (which ignores the end of its stdin) is gone once the agent has exited.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntil(() => !alive(pid), 3000)).toBe(true);
  });

  it('many calls in one run leave no listener behind on the run signal (no MaxListenersExceededWarning)', async () => {
    const { r, requestWith, results } = await sharedCalcSession();
    expect(r.code, r.stderr).toBe(0);
    for (let i = 0; i < 14; i++)
      expect(resultsById(requestWith(`a${i}-1`))[`a${i}-1`]).toEqual({ text: String(i + 1), isError: false });
    expect(results.map((m) => m.subtype)).toEqual(['success', 'success']);
    expect(r.stderr).not.toMatch(/MaxListenersExceeded/);
  });

  it('a tool answering isError gives an is_error tool_result with its text; the run goes on', async () => {
    const { r, requestWith, results } = await sharedCalcSession();
    expect(r.code, r.stderr).toBe(0);
    expect(resultsById(requestWith('f1')).f1).toEqual({ text: 'calc failed: division by zero', isError: true });
    expect(requestWith('a0-1')).toBeDefined();
    expect(results[0]).toMatchObject({ subtype: 'success', result: '42 it is.' });
  });

  it('a server whose command does not exist is "failed" in init and on stderr; the run still answers', async () => {
    const { r, api, elapsed } = await sharedGhostSession();
    expect(r.code).toBe(0);
    expect(elapsed).toBeLessThan(10_000);
    expect(init(r).mcp_servers).toEqual([{ name: 'ghost', status: 'failed' }]);
    expect(r.stderr).toMatch(/MCP server "ghost" failed: .*ENOENT/);
    expect(offered(api.requests[0]).some((t) => t.name.startsWith('mcp__'))).toBe(false);
    expect(resultOf(r)).toMatchObject({ subtype: 'success', result: 'Still here.' });
  });

  it('permissions: default mode denies an MCP tool with no allow rule; --allowedTools mcp__calc lets it run', async (ctx) => {
    const api = await startTestApi(ctx, [toolUse('mcp__calc__add', { a: 1, b: 1 }, 'd1'), text('denied')]);
    const denied = await runAgent({
      api,
      args: [...STREAM_ARGS, '--mcp-config', calcConfig()],
      input: userLine('add'),
    });
    expect(resultsById(api.requests[1]).d1.isError).toBe(true);
    expect(resultOf(denied).permission_denials).toEqual([
      { tool_name: 'mcp__calc__add', tool_use_id: 'd1', tool_input: { a: 1, b: 1 } },
    ]);
    // The shared session's: the same call, with --allowedTools mcp__calc.
    const allowed = await sharedCalcSession();
    expect(resultsById(allowed.requestWith('c1')).c1).toEqual({ text: '42', isError: false });
    expect(allowed.results.map((m) => m.permission_denials)).toEqual([[], []]);
  });

  it('--disallowedTools mcp__calc__fail removes that tool; --strict-mcp-config is accepted; a config file path works', async (ctx) => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'mcp.json'), calcConfig());
    const api = await startTestApi(ctx, [text('ok')]);
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
});

/**
 * One official-SDK session whose in-process server (createSdkMcpServer) the model calls; the two
 * tests of it read it, each for its own checks.
 */
const weatherSession = once(runWeatherSession);
const sharedWeatherSession = () => weatherSession();

async function runWeatherSession() {
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
  const api = await startFakeApiServer([
    toolUse('mcp__weather__forecast', { city: 'Oslo' }, 'w1'),
    text('It will be sunny.'),
  ]);
  try {
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'weather in Oslo?',
      options: sdkOptions(api.url, cwd, { mcpServers: { weather }, allowedTools: ['mcp__weather'] }) as never,
    });
    for await (const m of q) messages.push(m);
    const initialization = (await q.initializationResult()) as Record<string, unknown>;
    return { api, weather, seen, messages, initialization };
  } finally {
    await api.close();
  }
}

describe.concurrent('SDK in-process MCP servers (initialize.sdkMcpServers → mcp_message)', () => {
  it('the model calls a createSdkMcpServer tool and gets its answer through the host', async () => {
    const { api, seen, messages } = await sharedWeatherSession();
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

describe.concurrent('initialize.sdkMcpServerManifests: the handshake the host already ran', () => {
  it("the official SDK sends its servers' handshake results; they are parked, and the server is never initialized again by us", async () => {
    const { api, weather, initialization } = await sharedWeatherSession();
    expect(initialization.sdk_mcp_manifests_parked).toEqual({ weather: 'parked' });
    // The tool list came from the manifest, and the call still went to the host.
    expect(offered(api.requests[0]).map((t) => t.name)).toContain('mcp__weather__forecast');
    expect(resultsById(api.requests[1]).w1).toEqual({ text: 'Sunny in Oslo', isError: false });
    // Only the SDK's own capture initialized the server: our client's initialize was answered locally.
    expect(weather.instance.server.getClientVersion()?.name).toBe('claude-code');
  });

  it('a raw host: with a manifest the first mcp_message is the tool call; a mismatched or malformed entry is handshaken live', async (ctx) => {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'h', version: '1' },
    };
    const toolsList = { tools: [{ name: 'ping', description: 'Ping', inputSchema: { type: 'object' } }] };
    const run = async (manifests: unknown) => {
      const api = await startTestApi(ctx, [toolUse('mcp__h__ping', {}, 'p1'), text('done')]);
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
      return { parked: initialized.response.response.sdk_mcp_manifests_parked, methods };
    };
    // Three sessions side by side, one per kind of manifest.
    const live = ['initialize', 'notifications/initialized', 'tools/list', 'tools/call'];
    const [parked, mismatched, malformed] = await Promise.all([
      run({ h: { initializeResult: init, toolsListResult: toolsList } }),
      run({ h: { initializeResult: { ...init, protocolVersion: '2024-11-05' } } }),
      run({ h: { toolsListResult: toolsList } }),
    ]);
    expect(parked).toEqual({ parked: { h: 'parked' }, methods: ['tools/call'] });
    expect(mismatched).toEqual({ parked: { h: 'protocol_version_mismatch' }, methods: live });
    expect(malformed).toEqual({ parked: { h: 'malformed' }, methods: live });
  });
});

describe.concurrent('what an editor host needs of an MCP tool call', () => {
  const META_SERVER = mcpFixture('mcp-meta-server');

  it('tools/call carries _meta with the tool_use id and a progress token; progress becomes tool_progress; content blocks stay apart', async (ctx) => {
    const api = await startTestApi(ctx, [toolUse('mcp__editor__edit', { path: 'a.ts' }, 'toolu_E1'), text('edited')]);
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

describe.concurrent('MCP resources as tools', () => {
  it('ListMcpResources lists the server resources, ReadMcpResource reads one; an unknown server is an is_error result', async () => {
    const { r, api, requestWith } = await sharedCalcSession();
    expect(r.code, r.stderr).toBe(0);
    expect(offered(api.requests[0]).map((t) => t.name)).toEqual(
      expect.arrayContaining(['ListMcpResources', 'ReadMcpResource']),
    );
    const results = resultsById(requestWith('r1'));
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
    // The session whose one server failed to start.
    const { r, api } = await sharedGhostSession();
    expect(r.code, r.stderr).toBe(0);
    expect(offered(api.requests[0]).map((t) => t.name)).not.toContain('ListMcpResources');
  });
});

describe.concurrent('tools/list_changed', () => {
  it('a server that adds a tool mid-session has it offered on the next turn, and the call works', async () => {
    const { r, api, requestWith, secondTurn } = await sharedCalcSession();
    expect(r.code, r.stderr).toBe(0);
    expect(resultsById(requestWith('g1')).g1.isError).toBe(false);
    expect(offered(api.requests[0]).map((t) => t.name)).not.toContain('mcp__calc__mul');
    expect(offered(secondTurn).map((t) => t.name)).toContain('mcp__calc__mul');
    expect(resultsById(requestWith('m1')).m1).toEqual({ text: '42', isError: false });
  });
});

// Not beside the tests above: a server must connect within MCP_TIMEOUT or within mcp_status's 50
// asks, or an interrupt be answered within a bound. A suite that is not concurrent runs after the concurrent ones have ended (vitest
// runs a file's consecutive concurrent suites together), and its tests one by one.
describe('MCP servers from --mcp-config (stdio), timed alone', () => {
  it('a server that never answers is "failed" after MCP_TIMEOUT, not a hang; good servers beside it connect', async (ctx) => {
    const cwd = tempDir();
    const silent = join(cwd, 'silent.mjs');
    writeFileSync(silent, "process.stderr.write('silent: up\\n'); setInterval(() => {}, 1000);\n");
    const api = await startTestApi(ctx, [text('ok')]);
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

  it('an interrupt while a server is still connecting ends the run at once, not after MCP_TIMEOUT', async (ctx) => {
    const cwd = tempDir();
    const silent = join(cwd, 'silent.cjs');
    const pidFile = join(cwd, 'silent.pid');
    writeFileSync(
      silent,
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);\n`,
    );
    const api = await startTestApi(ctx, [text('never asked')]);
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
