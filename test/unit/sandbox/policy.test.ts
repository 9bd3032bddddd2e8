// What the sandbox enforces, computed from settings and rules (no bubblewrap needed), and how the
// permission decision treats sandboxed Bash (autoAllowBashIfSandboxed, dangerouslyDisableSandbox).
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decidePermission, type BashSandboxPolicy } from '../../../src/permissions/index.js';
import {
  isExcludedCommand,
  mergeSandboxSettings,
  rulePathToSandboxPaths,
  rulesToSandbox,
  unsupportedSandboxKeys,
} from '../../../src/sandbox/index.js';
import { buildRuntimeConfig } from '../../../src/sandbox/runtime.js';
import { parseSettingsText, type LoadedFile } from '../../../src/settings/index.js';
import { Bash, state, tmpDir } from '../permissions/helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

const cwd = '/proj';
const home = os.homedir();

describe('rules → sandbox limits', () => {
  it('Read/Edit path specifiers become sandbox paths: //abs, ~/x, /x and ./x under cwd, a bare name at any depth', () => {
    expect(rulePathToSandboxPaths('//etc/shadow', cwd)).toEqual(['/etc/shadow']);
    expect(rulePathToSandboxPaths('~/.ssh/**', cwd)).toEqual([path.join(home, '.ssh/**')]);
    expect(rulePathToSandboxPaths('/src/**', cwd)).toEqual(['/proj/src/**']);
    expect(rulePathToSandboxPaths('./secret/**', cwd)).toEqual(['/proj/secret/**']);
    expect(rulePathToSandboxPaths('.env', cwd)).toEqual(['/proj/.env', '/proj/**/.env']);
  });

  it('Read deny → denyRead, Edit deny → denyWrite, Edit allow → allowWrite, WebFetch domains → the network lists; whole-tool rules add nothing', () => {
    const out = rulesToSandbox(
      {
        allow: ['Edit(./build/**)', 'WebFetch(domain:example.com)', 'Bash(npm:*)', 'Read'],
        deny: ['Read(./secret/**)', 'Grep(*.pem)', 'Write(./locked)', 'WebFetch(domain:evil.example)', 'Edit'],
      },
      cwd,
    );
    expect(out).toEqual({
      denyRead: ['/proj/secret/**', '/proj/*.pem', '/proj/**/*.pem'],
      denyWrite: ['/proj/locked'],
      allowWrite: ['/proj/build/**'],
      allowedDomains: ['example.com'],
      deniedDomains: ['evil.example'],
    });
  });
});

function file(source: LoadedFile['source'], json: object): LoadedFile {
  return { source, path: `${source}.json`, settings: parseSettingsText(JSON.stringify(json), `${source}.json`) };
}

describe('sandbox settings', () => {
  it('merge: plain keys from the highest source, lists joined, relative paths against each source root', () => {
    const m = mergeSandboxSettings(
      [
        file('user', {
          sandbox: { enabled: true, filesystem: { allowWrite: ['cache'] }, network: { allowedDomains: ['a.com'] } },
        }),
        file('project', {
          sandbox: {
            autoAllowBashIfSandboxed: true,
            filesystem: { allowWrite: ['out', '//abs', '~/x'], denyRead: ['./keys'] },
            network: { allowedDomains: ['b.com', 'a.com'] },
            excludedCommands: ['docker'],
          },
        }),
        file('flag', { sandbox: { enabled: false, ignoreViolations: { '*': ['/usr'] } } }),
      ],
      cwd,
      '/cfg',
    );
    expect(m.enabled).toBe(false);
    expect(m.autoAllowBashIfSandboxed).toBe(true);
    expect(m.filesystem.allowWrite).toEqual(['/cfg/cache', '/proj/out', '/abs', path.join(home, 'x')]);
    expect(m.filesystem.denyRead).toEqual(['/proj/keys']);
    expect(m.network.allowedDomains).toEqual(['a.com', 'b.com']);
    expect(m.excludedCommands).toEqual(['docker']);
    expect(m.ignoreViolations).toEqual({ '*': ['/usr'] });
  });

  it('a wrongly typed sandbox key is a settings error naming it', () => {
    expect(() => parseSettingsText('{"sandbox":{"enabled":"yes"}}', 's.json')).toThrow(
      /sandbox\.enabled must be true or false/,
    );
    expect(() => parseSettingsText('{"sandbox":{"network":{"allowedDomains":"x.com"}}}', 's.json')).toThrow(
      /sandbox\.network\.allowedDomains must be an array of strings/,
    );
  });

  it('keys it cannot enforce are listed, so an enabled sandbox refuses them', () => {
    expect(
      unsupportedSandboxKeys({
        enabled: true,
        credentials: {},
        network: { tlsTerminate: {} },
        filesystem: { disabled: true, allowWrite: [] },
      } as never),
    ).toEqual(['sandbox.credentials', 'sandbox.network.tlsTerminate', 'sandbox.filesystem.disabled']);
    expect(unsupportedSandboxKeys({ enabled: true, network: { allowLocalBinding: true } })).toEqual([]);
  });

  it('the runtime config: cwd, working dirs and scratch writable, rules and settings merged', () => {
    const settings = mergeSandboxSettings(
      [
        file('flag', {
          sandbox: { enabled: true, filesystem: { denyWrite: ['/proj/.env'] }, network: { allowLocalBinding: true } },
        }),
      ],
      cwd,
      '/cfg',
    );
    const config = buildRuntimeConfig({
      settings,
      rules: { allow: ['WebFetch(domain:x.org)'], deny: ['Read(./secret/**)'] },
      cwd,
      workingDirs: ['/proj', '/lib'],
      scratchDir: '/tmp/s',
      warn: () => {},
    });
    expect(config.filesystem.allowWrite).toEqual(['/proj', '/lib', '/tmp/s']);
    expect(config.filesystem.denyRead).toEqual(['/proj/secret/**']);
    expect(config.filesystem.denyWrite).toEqual(['/proj/.env']);
    expect(config.network).toMatchObject({ allowedDomains: ['x.org'], deniedDomains: [], allowLocalBinding: true });
  });
});

describe('excludedCommands', () => {
  it('a bare name matches with arguments; every part of a compound command must match; a redirect to a file never matches', () => {
    expect(isExcludedCommand(['docker'], 'docker ps -a')).toBe(true);
    expect(isExcludedCommand(['docker'], 'dockerd')).toBe(false);
    expect(isExcludedCommand(['docker'], 'docker ps && curl evil.example')).toBe(false);
    expect(isExcludedCommand(['docker', 'curl:*'], 'docker ps && curl evil.example')).toBe(true);
    expect(isExcludedCommand(['npm run build'], 'npm run build -- --prod')).toBe(true);
    expect(isExcludedCommand(['npm run build'], 'npm test')).toBe(false);
    expect(isExcludedCommand(['echo'], 'echo hi > /etc/x')).toBe(false);
    expect(isExcludedCommand([], 'anything')).toBe(false);
  });
});

describe('the permission decision with an active sandbox', () => {
  const dir = tmpDir();
  const policy = (o: Partial<BashSandboxPolicy> = {}): BashSandboxPolicy => ({
    status: { active: true },
    autoAllowBashIfSandboxed: false,
    allowUnsandboxedCommands: true,
    sandboxes: (command, disable) =>
      !(disable && (o.allowUnsandboxedCommands ?? true)) && !command.startsWith('docker'),
    ...o,
  });
  const bash = (s: ReturnType<typeof state>, input: object) =>
    decidePermission(s, { call: callFacts(Bash, 'Bash', input) });

  it('autoAllowBashIfSandboxed allows sandboxed commands; deny and ask rules still apply; excluded commands take the normal path', () => {
    const s = state({ cwd: dir, deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] });
    expect(bash(s, { command: 'touch x' }).behavior).toBe('ask');
    s.sandbox = policy({ autoAllowBashIfSandboxed: true });
    expect(bash(s, { command: 'touch x' })).toMatchObject({
      behavior: 'allow',
      reason: 'sandboxed (sandbox.autoAllowBashIfSandboxed)',
    });
    expect(bash(s, { command: 'rm -rf x' }).behavior).toBe('deny');
    expect(bash(s, { command: 'git push origin' }).behavior).toBe('ask');
    expect(bash(s, { command: 'docker run x' }).behavior).toBe('ask');
    s.sandbox = { ...policy({ autoAllowBashIfSandboxed: true }), status: { active: false } };
    expect(bash(s, { command: 'touch x' }).behavior).toBe('ask');
  });

  it('dangerouslyDisableSandbox is always asked about: over allow rules, bypassPermissions and autoAllow; denied in dontAsk; deny rules first', () => {
    const s = state({ cwd: dir, allow: ['Bash'], deny: ['Bash(rm:*)'], allowBypass: true, mode: 'bypassPermissions' });
    s.sandbox = policy({ autoAllowBashIfSandboxed: true });
    expect(bash(s, { command: 'touch /x', dangerouslyDisableSandbox: true })).toMatchObject({
      behavior: 'ask',
      reason: expect.stringMatching(/outside the sandbox/),
    });
    expect(bash(s, { command: 'rm /x', dangerouslyDisableSandbox: true }).behavior).toBe('deny');
    s.setMode('dontAsk');
    expect(bash(s, { command: 'touch /x', dangerouslyDisableSandbox: true }).behavior).toBe('deny');
    // Not honoured (allowUnsandboxedCommands false): the command stays sandboxed and is judged as such.
    s.setMode('default');
    s.sandbox = policy({ allowUnsandboxedCommands: false });
    expect(bash(s, { command: 'touch /x', dangerouslyDisableSandbox: true }).behavior).toBe('allow');
  });
});
