// initialize.sdkMcpServerManifests: which entries are used, and the handshake answered from one.
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLIENT_PROTOCOL_VERSION, ManifestReplay, parkManifests } from '../../../src/mcp/hostManifests.js';

const init = {
  protocolVersion: CLIENT_PROTOCOL_VERSION,
  capabilities: { tools: {} },
  serverInfo: { name: 's', version: '1' },
};
const tools = { tools: [{ name: 't', inputSchema: { type: 'object' } }] };

describe('parkManifests', () => {
  it('is the version the MCP client asks for', () => {
    expect(CLIENT_PROTOCOL_VERSION).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('judges each entry of a named server, and leaves the others out', () => {
    const { parked, verdicts } = parkManifests(
      {
        a: { initializeResult: init, toolsListResult: tools },
        b: { initializeResult: { ...init, protocolVersion: '2024-11-05' } },
        c: { toolsListResult: tools },
        d: { initializeResult: init },
        unnamed: { initializeResult: init },
      },
      ['a', 'b', 'c', 'd', 'e'],
      (name) => name === 'd',
    );
    expect(verdicts).toEqual({ a: 'parked', b: 'protocol_version_mismatch', c: 'malformed', d: 'already_connected' });
    expect([...parked.keys()]).toEqual(['a']);
  });

  it('a value that is not an object is malformed for every named server', () => {
    expect(parkManifests([], ['a', 'b'], () => false).verdicts).toEqual({ a: 'malformed', b: 'malformed' });
  });
});

describe('ManifestReplay', () => {
  it('answers initialize and the first tools/list, swallows initialized, then lets everything through', () => {
    const r = new ManifestReplay({ initializeResult: init, toolsListResult: tools });
    expect(
      r.local({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: CLIENT_PROTOCOL_VERSION },
      } as never),
    ).toEqual({ jsonrpc: '2.0', id: 0, result: init });
    expect(r.local({ jsonrpc: '2.0', method: 'notifications/initialized' } as never)).toBeNull();
    expect(r.local({ jsonrpc: '2.0', id: 1, method: 'tools/list' } as never)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: tools,
    });
    expect(r.local({ jsonrpc: '2.0', id: 2, method: 'tools/list' } as never)).toBeUndefined();
    expect(r.local({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 't' } } as never)).toBeUndefined();
  });

  it('a client asking another version goes to the host for everything', () => {
    const r = new ManifestReplay({ initializeResult: init, toolsListResult: tools });
    expect(
      r.local({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05' } } as never),
    ).toBeUndefined();
    expect(r.local({ jsonrpc: '2.0', id: 1, method: 'tools/list' } as never)).toBeUndefined();
  });

  it('without a tools list, only the handshake is answered', () => {
    const r = new ManifestReplay({ initializeResult: init });
    expect(
      r.local({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: CLIENT_PROTOCOL_VERSION },
      } as never),
    ).toBeDefined();
    expect(r.local({ jsonrpc: '2.0', method: 'notifications/initialized' } as never)).toBeNull();
    expect(r.local({ jsonrpc: '2.0', id: 1, method: 'tools/list' } as never)).toBeUndefined();
  });
});
