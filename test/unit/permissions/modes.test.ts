import type { Tool } from '../../../tools/tool.js';
import { WebFetchTool } from '../../../tools/webFetch.js';
import { describe, expect, it } from 'vitest';
import { decidePermission, PermissionConfigError, validatePermissionMode } from '../../../src/permissions/index.js';
import { bypassAloneAllowed } from '../../../src/permissions/modes.js';
import { Bash, fakeTool, Read, state, tmpDir, Write } from './helpers.js';
import { callFacts } from '../../../tools/toolCall.js';

const cwd = tmpDir();
const Web = fakeTool('WebFetch', true, WebFetchTool as Tool);
const Mcp = fakeTool('mcp__github__create_issue', false);
const write = (s: ReturnType<typeof state>, extra: object = {}) =>
  decidePermission(s, { call: callFacts(Write, 'Write', { file_path: 'a.txt', content: 'x' }), ...extra });
const bash = (s: ReturnType<typeof state>, command: string, extra: object = {}) =>
  decidePermission(s, { call: callFacts(Bash, 'Bash', { command }), ...extra });

describe('modes', () => {
  it('default: edits ask with a setMode acceptEdits suggestion; reads pass', () => {
    const s = state({ cwd });
    const d = write(s);
    expect(d.behavior).toBe('ask');
    expect(d.behavior === 'ask' && d.hint).toContain('--permission-mode acceptEdits');
    expect(d.behavior === 'ask' && d.suggestions).toEqual([
      { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
    ]);
    expect(decidePermission(s, { call: callFacts(Read, 'Read', { file_path: 'a.txt' }) }).behavior).toBe('allow');
    expect(decidePermission(s, { call: callFacts(Web, 'WebFetch', { url: 'https://x.y' }) }).behavior).toBe('ask');
  });

  it("WebFetch asks with a rule for the url's domain, not for every site; a url that is not http(s) gets the whole-tool suggestion", () => {
    const s = state({ cwd });
    const d = decidePermission(s, { call: callFacts(Web, 'WebFetch', { url: 'https://Docs.Example.com/a?b=1' }) });
    expect(d.behavior === 'ask' && d.suggestions).toEqual([
      {
        type: 'addRules',
        rules: [{ toolName: 'WebFetch', ruleContent: 'domain:docs.example.com' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(d.behavior === 'ask' && d.hint).toContain('WebFetch(domain:docs.example.com)');
    // The suggestion, once applied, is a rule that allows that site and no other.
    const after = state({ cwd, allow: ['WebFetch(domain:docs.example.com)'] });
    expect(
      decidePermission(after, { call: callFacts(Web, 'WebFetch', { url: 'https://docs.example.com/x' }) }).behavior,
    ).toBe('allow');
    expect(
      decidePermission(after, { call: callFacts(Web, 'WebFetch', { url: 'https://evil.example/x' }) }).behavior,
    ).toBe('ask');
    const odd = decidePermission(s, { call: callFacts(Web, 'WebFetch', { url: 'not a url' }) });
    expect(odd.behavior === 'ask' && odd.suggestions).toEqual([
      { type: 'addRules', rules: [{ toolName: 'WebFetch' }], behavior: 'allow', destination: 'session' },
    ]);
  });

  it('acceptEdits allows edits in cwd, and the file-system shell commands on paths inside the working directories', () => {
    const s = state({ cwd, mode: 'acceptEdits' });
    expect(write(s).behavior).toBe('allow');
    for (const command of [
      'touch a',
      'mkdir -p a/b && touch a/b/c',
      'rm -rf build',
      'rmdir empty',
      'mv a b',
      'cp -r a b',
      "sed -i 's/a/b/' notes.txt",
      "sed -e 's#/etc#x#' -i notes.txt",
      'touch x && ls',
      'touch x; echo hi > y',
      'echo hi > notes.txt',
      `touch ${cwd}/abs`,
    ]) {
      expect(bash(s, command).behavior, command).toBe('allow');
    }
  });

  it('acceptEdits still asks for a shell command outside the list, a path outside, or a path it cannot read', () => {
    const s = state({ cwd, mode: 'acceptEdits' });
    const outside = bash(s, 'touch /etc/agent-test');
    expect(outside.behavior).toBe('ask');
    expect(outside.behavior === 'ask' && outside.blockedPath).toBe('/etc/agent-test');
    for (const command of [
      'touch ../x',
      'chmod +x f',
      'touch x && chmod +x x',
      'ln -s f l',
      'rm -rf $HOME/x',
      'rm -rf ~root/x',
      'cp a {b,/etc/x}',
      'FOO=1 touch x',
      'touch $(cat list)',
      'echo hi > /tmp/out',
      "sed -i 's/a/b/' /etc/hosts",
      'sed -f ../script f',
      'mv -t /etc f',
      'cp --target-directory=/etc f',
      'npm install',
    ]) {
      expect(bash(s, command).behavior, command).toBe('ask');
    }
    // Not acceptEdits: the same commands ask.
    expect(bash(state({ cwd }), 'touch a').behavior).toBe('ask');
  });

  it('acceptEdits: deny and ask rules still win over the file-system commands', () => {
    const s = state({ cwd, mode: 'acceptEdits', deny: ['Bash(rm:*)'], ask: ['Bash(mv:*)'] });
    expect(bash(s, 'rm -rf build').behavior).toBe('deny');
    expect(bash(s, 'touch a && rm a').behavior).toBe('deny');
    expect(bash(s, 'mv a b').behavior).toBe('ask');
    const paths = state({ cwd, mode: 'acceptEdits', deny: ['Edit(./secret/**)'] });
    expect(bash(paths, 'echo x > secret/key').behavior).toBe('deny');
  });

  it('plan asks about a file edit (reason type mode) and denies other side effects, even when a rule allows them; reads pass', () => {
    const s = state({ cwd, mode: 'plan', allow: ['Write', 'Bash'] });
    const d = write(s);
    expect(d).toMatchObject({ behavior: 'ask', reasonType: 'mode', message: expect.stringMatching(/plan mode/) });
    expect(write(s, { hookDecision: { behavior: 'allow' } }).behavior).toBe('ask');
    expect(write(s, { hookDecision: { behavior: 'deny' } }).behavior).toBe('deny');
    expect(bash(s, 'touch a')).toMatchObject({ behavior: 'deny', reasonType: 'mode' });
    expect(bash(s, 'echo a').behavior).toBe('allow');
    expect(decidePermission(s, { call: callFacts(Read, 'Read', { file_path: 'a.txt' }) }).behavior).toBe('allow');
  });

  it('dontAsk denies what is not pre-approved, naming what would allow it', () => {
    const s = state({ cwd, mode: 'dontAsk', allow: ['mcp__github'] });
    const d = bash(s, 'npm test');
    expect(d.behavior).toBe('deny');
    expect(d.behavior === 'deny' && d.message).toContain('--allowedTools "Bash(npm test:*)"');
    expect(decidePermission(s, { call: callFacts(Mcp, Mcp.name, {}) }).behavior).toBe('allow');
  });

  it('bypassPermissions allows everything but deny rules, and needs the opt-in flag', () => {
    const s = state({ cwd, mode: 'bypassPermissions', allowBypass: true, deny: ['Bash(rm:*)'] });
    expect(bash(s, 'curl x | sh').behavior).toBe('allow');
    expect(write(s).behavior).toBe('allow');
    expect(bash(s, 'rm -rf x').behavior).toBe('deny');
    expect(() => state({ cwd, mode: 'bypassPermissions' })).toThrow(PermissionConfigError);
    expect(() => validatePermissionMode('bypassPermissions', { allowBypass: false })).toThrow(
      /--dangerously-skip-permissions/,
    );
    expect(() => validatePermissionMode('yolo', { allowBypass: true })).toThrow(/unknown permission mode "yolo"/);
  });

  it('setMode changes the mode mid-session and refuses bypass without opt-in', () => {
    const s = state({ cwd });
    s.setMode('acceptEdits');
    expect(write(s).behavior).toBe('allow');
    expect(() => s.setMode('bypassPermissions')).toThrow(PermissionConfigError);
    expect(s.mode).toBe('acceptEdits');
  });

  it('host updates add rules and directories for the session', () => {
    const s = state({ cwd });
    expect(bash(s, 'npm test').behavior).toBe('ask');
    s.addRules([
      {
        type: 'addRules',
        rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
        behavior: 'allow',
        destination: 'localSettings',
      },
    ]);
    expect(bash(s, 'npm test').behavior).toBe('allow');
    s.addRules([
      {
        type: 'removeRules',
        rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(bash(s, 'npm test').behavior).toBe('ask');
    s.addRules([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]);
    expect(s.mode).toBe('acceptEdits');
  });
});

describe('deny > ask > allow, hooks in between', () => {
  it('deny beats ask beats allow', () => {
    const s = state({ cwd, allow: ['Bash'], ask: ['Bash(git push:*)'], deny: ['Bash(git push --force:*)'] });
    expect(bash(s, 'git status').behavior).toBe('allow');
    expect(bash(s, 'git push origin').behavior).toBe('ask');
    expect(bash(s, 'git push --force').behavior).toBe('deny');
  });

  it('a hook deny beats allow rules; a hook allow passes what would ask; deny rules beat a hook allow', () => {
    const s = state({ cwd, allow: ['Bash'], deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] });
    const d = bash(s, 'ls', { hookDecision: { behavior: 'deny', reason: 'no ls today' } });
    expect(d).toMatchObject({ behavior: 'deny', message: 'no ls today' });
    expect(bash(s, 'rm x', { hookDecision: { behavior: 'allow' } }).behavior).toBe('deny');
    expect(bash(s, 'git push', { hookDecision: { behavior: 'allow' } }).behavior).toBe('ask');
    expect(bash(s, 'ls', { hookDecision: { behavior: 'ask' } }).behavior).toBe('ask');
    const t = state({ cwd });
    expect(bash(t, 'make', { hookDecision: { behavior: 'allow' } }).behavior).toBe('allow');
  });
});

describe('bypassPermissions on its own (the reference rule)', () => {
  it('is taken by a non-root user, and by root only in a deliberate sandbox', () => {
    expect(bypassAloneAllowed({}, 1000)).toBe(true);
    expect(bypassAloneAllowed({}, 0)).toBe(false);
    expect(bypassAloneAllowed({ IS_SANDBOX: '1' }, 0)).toBe(true);
    expect(bypassAloneAllowed({ IS_SANDBOX: 'yes' }, 0)).toBe(false);
    expect(bypassAloneAllowed({ CLAUDE_CODE_BUBBLEWRAP: '1' }, 0)).toBe(true);
  });
});
