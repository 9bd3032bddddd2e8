import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  frameOf,
  inputDigest,
  parsePermissionRequest,
  parsePermissionResponse,
  parsePlanApprovalResponse,
  permissionRequestFrame,
  permissionResponseFrame,
} from '../../../src/teams/permissionFrames.js';

describe('permission frames', () => {
  it('a request carries the reference fields and the older spelling, and reads back', () => {
    const text = permissionRequestFrame({
      requestId: 'perm-1-ab',
      from: 'w',
      agentId: 'w@t',
      color: '#00FF00',
      toolName: 'Edit',
      toolUseId: 'toolu_1',
      description: 'edit a',
      input: { file_path: '/a' },
      suggestions: [],
    });
    const f = frameOf(text)!;
    expect(f.body).toMatchObject({
      type: 'permission_request',
      request_id: 'perm-1-ab',
      agent_id: 'w',
      tool_name: 'Edit',
      tool_use_id: 'toolu_1',
      requestId: 'perm-1-ab',
      toolName: 'Edit',
      workerId: 'w@t',
      workerColor: '#00FF00',
    });
    const back = parsePermissionRequest(f.body);
    expect(back).toMatchObject({ ok: true, q: { requestId: 'perm-1-ab', toolName: 'Edit', agent: 'w' } });
    // The controller-era spelling alone is read too; without an id it is refused with the reason.
    expect(parsePermissionRequest({ requestId: 'r', toolName: 'Bash', input: {} })).toMatchObject({ ok: true });
    expect(parsePermissionRequest({ tool_name: 'Bash' })).toEqual({ ok: false, why: 'no request_id' });
  });

  it('a response in the current shape, in the controller shape, and malformed', () => {
    const bound = { tool_use_id: 'toolu_1', tool_name: 'Edit', input_digest: inputDigest('Edit', { b: 1, a: 2 }) };
    const ok = frameOf(
      permissionResponseFrame('lead', 'r1', 'toolu_1', bound, { allow: true, updatedInput: { a: 3 } }),
    )!.body;
    expect(ok).toMatchObject({
      subtype: 'success',
      response: { updated_input: { a: 3 } },
      approved: true,
      from: 'lead',
    });
    expect(parsePermissionResponse(ok)).toEqual({
      ok: true,
      verdict: { allow: true, updatedInput: { a: 3 }, approvedRequest: bound },
    });
    const no = frameOf(
      permissionResponseFrame('lead', 'r1', 'toolu_1', bound, { allow: false, message: 'not now' }),
    )!.body;
    expect(no).toMatchObject({ subtype: 'error', error: 'not now', approved: false });
    expect(parsePermissionResponse(no)).toMatchObject({ ok: true, verdict: { allow: false, message: 'not now' } });
    expect(parsePermissionResponse({ requestId: 'r1', approved: false })).toEqual({
      ok: true,
      verdict: { allow: false },
    });
    const bad = parsePermissionResponse({ request_id: 'r1', subtype: 'success', response: { updated_input: 'x' } });
    expect(bad).toMatchObject({ ok: false, why: expect.stringContaining('response.updated_input') });
    expect(parsePermissionResponse({ requestId: 'r1', approved: 'yes' })).toMatchObject({
      ok: false,
      why: expect.stringContaining('approved'),
    });
    expect(parsePlanApprovalResponse({ requestId: 'p', approved: true, permissionMode: 'acceptEdits' })).toEqual({
      ok: true,
      approved: true,
      permissionMode: 'acceptEdits',
    });
  });

  it("the input digest is the reference's recipe: sha256(name, NUL, key-sorted JSON)", () => {
    const expected = createHash('sha256').update('Edit\x00{"a":{"c":1,"d":[{"e":1,"f":2}]},"b":2}').digest('hex');
    expect(inputDigest('Edit', { b: 2, a: { d: [{ f: 2, e: 1 }], c: 1 } })).toBe(expected);
  });

  it('plain text and non-objects are not frames', () => {
    expect(frameOf('hello')).toBeUndefined();
    expect(frameOf('{not json')).toBeUndefined();
    expect(frameOf('[1]')).toBeUndefined();
    expect(frameOf('{"no":"type"}')).toBeUndefined();
  });
});
