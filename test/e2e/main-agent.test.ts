// --agent NAME (the SDK's `agent` option): the main thread runs as a named custom agent — its
// prompt, its tools, its model. bin/agent runs for real against the fake Messages API.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '../fake-api/server.js';
import { resultsById, runAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: { name: string }) => t.name);

describe('--agent', () => {
  it('the SDK’s agent option runs the main thread with the agent’s prompt, tools and model (agents sent in initialize)', async () => {
    api = await startFakeApi([toolUse('Bash', { command: 'echo no' }, 'b1'), text('reviewed')]);
    const q = query({
      prompt: 'review please',
      options: sdkOptions(api.url, tempDir(), {
        agent: 'reviewer',
        agents: {
          reviewer: {
            description: 'Reviews code',
            prompt: 'You are a strict reviewer.',
            tools: ['Read', 'Grep'],
            model: 'opus',
          },
        },
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }) as never,
    });
    const messages: any[] = [];
    for await (const m of q) messages.push(m);
    const body = api.requests[0]!.body;
    expect(JSON.stringify(body.system)).toContain('You are a strict reviewer.');
    expect(toolNames(body).sort()).toEqual(['Grep', 'Read']);
    expect(body.model).toMatch(/^claude-opus/);
    // A tool outside the agent's list is not there to call, even in bypassPermissions.
    expect(resultsById(api.requests[1]!).b1.isError).toBe(true);
    expect(messages.find((m) => m.type === 'system' && m.subtype === 'init').tools.sort()).toEqual(['Grep', 'Read']);
  });

  it('a file agent with --agent in -p mode; --model still wins, the agent beats ANTHROPIC_MODEL; an unknown name exits 2 naming the agents there are', async () => {
    api = await startFakeApi([text('linted'), text('linted again')]);
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude', 'agents', 'linter.md'),
      '---\nname: linter\ndescription: Lints files\nmodel: haiku\ntools: Read, Glob\n---\nYou lint files.\n',
    );
    const r = await runAgent({ api, cwd, args: ['-p', 'lint', '--agent', 'linter', '--model', 'sonnet'] });
    expect(r.code).toBe(0);
    const body = api.requests[0]!.body;
    expect(JSON.stringify(body.system)).toContain('You lint files.');
    expect(toolNames(body).sort()).toEqual(['Glob', 'Read']);
    expect(body.model).toMatch(/sonnet/);
    const fromEnv = await runAgent({
      api,
      cwd,
      args: ['-p', 'lint', '--agent', 'linter'],
      env: { ANTHROPIC_MODEL: 'claude-sonnet-4-5' },
    });
    expect(fromEnv.code).toBe(0);
    expect(api.requests[1]!.body.model).toMatch(/^claude-haiku-5-5/);
    const bad = await runAgent({ api, cwd, args: ['-p', 'lint', '--agent', 'nosuch'] });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--agent nosuch: no agent of that name \(this session has: .*linter/);
    expect(api.requests).toHaveLength(2);
  });
});
