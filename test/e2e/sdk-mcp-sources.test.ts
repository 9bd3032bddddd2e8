// MCP servers from .mcp.json and settings files, with the project-server approval settings,
// precedence, --strict-mcp-config and --setting-sources, through the official SDK as host.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { runAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { promptStream, sdkOptions } from './sdkHost.js';
import { mcpFixture } from '../fixtures/mcpFixtures.js';

const CALC = mcpFixture('mcp-calc-server');
const calc = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [CALC], ...extra });
const writeJson = (file: string, value: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
};

let api: FakeApi | undefined;

/** Runs one prompt in a streaming session; gives the servers' status and the tools the model was offered. */
async function session(cwd: string, env: Record<string, string>, options: Record<string, unknown> = {}) {
  api = await startFakeApi([text('one'), text('two')]);
  const base = sdkOptions(api.url, cwd, options);
  base.env = { ...base.env, ...env };
  const prompts = promptStream();
  const stderr: string[] = [];
  const q = query({ prompt: prompts as never, options: { ...base, stderr: (s: string) => stderr.push(s) } as never });
  return { q, prompts, stderr };
}

async function untilResult(it: AsyncIterator<any>) {
  for (;;) {
    const { value, done } = await it.next();
    if (done || value.type === 'result') return;
  }
}

const offered = (n: number) =>
  ((api!.requests[n].body.tools ?? []) as Array<{ name: string }>)
    .map((t) => t.name)
    .filter((t) => t.startsWith('mcp__'));

describe('MCP servers from .mcp.json and settings files', () => {
  it('approved project servers start, unapproved ones wait (disabled, with the reason) until mcp_toggle; user and local servers start; each reports its scope', async () => {
    const cwd = tempDir();
    const configDir = tempDir('agent-sdk-config-');
    writeJson(join(cwd, '.mcp.json'), {
      mcpServers: {
        approved: calc(),
        waiting: calc(),
        refused: calc(),
        viaEnv: { command: process.execPath, args: ['${CALC_SCRIPT}'] },
        noEnv: calc({ args: ['${NO_SUCH_VAR_11A}'] }),
      },
    });
    // The repository's own settings try to approve everything: ignored, with a warning.
    writeJson(join(cwd, '.claude', 'settings.json'), {
      enableAllProjectMcpServers: true,
      mcpServers: { fromProject: calc() },
    });
    writeJson(join(cwd, '.claude', 'settings.local.json'), {
      enabledMcpjsonServers: ['approved', 'viaEnv', 'noEnv', 'refused'],
      disabledMcpjsonServers: ['refused'],
      mcpServers: { localOne: calc() },
    });
    writeJson(join(configDir, 'settings.json'), { mcpServers: { userOne: calc() } });
    const { q, prompts, stderr } = await session(cwd, { CLAUDE_CONFIG_DIR: configDir, CALC_SCRIPT: CALC });
    const it = q[Symbol.asyncIterator]();
    prompts.push('first');
    await untilResult(it);
    const status = Object.fromEntries(
      ((await q.mcpServerStatus()) as Array<Record<string, any>>).map((s) => [s.name, s]),
    );
    expect(status.approved).toMatchObject({ status: 'connected', scope: 'project' });
    expect(status.viaEnv).toMatchObject({ status: 'connected', scope: 'project' });
    expect(status.waiting).toMatchObject({ status: 'disabled', scope: 'project' });
    expect(status.waiting.error).toMatch(/not started until approved: add "waiting" to enabledMcpjsonServers/);
    expect(status.refused).toMatchObject({ status: 'disabled', error: 'disabled by disabledMcpjsonServers' });
    expect(status.fromProject).toMatchObject({ status: 'disabled', scope: 'project' });
    expect(status.noEnv).toMatchObject({ status: 'failed', scope: 'project' });
    expect(status.noEnv.error).toMatch(/\.mcp\.json: environment variable NO_SUCH_VAR_11A not set/);
    expect(status.localOne).toMatchObject({ status: 'connected', scope: 'local' });
    expect(status.userOne).toMatchObject({ status: 'connected', scope: 'user' });
    expect(stderr.join('')).toMatch(
      /settings\.json: enableAllProjectMcpServers ignored here: a repository cannot approve its own MCP servers/,
    );
    expect(stderr.join('')).toMatch(
      /MCP server "waiting" \(project\) not started: a project server is not started until approved/,
    );
    const first = offered(0);
    for (const s of ['approved', 'viaEnv', 'localOne', 'userOne']) expect(first).toContain(`mcp__${s}__add`);
    for (const s of ['waiting', 'refused', 'fromProject', 'noEnv']) expect(first).not.toContain(`mcp__${s}__add`);

    // The host approves one by enabling it.
    await q.toggleMcpServer('waiting', true);
    expect(((await q.mcpServerStatus()) as Array<Record<string, any>>).find((s) => s.name === 'waiting')).toMatchObject(
      { status: 'connected' },
    );
    prompts.push('second');
    await untilResult(it);
    expect(offered(1)).toContain('mcp__waiting__add');
    prompts.end();
    await untilResult(it);
  });

  it('precedence: local over .mcp.json over user for one name; the SDK mcpServers (--mcp-config) over all; --strict-mcp-config keeps only those', async () => {
    const cwd = tempDir();
    const configDir = tempDir('agent-sdk-config-');
    const broken = { command: '/nonexistent/mcp-server' };
    writeJson(join(configDir, 'settings.json'), {
      mcpServers: { dup: broken, top: broken },
      enableAllProjectMcpServers: true,
    });
    writeJson(join(cwd, '.mcp.json'), { mcpServers: { dup: broken, proj: calc() } });
    writeJson(join(cwd, '.claude', 'settings.local.json'), { mcpServers: { dup: calc() } });
    const env = { CLAUDE_CONFIG_DIR: configDir };
    {
      const { q, prompts } = await session(cwd, env, { mcpServers: { top: calc() } });
      const it = q[Symbol.asyncIterator]();
      prompts.push('go');
      await untilResult(it);
      const status = Object.fromEntries(
        ((await q.mcpServerStatus()) as Array<Record<string, any>>).map((s) => [s.name, s]),
      );
      expect(status.dup).toMatchObject({ status: 'connected', scope: 'local' });
      expect(status.top).toMatchObject({ status: 'connected', scope: 'dynamic' });
      expect(status.proj).toMatchObject({ status: 'connected', scope: 'project' });
      prompts.end();
      await untilResult(it);
      await api!.close();
    }
    {
      const { q, prompts } = await session(cwd, env, { mcpServers: { top: calc() }, strictMcpConfig: true });
      const it = q[Symbol.asyncIterator]();
      prompts.push('go');
      await untilResult(it);
      expect(
        ((await q.mcpServerStatus()) as Array<Record<string, any>>).map((s) => [s.name, s.scope, s.status]),
      ).toEqual([['top', 'dynamic', 'connected']]);
      prompts.end();
      await untilResult(it);
      await api!.close();
    }
    {
      // settingSources ['user']: neither .mcp.json (project) nor local settings are read.
      const { q, prompts } = await session(cwd, env, { settingSources: ['user'] });
      const it = q[Symbol.asyncIterator]();
      prompts.push('go');
      await untilResult(it);
      const names = ((await q.mcpServerStatus()) as Array<Record<string, any>>).map((s) => [s.name, s.scope]);
      expect(names).toEqual([
        ['dup', 'user'],
        ['top', 'user'],
      ]);
      prompts.end();
      await untilResult(it);
    }
  });

  it('deniedMcpServers and allowedMcpServers hold for every source, mcp_toggle and mcp_set_servers included', async () => {
    const cwd = tempDir();
    const configDir = tempDir('agent-sdk-config-');
    writeJson(join(configDir, 'settings.json'), {
      enableAllProjectMcpServers: true,
      deniedMcpServers: [{ serverName: 'blocked' }, { serverName: 'later' }],
      allowedMcpServers: [
        { serverName: 'fine' },
        { serverName: 'blocked' },
        { serverName: 'dyn' },
        { serverName: 'later' },
      ],
    });
    writeJson(join(cwd, '.mcp.json'), { mcpServers: { blocked: calc(), fine: calc(), unlisted: calc() } });
    const { q, prompts } = await session(cwd, { CLAUDE_CONFIG_DIR: configDir }, { mcpServers: { dyn: calc() } });
    const it = q[Symbol.asyncIterator]();
    prompts.push('go');
    await untilResult(it);
    const status = Object.fromEntries(
      ((await q.mcpServerStatus()) as Array<Record<string, any>>).map((s) => [s.name, s]),
    );
    expect(status.blocked).toMatchObject({
      status: 'failed',
      error: 'blocked by deniedMcpServers (serverName "blocked")',
    });
    expect(status.unlisted).toMatchObject({ status: 'failed', error: 'not in allowedMcpServers' });
    expect(status.fine).toMatchObject({ status: 'connected' });
    expect(status.dyn).toMatchObject({ status: 'connected' });
    await expect(q.toggleMcpServer('blocked', true)).resolves.toBeUndefined();
    expect(((await q.mcpServerStatus()) as Array<Record<string, any>>).find((s) => s.name === 'blocked')?.status).toBe(
      'failed',
    );
    const set = await q.setMcpServers({ later: calc() } as never);
    expect(set.errors.later).toMatch(/blocked by deniedMcpServers/);
    expect(offered(0)).not.toContain('mcp__blocked__add');
    prompts.end();
    await untilResult(it);
  });

  it('a .mcp.json that is not valid JSON stops the start (exit 1) naming the file; a bad approval setting names its key', async () => {
    api = await startFakeApi([text('never')]);
    const cwd = tempDir();
    writeFileSync(join(cwd, '.mcp.json'), '{"mcpServers": {');
    const r = await runAgent({ api, cwd, args: ['-p', 'hi'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.mcp\.json: not valid JSON/);
    writeFileSync(join(cwd, '.mcp.json'), '{"servers": {}}');
    const r2 = await runAgent({ api, cwd, args: ['-p', 'hi'] });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/\.mcp\.json: expected \{"mcpServers": \{name: config\}\}/);
    writeFileSync(join(cwd, '.mcp.json'), '{"mcpServers": {}}');
    writeJson(join(cwd, '.claude', 'settings.local.json'), { enabledMcpjsonServers: 'all' });
    const r3 = await runAgent({ api, cwd, args: ['-p', 'hi'] });
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/settings\.local\.json: enabledMcpjsonServers must be an array of strings/);
    expect(api.requests).toHaveLength(0);
  });
});
