// The one reader of control requests: what a bad request's error says.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseControlRequest } from '../../../src/control/parseRequest.js';
import {
  readFileRequestSchema,
  rewindFilesRequestSchema,
  setPermissionModeRequestSchema,
} from '../../../src/protocol/inbound.js';

const fails = (schema: z.ZodType, req: unknown, subtype: string) => () => parseControlRequest(schema, req, subtype);

describe('parseControlRequest', () => {
  it('returns the parsed request', () => {
    expect(parseControlRequest(readFileRequestSchema, { subtype: 'read_file', path: '/x' }, 'read_file')).toMatchObject(
      { path: '/x' },
    );
  });

  it('a message the schema wrote stands as it is: no second subtype, no path before it', () => {
    expect(fails(rewindFilesRequestSchema, { subtype: 'rewind_files' }, 'rewind_files')).toThrow(
      /^rewind_files: user_message_id must be the uuid of a user message$/,
    );
    expect(fails(readFileRequestSchema, { subtype: 'read_file', path: '' }, 'read_file')).toThrow(
      /^read_file: path is empty$/,
    );
  });

  it("zod's own message gets the field's path and the subtype; several problems are all named", () => {
    expect(
      fails(setPermissionModeRequestSchema, { subtype: 'set_permission_mode', mode: 'x' }, 'set_permission_mode'),
    ).toThrow(/^set_permission_mode: mode: Invalid option: expected one of "default"/);
    const two = z.object({ a: z.string(), b: z.number({ error: 'b must be a number' }) });
    expect(fails(two, { a: 1, b: 'x' }, 'demo')).toThrow(
      /^demo: a: Invalid input: expected string, received number; b must be a number$/,
    );
  });
});
