// The session's configuration is resolved once, and the model rule is written once: every way back
// to "the default" (set_model "default", a settings reload dropping `model`, /model default) lands on
// the same model, which --model, then ANTHROPIC_MODEL, then the built-in default decide.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, resolveSessionConfig, sessionModel } from '../../../src/app/sessionConfig.js';
import { parseOptions, type CliOptions } from '../../../src/cli/options.js';
import { ALL_SOURCES, type LoadedSettings } from '../../../src/settings/index.js';

function options(argv: string[]): CliOptions {
  const parsed = parseOptions(argv);
  if (parsed.kind !== 'run') throw new Error('options did not parse');
  return parsed.options;
}

const loaded = { settings: {}, files: [], permissions: {}, hooks: {} } as unknown as LoadedSettings;
const resolveWith = (argv: string[], env: NodeJS.ProcessEnv) =>
  resolveSessionConfig(options(argv), { cwd: '/work', env, loaded, interactive: false, sources: ALL_SOURCES });

describe('session config', () => {
  it('the default model: --model, else ANTHROPIC_MODEL, else the built-in default', () => {
    expect(resolveWith(['--model', 'opus'], { ANTHROPIC_MODEL: 'x-model' }).config.defaultModel).toBe(
      'claude-opus-5-5',
    );
    expect(resolveWith([], { ANTHROPIC_MODEL: 'x-model' }).config.defaultModel).toBe('x-model');
    expect(resolveWith([], {}).config.defaultModel).toBe(DEFAULT_MODEL);
    // Each layer's "default" is the one below it; an empty ANTHROPIC_MODEL is none.
    expect(resolveWith(['--model', 'default'], { ANTHROPIC_MODEL: 'x-model' }).config.defaultModel).toBe('x-model');
    expect(resolveWith([], { ANTHROPIC_MODEL: 'default' }).config.defaultModel).toBe(DEFAULT_MODEL);
    expect(resolveWith([], { ANTHROPIC_MODEL: '' }).config.defaultModel).toBe(DEFAULT_MODEL);
    expect(resolveWith([], { ANTHROPIC_MODEL: 'haiku' }).config.defaultModel).toBe('claude-haiku-5-5');
  });

  it('--fallback-model goes through the same rule (default is the session default)', () => {
    expect(resolveWith(['--fallback-model', 'sonnet'], {}).config.fallbackModel).toBe('claude-sonnet-5-5');
    expect(resolveWith(['--fallback-model', 'default'], { ANTHROPIC_MODEL: 'x-model' }).config.fallbackModel).toBe(
      'x-model',
    );
  });

  it('a --fallback-model that is the main model is said: the loop never falls back to the model that failed', () => {
    expect(resolveWith(['--fallback-model', 'default'], { ANTHROPIC_MODEL: 'x-model' }).warnings).toEqual([
      '--fallback-model default is the main model (x-model): it will not be used',
    ]);
    expect(resolveWith(['--model', 'opus', '--fallback-model', 'sonnet'], {}).warnings).toEqual([]);
  });

  it('sessionModel: an explicit model wins (aliases resolved); none or "default" is the session default', () => {
    const { config } = resolveWith([], { ANTHROPIC_MODEL: 'x-model' });
    expect(sessionModel(config, 'default')).toBe('x-model');
    expect(sessionModel(config, undefined)).toBe('x-model');
    expect(sessionModel(config, '')).toBe('x-model');
    expect(sessionModel(config, 'claude-haiku-4-5')).toBe('claude-haiku-4-5');
  });

  it('a bad AGENT_TEAMMATE_TIMEOUT_MS is a warning, not a failure; a bad ENABLE_TOOL_SEARCH throws', () => {
    const r = resolveWith([], { AGENT_TEAMMATE_TIMEOUT_MS: 'soon' });
    expect(r.config.teammateTimeoutMs).toBeUndefined();
    expect(r.warnings).toEqual([expect.stringContaining('AGENT_TEAMMATE_TIMEOUT_MS="soon"')]);
    expect(() => resolveWith([], { ENABLE_TOOL_SEARCH: 'sometimes' })).toThrow();
  });

  it('the provider and the key source are resolved once, with the config, as the init line reports them', () => {
    const withHelper = { ...loaded, settings: { apiKeyHelper: 'print-key' } } as unknown as LoadedSettings;
    const resolveFor = (env: NodeJS.ProcessEnv, l = loaded) =>
      resolveSessionConfig(options([]), { cwd: '/work', env, loaded: l, interactive: false, sources: ALL_SOURCES })
        .config;
    expect(resolveFor({ ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      apiProvider: 'firstParty',
      apiKeySource: 'ANTHROPIC_API_KEY',
    });
    // A bearer token is no API key; the apiKeyHelper setting is.
    expect(resolveFor({ ANTHROPIC_AUTH_TOKEN: 't' }).apiKeySource).toBe('none');
    expect(resolveFor({}, withHelper).apiKeySource).toBe('apiKeyHelper');
    // A cloud provider's credentials are the cloud's own.
    expect(resolveFor({ CLAUDE_CODE_USE_BEDROCK: '1', ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      apiProvider: 'bedrock',
      apiKeySource: 'none',
    });
  });

  it("the settings' credential commands are the config's auth, which the model API is built with", () => {
    const commands = {
      apiKeyHelper: 'print-key',
      awsAuthRefresh: 'aws sso login',
      awsCredentialExport: 'print-aws',
      gcpAuthRefresh: 'gcloud auth application-default login',
    };
    const withCommands = { ...loaded, settings: { ...commands, model: 'opus' } } as unknown as LoadedSettings;
    const resolveFor = (l: LoadedSettings) =>
      resolveSessionConfig(options([]), { cwd: '/work', env: {}, loaded: l, interactive: false, sources: ALL_SOURCES })
        .config.auth;
    expect(resolveFor(withCommands)).toEqual(commands);
    expect(resolveFor(loaded)).toEqual({});
  });
});
