// What issue 12 has not built yet (the SlashCommand tool) fails
// loudly when a host asks for it: never a session that silently runs without it.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { runAgent, startFakeApi, type FakeApi } from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('not built yet: loud failures', () => {
  it('--tools naming a tool not built yet stops the start (exit 2), naming it', async () => {
    api = await startFakeApi([text('never')]);
    const r = await runAgent({ api, args: ['-p', 'hi', '--tools', 'Read,SlashCommand'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agent: --tools: SlashCommand is not built yet');
    expect(api.requests).toHaveLength(0);
  });
});
