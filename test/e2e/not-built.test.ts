// What issue 12 has not built yet (plugins, the SlashCommand tool) fails
// loudly when a host asks for it: never a session that silently runs without it.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { lastToolResults, text, toolUse } from '../fake-api/server.js';
import { runAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { prompts, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function firstError(options: Record<string, unknown>): Promise<string> {
  const input = prompts(['hi']);
  try {
    for await (const m of query({ prompt: input as never, options: options as never })) {
      if (m.type === 'result') return `result: ${JSON.stringify(m).slice(0, 300)}`;
    }
    return 'no error';
  } catch (err) {
    return (err as Error).message;
  }
}

describe('not built yet: loud failures', () => {
  it('--tools naming a tool not built yet stops the start (exit 2), naming it', async () => {
    api = await startFakeApi([text('never')]);
    const r = await runAgent({ api, args: ['-p', 'hi', '--tools', 'Read,SlashCommand'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agent: --tools: SlashCommand is not built yet');
    expect(api.requests).toHaveLength(0);
  });

  it("the SDK's plugins option (--plugin-dir) stops the start", async () => {
    const cwd = tempDir();
    api = await startFakeApi([text('never'), text('never')]);
    expect(await firstError(sdkOptions(api.url, cwd, { plugins: [{ type: 'local', path: cwd }] }))).toMatch(/exited with code 2|plugin-dir/);
    expect(api.requests).toHaveLength(0);
  });
});
