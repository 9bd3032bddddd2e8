import { describe, expect, it } from 'vitest';
import { elicitationHandler } from '../../../src/mcp/elicitation.js';

const request = (params: Record<string, unknown>) => ({ method: 'elicitation/create' as const, params }) as never;
const form = request({
  mode: 'form',
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'string' } } },
  _meta: { 'anthropic/permissionDisplay': { title: 'T', displayName: 'D' } },
});

describe('elicitation answers', () => {
  it('the host request carries the fields, property_order and permission display; content goes back only with accept', async () => {
    let sent: Record<string, unknown> = {};
    const handle = elicitationHandler('s', {
      askHost: async (p) => ((sent = p), { action: 'decline', content: { a: '1' } }),
      log: () => {},
    });
    expect(await handle(form, new AbortController().signal)).toEqual({ action: 'decline' });
    expect(sent).toEqual({
      mcp_server_name: 's',
      message: 'Name?',
      mode: 'form',
      requested_schema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'string' } } },
      property_order: ['b', 'a'],
      title: 'T',
      display_name: 'D',
    });
  });

  it('a malformed host answer or a failed request declines, told; an aborted request cancels', async () => {
    const lines: string[] = [];
    const bad = elicitationHandler('s', { askHost: async () => ({ action: 'sure' }), log: (l) => lines.push(l) });
    expect(await bad(form, new AbortController().signal)).toEqual({ action: 'decline' });
    expect(lines[0]).toMatch(/not \{action, content\?\} \(action must be accept, decline or cancel\): declined/);
    const gone = elicitationHandler('s', {
      askHost: async () => Promise.reject(new Error('stdin is closed')),
      log: (l) => lines.push(l),
    });
    expect(await gone(form, new AbortController().signal)).toEqual({ action: 'decline' });
    expect(lines[1]).toMatch(/declined: stdin is closed/);
    const ac = new AbortController();
    ac.abort();
    expect(
      await elicitationHandler('s', { askHost: async () => Promise.reject(new Error('aborted')), log: () => {} })(
        form,
        ac.signal,
      ),
    ).toEqual({ action: 'cancel' });
  });

  it('nobody to ask: decline, or cancel when so configured (--permission-prompts none)', async () => {
    expect(await elicitationHandler('s', { log: () => {} })(form, new AbortController().signal)).toEqual({
      action: 'decline',
    });
    expect(
      await elicitationHandler('s', { unanswered: 'cancel', log: () => {} })(form, new AbortController().signal),
    ).toEqual({ action: 'cancel' });
  });
});
