// What issue 12 has not built yet (the SlashCommand tool) fails
// loudly when a host asks for it: never a session that silently runs without it.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { runAgent, STREAM_ARGS, startAgent, startFakeApi, tempDir, type FakeApi, once } from './harness.js';
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

/** A stream-json session's answer to one initialize request with `extra`; a refusal ends the session. */
async function answers(extra: object) {
  const p = startAgent({ api, args: STREAM_ARGS });
  p.send({ type: 'control_request', request_id: 'i1', request: { subtype: 'initialize', ...extra } });
  const m = await p.waitFor((l) => l.type === 'control_response');
  p.endInput();
  await p.exited;
  return m.response;
}

/**
 * The initialize requests one session answers without ending (what is accepted, and bad shapes,
 * which are error answers), sent in turn on one stream-json session made once for the file, each
 * answered under its own request id; the session's last request is a refused declaration, which
 * ends it (exit 2). A refusal ends the process, so the other refusals run one process each.
 */
const SHARED = {
  'dynamic-false': { excludeDynamicSections: false },
  'dynamic-custom-prompt': { excludeDynamicSections: true, systemPrompt: 'You are terse.' },
  'snapshot-false-lists-empty': {
    systemPromptSnapshot: false,
    codeRunningMcpTools: [],
    webSearchIsolationExemptMcpServers: [],
  },
  'declarations-false': {
    rapidFollowupPreempt: false,
    forwardNestedSubagentToolCalls: false,
    offersBypassSwitchBack: false,
    keepsBypassHeld: false,
  },
  'dialogs-trust': {
    supportedDialogKinds: ['refusal_fallback_prompt'],
    workspaceTrust: { accepted: true, directory: '/w' },
  },
  'dialogs-not-a-list': { supportedDialogKinds: 'all' },
  'trust-not-an-object': { workspaceTrust: true },
  'keeps-bypass-held': { keepsBypassHeld: true },
} as const;
const shared = once(runShared);

async function runShared() {
  const fake = await startFakeApi([]);
  try {
    const p = startAgent({ api: fake, args: STREAM_ARGS });
    const byId: Record<string, Record<string, any>> = {};
    for (const [id, extra] of Object.entries(SHARED)) {
      p.send({ type: 'control_request', request_id: id, request: { subtype: 'initialize', ...extra } });
      byId[id] = (await p.waitFor((l) => l.type === 'control_response' && l.response?.request_id === id)).response;
    }
    p.endInput();
    const exit = await p.exited;
    return { byId, exit, stderr: p.stderr(), requests: fake.requests.length };
  } finally {
    await fake.close();
  }
}

/** The shared session's answer to the request `id` (its failure fails every test that reads it). */
async function sharedAnswer(id: keyof typeof SHARED) {
  const s = await shared();
  const answer = s.byId[id];
  expect(answer, `the shared session's answer to ${id}`).toBeDefined();
  return answer!;
}

describe('initialize options not built: refused, never ignored', () => {
  it('excludeDynamicSections: true is an error answer naming it; false, or with a custom prompt (no effect), is fine', async () => {
    api = await startFakeApi([]);
    const refused = await answers({ excludeDynamicSections: true });
    expect(refused).toMatchObject({ subtype: 'error', request_id: 'i1' });
    expect(refused.error).toContain('excludeDynamicSections is not supported');
    expect(await sharedAnswer('dynamic-false')).toMatchObject({ subtype: 'success', request_id: 'dynamic-false' });
    expect(await sharedAnswer('dynamic-custom-prompt')).toMatchObject({
      subtype: 'success',
      request_id: 'dynamic-custom-prompt',
    });
  });
  it('systemPromptSnapshot: true, codeRunningMcpTools and webSearchIsolationExemptMcpServers (non-empty) are error answers naming them', async () => {
    api = await startFakeApi([]);
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
    expect(await sharedAnswer('snapshot-false-lists-empty')).toMatchObject({ subtype: 'success' });
  });

  it('hidden declarations asking for what is not built (true) are error answers naming them; false is what runs', async () => {
    api = await startFakeApi([]);
    for (const field of ['rapidFollowupPreempt', 'forwardNestedSubagentToolCalls', 'offersBypassSwitchBack']) {
      const refused = await answers({ [field]: true });
      expect(refused).toMatchObject({ subtype: 'error', request_id: 'i1' });
      expect(refused.error).toContain(`${field}: true is not supported`);
    }
    // keepsBypassHeld: true is the shared session's last request, after the ones it accepted: it
    // is refused there too, and ends the session as every refusal does.
    const held = await sharedAnswer('keeps-bypass-held');
    expect(held).toMatchObject({ subtype: 'error', request_id: 'keeps-bypass-held' });
    expect(held.error).toContain('keepsBypassHeld: true is not supported');
    const s = await shared();
    expect(s.exit, s.stderr).toEqual({ code: 2, signal: null });
    expect(s.requests).toBe(0);
    expect(await sharedAnswer('declarations-false')).toMatchObject({ subtype: 'success' });
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
    expect(await sharedAnswer('dialogs-trust')).toMatchObject({
      subtype: 'success',
      response: { workspace_trust_recorded: false },
    });
    expect((await sharedAnswer('dialogs-not-a-list')).error).toContain(
      'supportedDialogKinds must be a list of strings',
    );
    expect((await sharedAnswer('trust-not-an-object')).error).toContain('workspaceTrust must be {accepted, directory}');
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
