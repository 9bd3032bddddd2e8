// How every control handler reads its request: the request's zod schema, and on failure an error
// whose message starts with the subtype and says what is wrong (the channel sends it back as the
// error response).
import type { z } from 'zod';
import { describeIssues } from '../protocol/inbound.js';

export function parseControlRequest<S extends z.ZodType>(schema: S, request: unknown, subtype: string): z.infer<S> {
  const r = schema.safeParse(request);
  if (!r.success) {
    const msg = describeIssues(r.error);
    // Messages the schemas write themselves already start with the subtype.
    throw new Error(msg.startsWith(`${subtype}:`) ? msg : `${subtype}: ${msg}`);
  }
  return r.data;
}
