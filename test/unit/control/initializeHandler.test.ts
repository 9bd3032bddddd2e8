// initialize applied to a session through its InitializeTarget: what is set, what is refused as an
// error answer only, and what also ends the process (the SDK does not wait for this answer).
import { describe, expect, it } from 'vitest';
import { handleInitialize, type InitializeTarget } from '../../../src/control/initializeHandler.js';
import type { InitializeRequest } from '../../../src/protocol/inbound.js';

function target(overrides: Partial<InitializeTarget> = {}) {
  const calls: string[] = [];
  const exits: string[] = [];
  const log =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(`${name} ${JSON.stringify(args)}`);
    };
  const t: InitializeTarget = {
    connectInitializeMcp: log('connectInitializeMcp'),
    connectHostMcp: (...args) => {
      log('connectHostMcp')(...args);
      return {};
    },
    setJsonSchema: log('setJsonSchema'),
    setHostHooks: log('setHostHooks'),
    selectSkills: log('selectSkills'),
    loadPlugins: () => undefined,
    pluginsLoaded: () => true,
    setPlanModeInstructions: log('setPlanModeInstructions'),
    setToolAliases: log('setToolAliases'),
    setSystemPrompt: log('setSystemPrompt'),
    appendSystemPrompt: log('appendSystemPrompt'),
    appendSubagentSystemPrompt: log('appendSubagentSystemPrompt'),
    setTitle: log('setTitle'),
    setProgressSummaries: log('setProgressSummaries'),
    setPromptSuggestions: log('setPromptSuggestions'),
    setForwardSubagentText: log('setForwardSubagentText'),
    setPerTaskStopAffordance: log('setPerTaskStopAffordance'),
    setSdkAgents: log('setSdkAgents'),
    checkMainAgent: () => {},
    exitAfterAnswer: (m) => void exits.push(m),
    answer: () => ({ commands: [] }),
    ...overrides,
  };
  return { t, calls, exits };
}

const req = (r: Partial<InitializeRequest>): InitializeRequest =>
  ({ subtype: 'initialize', ...r }) as InitializeRequest;

describe('handleInitialize', () => {
  it('applies each field the host sent, and answers', () => {
    const { t, calls, exits } = target();
    const answer = handleInitialize(
      req({
        sdkMcpServers: ['ide'],
        systemPrompt: ['a', 'b'],
        appendSystemPrompt: 'more',
        title: '  My run  ',
        planModeInstructions: 'plan it',
        toolAliases: { A: 'Bash' },
        agentProgressSummaries: true,
      }),
      t,
    );
    expect(calls).toEqual([
      'connectHostMcp [["ide"],null]',
      'setPlanModeInstructions ["plan it"]',
      'setToolAliases [{"A":"Bash"}]',
      'setProgressSummaries [true]',
      'setSystemPrompt [["a","b"]]',
      'appendSystemPrompt ["more"]',
      'setTitle ["My run"]',
    ]);
    expect(exits).toEqual([]);
    expect(answer).toMatchObject({ commands: [], mcp_servers_applied: false });
  });

  it('a bad jsonSchema is an error answer naming the field; the session goes on', () => {
    const { t, exits } = target({
      setJsonSchema: () => {
        throw new Error('not an object schema');
      },
    });
    expect(() => handleInitialize(req({ jsonSchema: { type: 'string' } }), t)).toThrow(
      'initialize: jsonSchema: not an object schema',
    );
    expect(exits).toEqual([]);
  });

  it('a broken plugin, an unknown skill or an unknown --agent end the process after the error answer', async () => {
    const plugins = target({ loadPlugins: () => Promise.reject(new Error('/p: no .claude-plugin/plugin.json')) });
    await expect(handleInitialize(req({ plugins: [{ type: 'local', path: '/p' }] }), plugins.t)).rejects.toThrow(
      'initialize: plugins: /p: no .claude-plugin/plugin.json',
    );
    expect(plugins.exits).toEqual(['initialize: plugins: /p: no .claude-plugin/plugin.json']);

    const skills = target({
      selectSkills: () => {
        throw new Error('skills: no skill named "nope"');
      },
    });
    expect(() => handleInitialize(req({ skills: ['nope'] }), skills.t)).toThrow(
      'initialize: skills: no skill named "nope"',
    );
    expect(skills.exits).toEqual(['initialize: skills: no skill named "nope"']);

    const agent = target({
      checkMainAgent: () => {
        throw new Error('--agent x: no agent of that name');
      },
    });
    expect(() => handleInitialize(req({}), agent.t)).toThrow('--agent x: no agent of that name');
    expect(agent.exits).toEqual(['--agent x: no agent of that name']);
  });

  it('the host agents are set, and its plugins loaded, before skills are chosen and --agent is looked up', async () => {
    const order: string[] = [];
    const { t } = target({
      setSdkAgents: () => void order.push('agents'),
      loadPlugins: async () => void order.push('plugins'),
      selectSkills: () => void order.push('skills'),
      checkMainAgent: () => void order.push('lookup'),
    });
    const answer = await handleInitialize(
      req({ agents: { x: {} }, plugins: [{ type: 'local', path: '/p' }], skills: 'all' }),
      t,
    );
    expect(order).toEqual(['agents', 'plugins', 'skills', 'lookup']);
    expect(answer).toMatchObject({ plugins_applied: true });
  });

  it('declarations whose absence is what runs here: false is fine, true is an error answer naming the field', () => {
    for (const field of [
      'rapidFollowupPreempt',
      'forwardNestedSubagentToolCalls',
      'offersBypassSwitchBack',
      'keepsBypassHeld',
    ] as const) {
      expect(() => handleInitialize(req({ [field]: true }), target().t)).toThrow(
        `initialize: ${field}: true is not supported`,
      );
      expect(handleInitialize(req({ [field]: false }), target().t)).toMatchObject({ commands: [] });
    }
  });

  it('sdkMcpServerConfigs with a setting for a named server, and settings delivered here, are error answers', () => {
    const { t } = target();
    expect(() =>
      handleInitialize(req({ sdkMcpServers: ['s'], sdkMcpServerConfigs: { s: { timeout: 5000 } } }), t),
    ).toThrow('initialize: sdkMcpServerConfigs is not supported by this agent runtime (server "s" sets timeout)');
    // An entry with nothing set, or for a server not named, states nothing (the SDK's rule).
    expect(
      handleInitialize(req({ sdkMcpServers: ['s'], sdkMcpServerConfigs: { s: {}, other: { timeout: 1 } } }), t),
    ).toMatchObject({ commands: [] });
    for (const field of ['settings', 'managedSettings', 'disallowedTools'] as const)
      expect(() => handleInitialize(req({ [field]: {} }), target().t)).toThrow(
        `initialize: ${field} is not read from initialize`,
      );
  });

  it('answers what became of the manifests and of a trust attestation', () => {
    const { t } = target({ connectHostMcp: () => ({ s: 'parked' }) });
    expect(
      handleInitialize(
        req({ sdkMcpServers: ['s'], sdkMcpServerManifests: {}, workspaceTrust: { accepted: true, directory: '/w' } }),
        t,
      ),
    ).toMatchObject({ sdk_mcp_manifests_parked: { s: 'parked' }, workspace_trust_recorded: false });
    expect(handleInitialize(req({ sdkMcpServers: ['s'] }), t)).not.toHaveProperty('sdk_mcp_manifests_parked');
  });
});
