// What issue 12 has not built yet (the SlashCommand tool) fails
// loudly when a host asks for it: never a session that silently runs without it.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { runAgent, STREAM_ARGS, startAgent, startFakeApi, tempDir, type FakeApi } from './harness.js';
import { sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;

describe('not built yet: loud failures', () => {
  it('--tools naming a tool not built yet stops the start (exit 2), naming it', async () => {
    api = await startFakeApi([text('never')]);
    const r = await runAgent({ api, args: ['-p', 'hi', '--tools', 'Read,SlashCommand'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('agent: --tools: SlashCommand is not built yet');
    expect(api.requests).toHaveLength(0);
  });
});

describe('initialize options not built: refused, never ignored', () => {
  it('excludeDynamicSections: true is an error answer naming it; false, or with a custom prompt (no effect), is fine', async () => {
    api = await startFakeApi([]);
    const init = (id: string, extra: object) => ({
      type: 'control_request',
      request_id: id,
      request: { subtype: 'initialize', ...extra },
    });
    const answers = async (extra: object) => {
      const p = startAgent({ api, args: STREAM_ARGS });
      p.send(init('i1', extra));
      const m = await p.waitFor((l) => l.type === 'control_response');
      p.endInput();
      await p.exited;
      return m.response;
    };
    const refused = await answers({ excludeDynamicSections: true });
    expect(refused).toMatchObject({ subtype: 'error', request_id: 'i1' });
    expect(refused.error).toContain('excludeDynamicSections is not supported');
    expect(await answers({ excludeDynamicSections: false })).toMatchObject({ subtype: 'success' });
    expect(await answers({ excludeDynamicSections: true, systemPrompt: 'You are terse.' })).toMatchObject({
      subtype: 'success',
    });
  });
  it('systemPromptSnapshot: true, codeRunningMcpTools and webSearchIsolationExemptMcpServers (non-empty) are error answers naming them', async () => {
    api = await startFakeApi([]);
    const answers = async (extra: object) => {
      const p = startAgent({ api, args: STREAM_ARGS });
      p.send({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize', ...extra } });
      const m = await p.waitFor((l) => l.type === 'control_response');
      p.endInput();
      await p.exited;
      return m.response;
    };
    for (const [extra, name] of [
      [{ systemPromptSnapshot: true }, 'systemPromptSnapshot: true is not supported'],
      [{ codeRunningMcpTools: ['mcp__x__run'] }, 'codeRunningMcpTools is not supported'],
      [{ webSearchIsolationExemptMcpServers: ['x'] }, 'webSearchIsolationExemptMcpServers is not supported'],
    ] as const) {
      const refused = await answers(extra);
      expect(refused).toMatchObject({ subtype: 'error', request_id: 'i1' });
      expect(refused.error).toContain(name);
    }
    // What we do anyway (no record; nothing listed) is fine.
    expect(
      await answers({ systemPromptSnapshot: false, codeRunningMcpTools: [], webSearchIsolationExemptMcpServers: [] }),
    ).toMatchObject({ subtype: 'success' });
  });

  const answers = async (extra: object) => {
    const p = startAgent({ api, args: STREAM_ARGS });
    p.send({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize', ...extra } });
    const m = await p.waitFor((l) => l.type === 'control_response');
    p.endInput();
    await p.exited;
    return m.response;
  };

  it('hidden declarations asking for what is not built (true) are error answers naming them; false is what runs', async () => {
    api = await startFakeApi([]);
    for (const field of [
      'rapidFollowupPreempt',
      'forwardNestedSubagentToolCalls',
      'offersBypassSwitchBack',
      'keepsBypassHeld',
    ]) {
      const refused = await answers({ [field]: true });
      expect(refused).toMatchObject({ subtype: 'error', request_id: 'i1' });
      expect(refused.error).toContain(`${field}: true is not supported`);
    }
    expect(
      await answers({
        rapidFollowupPreempt: false,
        forwardNestedSubagentToolCalls: false,
        offersBypassSwitchBack: false,
        keepsBypassHeld: false,
      }),
    ).toMatchObject({ subtype: 'success' });
  });

  it('sdkMcpServerConfigs with a setting, and settings / managedSettings / disallowedTools sent here, are error answers', async () => {
    api = await startFakeApi([]);
    const configs = await answers({
      sdkMcpServers: ['s'],
      sdkMcpServerConfigs: { s: { tools: [{ name: 't', permission_policy: 'always_deny' }] } },
    });
    expect(configs).toMatchObject({ subtype: 'error' });
    expect(configs.error).toContain(
      'sdkMcpServerConfigs is not supported by this agent runtime (server "s" sets tools)',
    );
    for (const field of ['settings', 'managedSettings', 'disallowedTools']) {
      const refused = await answers({ [field]: field === 'disallowedTools' ? ['Bash'] : { model: 'x' } });
      expect(refused).toMatchObject({ subtype: 'error' });
      expect(refused.error).toContain(`${field} is not read from initialize`);
    }
  });

  it('supportedDialogKinds is a list of strings; workspaceTrust is answered as not recorded; bad shapes name the field', async () => {
    api = await startFakeApi([]);
    const ok = await answers({
      supportedDialogKinds: ['refusal_fallback_prompt'],
      workspaceTrust: { accepted: true, directory: '/w' },
    });
    expect(ok).toMatchObject({ subtype: 'success', response: { workspace_trust_recorded: false } });
    expect((await answers({ supportedDialogKinds: 'all' })).error).toContain(
      'supportedDialogKinds must be a list of strings',
    );
    expect((await answers({ workspaceTrust: true })).error).toContain('workspaceTrust must be {accepted, directory}');
  });

  it('through the official SDK: a hidden option asking for what is not built ends the query with our message', async () => {
    api = await startFakeApi([text('never')]);
    const q = query({ prompt: 'hi', options: sdkOptions(api.url, tempDir(), { rapidFollowupPreempt: true }) as never });
    await expect(
      (async () => {
        for await (const _ of q) {
          /* drain */
        }
      })(),
    ).rejects.toThrow(/rapidFollowupPreempt: true is not supported by this agent runtime/);
    expect(api.requests).toHaveLength(0);
  });
});
