// The pieces of the MCP client that end-to-end runs do not reach easily: result content mapping,
// the host transport's failure paths, config parsing.
import { describe, expect, it } from 'vitest';
import { parseMcpConfigs, McpConfigError } from '../../../src/mcp/config.js';
import { HostMcpTransport } from '../../../src/mcp/hostTransport.js';
import { mcpToolName, toContent } from '../../../src/mcp/tools.js';
import { McpManager } from '../../../src/mcp/manager.js';

describe('MCP result content → tool_result content', () => {
  it('keeps text blocks apart, passes images as image blocks, shows embedded text resources', () => {
    expect(
      toContent({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
    expect(
      toContent({
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'see' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ]);
    expect(toContent({ content: [{ type: 'resource', resource: { uri: 'file:///x', text: 'inside' } }] })).toEqual([
      { type: 'text', text: 'inside' },
    ]);
    expect(toContent({ content: [], structuredContent: { n: 1 } })).toEqual([{ type: 'text', text: '{"n":1}' }]);
    // One text block stays a list: hosts read the result's blocks.
    expect(toContent({ content: [{ type: 'text', text: 'one' }] })).toEqual([{ type: 'text', text: 'one' }]);
  });

  it('caps text at MAX_MCP_OUTPUT_TOKENS × 4 characters and says so', () => {
    process.env.MAX_MCP_OUTPUT_TOKENS = '10';
    try {
      const [block] = toContent({ content: [{ type: 'text', text: 'x'.repeat(100) }] });
      const out = block.type === 'text' ? block.text : '';
      expect(out.startsWith(`${'x'.repeat(40)}\n`)).toBe(true);
      expect(out).toMatch(/truncated: 60 more characters/);
    } finally {
      delete process.env.MAX_MCP_OUTPUT_TOKENS;
    }
  });

  it('tool names: mcp__server__tool with characters the API refuses replaced', () => {
    expect(mcpToolName('my server', 'get.thing')).toBe('mcp__my_server__get_thing');
  });
});

describe('host MCP transport (mcp_message)', () => {
  it('a request gets the mcp_response; a failed control request becomes a JSON-RPC error for that id', async () => {
    const sent: unknown[] = [];
    const t = new HostMcpTransport(
      'srv',
      async (subtype, payload) => {
        sent.push({ subtype, ...payload });
        if ((payload.message as { method: string }).method === 'boom') throw new Error('host said no');
        return { mcp_response: { jsonrpc: '2.0', id: (payload.message as { id: number }).id, result: { ok: true } } };
      },
      1000,
    );
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await t.send({ jsonrpc: '2.0', id: 2, method: 'boom' });
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await new Promise((r) => setTimeout(r, 10));
    expect(sent).toEqual([
      { subtype: 'mcp_message', server_name: 'srv', message: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      { subtype: 'mcp_message', server_name: 'srv', message: { jsonrpc: '2.0', id: 2, method: 'boom' } },
      { subtype: 'mcp_message', server_name: 'srv', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    ]);
    // The notification's acknowledgement is not a message for the client.
    expect(got).toEqual([
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'host MCP server srv: host said no' } },
    ]);
  });
});

describe('--mcp-config parsing', () => {
  it('later values win; stdio is the default type; unknown types are kept as unsupported', () => {
    const m = parseMcpConfigs(
      [
        '{"mcpServers": {"a": {"command": "one"}, "b": {"type": "http", "url": "http://x/mcp", "headers": {"h": "v"}}}}',
        '{"mcpServers": {"a": {"command": "two", "args": ["-v"]}, "c": {"type": "ws", "url": "ws://x"}}}',
      ],
      '/',
    );
    expect(m.get('a')).toEqual({ command: 'two', args: ['-v'], env: {} });
    expect(m.get('b')).toEqual({ type: 'http', url: 'http://x/mcp', headers: { h: 'v' } });
    expect(m.get('c')).toMatchObject({ type: 'unsupported', reason: expect.stringMatching(/"ws" is not supported/) });
  });

  it("the host's in-process servers (type sdk) are not failures: they connect through initialize", () => {
    const m = parseMcpConfigs(['{"mcpServers": {"acp": {"type": "sdk", "name": "acp"}}}'], '/');
    expect(m.get('acp')).toEqual({ type: 'sdk' });
    const lines: string[] = [];
    const manager = new McpManager({ cwd: '/', env: {}, clientVersion: '0', log: (l) => lines.push(l) });
    manager.connectConfigured(m);
    expect(manager.statuses()).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('not JSON, or not {mcpServers}, is an McpConfigError', () => {
    expect(() => parseMcpConfigs(['{nope'], '/')).toThrow(McpConfigError);
    expect(() => parseMcpConfigs(['{"servers": {}}'], '/')).toThrow(/expected \{"mcpServers"/);
  });
});
