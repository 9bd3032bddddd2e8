// The control channel's lines are the outbound schemas' (src/protocol/outbound.ts): its send takes
// their control-line type, so a misnamed field fails `npm run typecheck` (each ts-expect-error
// below fails that check the day its error goes away), and every line it writes parses with the
// strict schemas the e2e tests read stdout with.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CodedControlError, ControlChannel } from '../../../src/control/channel.js';
import { type ControlLine, outboundSchema } from '../../../src/protocol/outbound.js';

function channel() {
  const sent: ControlLine[] = [];
  const ch = new ControlChannel((line) => void sent.push(line));
  // What stdout would carry: each line parsed by the strict union, so an unknown field fails here.
  const wire = () => sent.map((l) => outboundSchema.parse(JSON.parse(JSON.stringify(l))));
  return { ch, sent, wire };
}

describe('the control channel', () => {
  it("takes the outbound schemas' control lines only", () => {
    type Send = ConstructorParameters<typeof ControlChannel>[0];
    expectTypeOf<Parameters<Send>[0]>().toEqualTypeOf<ControlLine>();
    const lines: ControlLine[] = [
      { type: 'control_response', response: { subtype: 'success', request_id: 'r1', response: {} } },
      { type: 'control_response', response: { subtype: 'error', request_id: 'r1', error: 'no', error_code: 'busy' } },
      { type: 'control_request', request_id: 'r2', request: { subtype: 'can_use_tool', tool_name: 'Bash' } },
      // @ts-expect-error the code of a refusal is `error_code`
      { type: 'control_response', response: { subtype: 'error', request_id: 'r1', error: 'no', errorCode: 'busy' } },
      // @ts-expect-error an answer names the request it answers `request_id`
      { type: 'control_response', response: { subtype: 'success', requestId: 'r1', response: {} } },
      // @ts-expect-error our request's id is `request_id`
      { type: 'control_request', requestId: 'r2', request: { subtype: 'can_use_tool' } },
      // @ts-expect-error no such control answer subtype
      { type: 'control_response', response: { subtype: 'refused', request_id: 'r1', error: 'no' } },
    ];
    // The runtime schemas agree with the types: the first three parse, the misnamed four do not.
    expect(lines.map((l) => outboundSchema.safeParse(l).success)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('answers success, an unknown subtype, a thrown error and a coded refusal with lines the strict schemas take', async () => {
    const { ch, wire } = channel();
    ch.on('ok', () => ({ done: true }));
    ch.on('fails', () => {
      throw new Error('it broke');
    });
    ch.on('busy', () => {
      throw new CodedControlError('busy now', 'reload_plugins_busy');
    });
    await ch.handleRequest('a', { subtype: 'ok' });
    await ch.handleRequest('b', { subtype: 'made_up' });
    await ch.handleRequest('c', { subtype: 'fails' });
    await ch.handleRequest('d', { subtype: 'busy' });
    expect(wire()).toEqual([
      { type: 'control_response', response: { subtype: 'success', request_id: 'a', response: { done: true } } },
      {
        type: 'control_response',
        response: { subtype: 'error', request_id: 'b', error: 'Unsupported control request subtype: made_up' },
      },
      { type: 'control_response', response: { subtype: 'error', request_id: 'c', error: 'it broke' } },
      {
        type: 'control_response',
        response: { subtype: 'error', request_id: 'd', error: 'busy now', error_code: 'reload_plugins_busy' },
      },
    ]);
  });

  it('its own request is a control_request line the strict schemas take, settled by the answer', async () => {
    const { ch, sent, wire } = channel();
    const answer = ch.request('can_use_tool', { tool_name: 'Bash', input: {} }, { timeoutMs: 5000 });
    const [line] = wire();
    expect(line).toEqual({
      type: 'control_request',
      request_id: expect.any(String),
      request: { subtype: 'can_use_tool', tool_name: 'Bash', input: {} },
    });
    const id = (sent[0] as Extract<ControlLine, { type: 'control_request' }>).request_id;
    expect(ch.handleResponse({ subtype: 'success', request_id: id, response: { behavior: 'allow' } })).toBe(true);
    await expect(answer).resolves.toEqual({ behavior: 'allow' });
  });
});
