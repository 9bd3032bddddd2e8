import { describe, expect, it } from 'vitest';
import { isMcpPromptTool, mcpPermissionPrompt, parsePromptAnswer } from '../../../src/mcp/permissionPromptTool.js';

const answer = (text: string, isError = false) => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError } : {}),
});
const parse = (text: string, isError = false) =>
  parsePromptAnswer('mcp__p__decide', answer(text, isError), { command: 'x' });

describe('the MCP permission prompt tool answer', () => {
  it('allow keeps the updatedInput (or the input), deny keeps the message and interrupt', () => {
    expect(parse('{"behavior":"allow","updatedInput":{"command":"y"}}')).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'y' },
    });
    expect(parse('{"behavior":"allow"}')).toEqual({ behavior: 'allow', updatedInput: { command: 'x' } });
    expect(parse('{"behavior":"deny","message":"no","interrupt":true}')).toEqual({
      behavior: 'deny',
      message: 'no',
      interrupt: true,
    });
  });

  it('every malformed answer is a denial that says what is wrong', () => {
    const msg = (text: string, isError = false) =>
      (parse(text, isError) as { behavior: string; message: string }).message;
    expect(parse('{"behavior":"maybe"}').behavior).toBe('deny');
    expect(msg('{"behavior":"maybe"}')).toMatch(/answered \{"behavior":"maybe"\}: behavior must be "allow" or "deny"/);
    expect(msg('{}')).toMatch(/behavior must be "allow" or "deny"/);
    expect(msg('{"behavior":"deny"}')).toMatch(/message must be a string/);
    expect(msg('{"behavior":"allow","updatedInput":"rm -rf /"}')).toMatch(/updatedInput must be an object/);
    expect(msg('yes')).toMatch(/text that is not JSON: "yes"/);
    expect(msg('down', true)).toMatch(/answered with an error: down/);
    expect((parsePromptAnswer('t', { content: [] }, {}) as { message: string }).message).toMatch(
      /without a text block/,
    );
  });

  it('a call that throws is a denial naming the tool; an aborted one rethrows', async () => {
    const ask = mcpPermissionPrompt('mcp__p__decide', async () => {
      throw new Error('server gone');
    });
    const req = { tool_name: 'Bash', input: {}, tool_use_id: 't' };
    expect(await ask(req, new AbortController().signal)).toEqual({
      behavior: 'deny',
      message: 'Permission denied: the permission prompt tool mcp__p__decide could not be called: server gone',
    });
    const ac = new AbortController();
    ac.abort();
    await expect(ask(req, ac.signal)).rejects.toThrow('server gone');
  });

  it('names: mcp__server__tool only', () => {
    expect(isMcpPromptTool('mcp__permit__decide')).toBe(true);
    expect(isMcpPromptTool('stdio')).toBe(false);
    expect(isMcpPromptTool('mcp__only')).toBe(false);
  });
});
