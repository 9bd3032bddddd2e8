// The host control surface driven by the official SDK: the lists a host shows its user, task
// control, settings control. bin/agent runs for real against the fake Messages API.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('lists a host shows its user', () => {
  it('supportedAgents and supportedModels come from what the session has', async () => {
    api = await startFakeApi([text('ok')]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(cwd, '.claude', 'agents', 'linter.md'), '---\nname: linter\ndescription: Lints files\nmodel: haiku\n---\nYou lint.\n');
    const prompts = promptStream();
    const q = query({
      prompt: prompts as never,
      options: sdkOptions(api.url, cwd, { agents: { reviewer: { description: 'Reviews code', prompt: 'You review.' } } }) as never,
    });
    const agents = await q.supportedAgents();
    expect(agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'general-purpose' }),
        { name: 'linter', description: 'Lints files', model: 'haiku' },
        { name: 'reviewer', description: 'Reviews code' },
      ]),
    );
    const models = await q.supportedModels();
    expect(models.map((m) => m.value)).toEqual(['default', 'sonnet', 'opus', 'haiku']);
    expect(models.find((m) => m.value === 'opus')?.resolvedModel).toMatch(/^claude-opus/);
    prompts.end();
    for await (const _ of q) void _;
  });
});
