// A fake Microsoft Foundry endpoint: the Messages API under the resource's `/anthropic` path,
// taking only the test's key in `x-api-key`, or with `bearer` only a Microsoft Entra ID token the
// test's fake authority issued (`Authorization: Bearer …`), or no credential at all (apiKey null:
// a gateway adds it).
import type { FakeApi } from '../fake-api/server.js';
import { type Front, startFront } from './front.js';

export function startFakeFoundry(
  api: FakeApi,
  opts: { apiKey: string | null; bearer?: () => readonly string[] },
): Promise<Front> {
  const refuse = (status: number, type: string, message: string) => ({
    refuse: { status, body: { type: 'error', error: { type, message } } },
  });
  return startFront(api, (req) => {
    if (req.method !== 'POST' || req.path.split('?')[0] !== '/anthropic/v1/messages')
      return refuse(404, 'not_found_error', `Not found: ${req.method} ${req.path}`);
    const key = req.headers['x-api-key'];
    if (opts.bearer) {
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      if (key || !token || !opts.bearer().includes(token))
        return refuse(401, 'authentication_error', 'Access denied: no valid Microsoft Entra ID token.');
    } else if (opts.apiKey !== null) {
      if (key !== opts.apiKey)
        return refuse(
          401,
          'authentication_error',
          'Access denied due to invalid subscription key or wrong API endpoint.',
        );
    } else if (key || req.headers.authorization) return refuse(400, 'invalid_request_error', 'unexpected credentials');
    let body: any;
    try {
      body = JSON.parse(req.body);
    } catch {
      return refuse(400, 'invalid_request_error', 'There was an error parsing the body of your request');
    }
    const beta = req.headers['anthropic-beta'];
    return { forward: { body, beta: typeof beta === 'string' ? beta : undefined } };
  });
}
