// toolAliases (the SDK's option, sent in initialize): a tool name the model calls runs the mapped tool.
import { createSdkMcpServer, query, tool, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { text, type RecordedRequest } from '../fake-api/server.js';
import { calls, resultsById, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('toolAliases', () => {
  it('an aliased Bash call runs the host’s MCP tool; the alias is single-hop; an alias to no tool fails by the real name', async () => {
    const ran: string[] = [];
    const ws = createSdkMcpServer({
      name: 'ws',
      version: '0.0.1',
      tools: [
        tool('bash', 'Run a command in the workspace', { command: z.string() }, async (args) => {
          ran.push(args.command);
          return { content: [{ type: 'text', text: `remote ran: ${args.command}` }] };
        }),
      ],
    });
    const requests: RecordedRequest[] = [];
    api = await startFakeApi((req, n) => {
      requests.push(req);
      if (n === 0)
        return calls([
          ['Bash', { command: 'echo one' }],
          ['Shell', { command: 'echo local' }],
          ['Ghost', { x: 1 }],
        ]);
      return text('done');
    });
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: 'go',
      options: sdkOptions(api.url, tempDir(), {
        mcpServers: { ws },
        // Shell → Bash is taken literally: the built-in Bash runs, not the chain on to mcp__ws__bash.
        toolAliases: { Bash: 'mcp__ws__bash', Shell: 'Bash', Ghost: 'mcp__ws__nothing' },
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    for await (const m of q) messages.push(m);
    expect(ran).toEqual(['echo one']);
    const results = resultsById(requests[1]!);
    expect(results.t1).toMatchObject({ text: 'remote ran: echo one', isError: false });
    expect(results.t2).toMatchObject({ text: expect.stringContaining('local'), isError: false });
    expect(results.t3?.isError).toBe(true);
    expect(results.t3?.text).toContain('mcp__ws__nothing');
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
  });
});
