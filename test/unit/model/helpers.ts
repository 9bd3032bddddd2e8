// Shared set-up for the model-client tests: a fake API per test, env pointed at it.
import { afterEveryTest } from '../../perFile.js';
import { startFakeApi, type FakeApi, type Script } from '../../fake-api/server.js';
import { streamModel, type ModelEvent, type ModelRequest } from '../../../src/loop/modelClient.js';

const open: FakeApi[] = [];

// The environment this sets is put back when the test file ends (test/setup.ts); each test's
// fakeApi() sets every variable the client reads afresh.
afterEveryTest(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

/** Start a fake API and point the client at it with an API key and few retries. */
export async function fakeApi(script: Script, env: Record<string, string | undefined> = {}): Promise<FakeApi> {
  const api = await startFakeApi(script);
  open.push(api);
  process.env.ANTHROPIC_BASE_URL = api.url;
  process.env.ANTHROPIC_API_KEY = 'sk-test';
  delete process.env.ANTHROPIC_AUTH_TOKEN;
  process.env.AGENT_MAX_RETRIES = '2';
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return api;
}

export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-4-5-20250929',
    system: 'You are a test.',
    messages: [{ role: 'user', content: 'hello' }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Drain streamModel; returns the events and the error it ended with, if any. */
export async function run(
  req: ModelRequest,
  opts?: { maxRetries?: number },
): Promise<{ events: ModelEvent[]; error?: any }> {
  const events: ModelEvent[] = [];
  try {
    for await (const ev of streamModel(req, opts)) events.push(ev);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

export function finalMessage(events: ModelEvent[]) {
  const m = events.filter((e) => e.type === 'message');
  if (m.length !== 1) throw new Error(`expected exactly one message event, got ${m.length}`);
  return (m[0] as Extract<ModelEvent, { type: 'message' }>).message;
}
