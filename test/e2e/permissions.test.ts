// Permissions end to end: bin/agent with settings files on disk, flags and a prompting host,
// against the fake Messages API. Every behaviour observed in PROTOCOL.md "Permissions and hooks".
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeApi, text } from '../fake-api/server.js';
import {
  calls,
  resultsById,
  runAgent,
  runTurns,
  startAgent,
  startTestApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type AgentProcess,
  type Call,
  sharedSession,
} from './harness.js';

function writeSettings(dir: string, file: string, value: unknown) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), typeof value === 'string' ? value : JSON.stringify(value));
}

const projectSettings = (cwd: string, value: unknown) => writeSettings(join(cwd, '.claude'), 'settings.json', value);

function resultOf(msgs: Array<Record<string, any>>) {
  const results = msgs.filter((m) => m.type === 'result');
  expect(results.length).toBeGreaterThan(0);
  return results[results.length - 1];
}

describe.concurrent('dontAsk with only Bash(echo:*) allowed', () => {
  it('refuses every attempt to slip a second command past the prefix rule; echo ok runs', async (ctx) => {
    const cwd = tempDir();
    const attempts = [
      'echo a && touch X',
      'echo a; touch X',
      'echo a || touch X',
      'echo $(touch X)',
      'echo `touch X`',
      'echo a | tee X',
      'echo a > X',
      'echo a\ntouch X',
      'echo "$(touch X)"',
      'echo a & touch X',
      '(touch X)',
      'echo a >> X',
    ];
    const list: Call[] = [...attempts.map((command): Call => ['Bash', { command }]), ['Bash', { command: 'echo ok' }]];
    const api = await startTestApi(ctx, [calls(list), text('done')]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'dontAsk', '--allowedTools', 'Bash(echo:*)'],
      input: userLine('try'),
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'X'))).toBe(false);
    const seen = resultsById(api.requests[1]);
    const result = resultOf(r.json());
    const deniedIds = result.permission_denials.map((d: any) => d.tool_use_id);
    attempts.forEach((command, i) => {
      const id = `t${i + 1}`;
      expect(seen[id].isError, command).toBe(true);
      expect(seen[id].text, command).toMatch(/denied/i);
      expect(deniedIds, command).toContain(id);
      expect(result.permission_denials.find((d: any) => d.tool_use_id === id)).toEqual({
        tool_name: 'Bash',
        tool_use_id: id,
        tool_input: { command },
      });
    });
    const ok = seen[`t${list.length}`];
    expect(ok.isError).toBe(false);
    expect(ok.text).toContain('ok');
    expect(deniedIds).not.toContain(`t${list.length}`);
    expect(result.permission_denials).toHaveLength(attempts.length);
  });
});

describe.concurrent('rules from settings files', () => {
  it('a Read deny rule holds against .., a symlink into the folder, and cat through Bash', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'secret'));
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'secret', 'key'), 'TOP-SECRET-VALUE\n');
    writeFileSync(join(cwd, 'src', 'ok.txt'), 'plain text\n');
    symlinkSync(join(cwd, 'secret'), join(cwd, 'innocent'));
    symlinkSync(join(cwd, 'secret', 'key'), join(cwd, 'key-link'));
    projectSettings(cwd, { permissions: { deny: ['Read(./secret/**)'] } });
    const api = await startTestApi(ctx, [
      calls([
        ['Read', { file_path: `${cwd}/src/../secret/key` }],
        ['Read', { file_path: `${cwd}/innocent/key` }],
        ['Read', { file_path: `${cwd}/key-link` }],
        ['Bash', { command: 'cat secret/key' }],
        ['Bash', { command: 'cat innocent/key' }],
        ['Grep', { pattern: 'SECRET', path: `${cwd}/secret` }],
        ['Read', { file_path: `${cwd}/src/ok.txt` }],
      ]),
      text('done'),
    ]);
    // Bash is allowed outright: the deny rule must still win.
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
      input: userLine('read the key'),
    });
    expect(r.code).toBe(0);
    const seen = resultsById(api.requests[1]);
    for (const id of ['t1', 't2', 't3', 't4', 't5', 't6']) {
      expect(seen[id].isError, id).toBe(true);
      expect(seen[id].text, id).toContain('Read(./secret/**)');
    }
    expect(seen.t7).toMatchObject({ isError: false });
    expect(seen.t7.text).toContain('plain text');
    expect(JSON.stringify(api.requests.map((q) => q.body))).not.toContain('TOP-SECRET-VALUE');
    expect(r.stdout).not.toContain('TOP-SECRET-VALUE');
    expect(resultOf(r.json()).permission_denials.map((d: any) => d.tool_use_id)).toEqual([
      't1',
      't2',
      't3',
      't4',
      't5',
      't6',
    ]);
  });

  it('a search rooted above a denied folder leaves the denied files out (Grep with rg and in JS, Glob)', async (ctx) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'secret'));
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'secret', 'key'), 'TOP-SECRET-VALUE\n');
    writeFileSync(join(cwd, 'src', 'ok.txt'), 'SECRET-free mention\n');
    projectSettings(cwd, { permissions: { deny: ['Read(./secret/**)'] } });
    for (const impl of ['rg', 'js']) {
      const api = await startTestApi(ctx, [
        calls([
          ['Grep', { pattern: 'SECRET', output_mode: 'content' }],
          ['Grep', { pattern: 'SECRET' }],
          ['Grep', { pattern: 'SECRET', output_mode: 'count' }],
          ['Glob', { pattern: '**/*' }],
        ]),
        text('done'),
      ]);
      const r = await runAgent({
        api,
        cwd,
        args: STREAM_ARGS,
        env: { AGENT_GREP_IMPL: impl },
        input: userLine('search'),
      });
      expect(r.code).toBe(0);
      const seen = resultsById(api.requests[1]);
      for (const id of ['t1', 't2', 't3', 't4']) {
        expect(seen[id].isError, `${impl} ${id}`).toBe(false);
        expect(seen[id].text, `${impl} ${id}`).not.toMatch(/secret[/]key|TOP-SECRET/);
      }
      expect(seen.t1.text).toContain('SECRET-free mention');
      expect(seen.t4.text).toContain('ok.txt');
      expect(r.stdout).not.toContain('TOP-SECRET-VALUE');
      await api.close();
    }
  });

  it('deny beats allow across sources (user deny vs local allow, project deny vs --allowedTools)', async (ctx) => {
    const cwd = tempDir();
    const config = tempDir('agent-config-');
    writeSettings(config, 'settings.json', { permissions: { deny: ['Bash(touch:*)'] } });
    writeSettings(join(cwd, '.claude'), 'settings.local.json', { permissions: { allow: ['Bash'] } });
    projectSettings(cwd, { permissions: { deny: ['Bash(mkdir:*)'] } });
    const api = await startTestApi(ctx, [
      calls([
        ['Bash', { command: 'touch A' }],
        ['Bash', { command: 'mkdir B' }],
        ['Bash', { command: 'echo fine' }],
      ]),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd,
      env: { CLAUDE_CONFIG_DIR: config },
      args: [...STREAM_ARGS, '--allowedTools', 'Bash(mkdir:*)'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toContain('Bash(touch:*)');
    expect(seen.t2.isError).toBe(true);
    expect(seen.t2.text).toContain('Bash(mkdir:*)');
    expect(seen.t3).toMatchObject({ isError: false });
    expect(existsSync(join(cwd, 'A'))).toBe(false);
    expect(existsSync(join(cwd, 'B'))).toBe(false);
  });

  it('no --setting-sources loads user, project and local; --setting-sources user ignores the project file', async (ctx) => {
    const cwd = tempDir();
    const config = tempDir('agent-config-');
    writeSettings(config, 'settings.json', { permissions: { allow: ['Bash(echo:*)'] } });
    projectSettings(cwd, { permissions: { allow: ['Bash(touch:*)'] } });
    writeSettings(join(cwd, '.claude'), 'settings.local.json', { permissions: { allow: ['Bash(mkdir:*)'] } });
    const list: Call[] = [
      ['Bash', { command: 'echo from-user' }],
      ['Bash', { command: 'touch P' }],
      ['Bash', { command: 'mkdir L' }],
    ];
    const args = [...STREAM_ARGS, '--permission-mode', 'dontAsk'];

    const api = await startTestApi(ctx, [calls(list), text('done')]);
    let r = await runAgent({ api, cwd, env: { CLAUDE_CONFIG_DIR: config }, args, input: userLine('all three') });
    expect(r.code).toBe(0);
    let seen = resultsById(api.requests[1]);
    expect([seen.t1.isError, seen.t2.isError, seen.t3.isError]).toEqual([false, false, false]);
    expect(existsSync(join(cwd, 'P')) && existsSync(join(cwd, 'L'))).toBe(true);
    await api.close();

    const cwd2 = tempDir();
    projectSettings(cwd2, { permissions: { allow: ['Bash(touch:*)'] } });
    writeSettings(join(cwd2, '.claude'), 'settings.local.json', { permissions: { allow: ['Bash(mkdir:*)'] } });
    const api2 = await startTestApi(ctx, [calls(list), text('done')]);
    r = await runAgent({
      api: api2,
      cwd: cwd2,
      env: { CLAUDE_CONFIG_DIR: config },
      args: [...args, '--setting-sources', 'user'],
      input: userLine('user only'),
    });
    expect(r.code).toBe(0);
    seen = resultsById(api2.requests[1]);
    expect([seen.t1.isError, seen.t2.isError, seen.t3.isError]).toEqual([false, true, true]);
    expect(existsSync(join(cwd2, 'P')) || existsSync(join(cwd2, 'L'))).toBe(false);
  });

  it('--settings adds a file or inline JSON on top', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([
        ['Bash', { command: 'touch S' }],
        ['Bash', { command: 'mkdir D' }],
      ]),
      text('done'),
    ]);
    writeFileSync(join(cwd, 'extra.json'), JSON.stringify({ permissions: { allow: ['Bash(touch:*)'] } }));
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'dontAsk', '--settings', 'extra.json'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    const seen = resultsById(api.requests[1]);
    expect([seen.t1.isError, seen.t2.isError]).toEqual([false, true]);
  });

  it('a settings file that is not valid JSON stops the start: exit 1, the file named, no API request', async (ctx) => {
    const cwd = tempDir();
    projectSettings(cwd, '{"permissions": {"allow": ["Bash",]}}');
    const api = await startTestApi(ctx, [text('must not be asked')]);
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('hi') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(cwd, '.claude', 'settings.json'));
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(api.requests).toHaveLength(0);
    expect(r.lines.filter((l) => l.includes('"assistant"'))).toEqual([]);
  });

  it('a schema error names the file and the key; a user file is checked too', async (ctx) => {
    const cwd = tempDir();
    projectSettings(cwd, { permissions: { allow: 'Bash(echo:*)' } });
    const api = await startTestApi(ctx, [text('must not be asked')]);
    let r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('hi') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(cwd, '.claude', 'settings.json'));
    expect(r.stderr).toContain('permissions.allow');
    expect(api.requests).toHaveLength(0);

    const config = tempDir('agent-config-');
    writeSettings(config, 'settings.json', { permissions: { defaultMode: 'yolo' } });
    r = await runAgent({
      api,
      cwd: tempDir(),
      env: { CLAUDE_CONFIG_DIR: config },
      args: STREAM_ARGS,
      input: userLine('hi'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(config, 'settings.json'));
    expect(r.stderr).toContain('permissions.defaultMode');
    // A malformed rule is a configuration error too.
    r = await runAgent({
      api,
      cwd: tempDir(),
      args: [...STREAM_ARGS, '--settings', '{"permissions":{"allow":["Bash(echo"]}}'],
      input: userLine('hi'),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Bash\(echo/);
    expect(api.requests).toHaveLength(0);
  });

  it('permissions.defaultMode and additionalDirectories from settings apply', async (ctx) => {
    const cwd = tempDir();
    const extra = tempDir('agent-extra-');
    projectSettings(cwd, { permissions: { defaultMode: 'acceptEdits', additionalDirectories: [extra] } });
    const api = await startTestApi(ctx, [
      calls([['Write', { file_path: join(extra, 'e.txt'), content: 'e' }]]),
      text('done'),
    ]);
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('go') });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'acceptEdits' });
    expect(readFileSync(join(extra, 'e.txt'), 'utf8')).toBe('e');
  });
});

describe.concurrent('modes', () => {
  it('acceptEdits: Write inside cwd and --add-dir runs, outside is refused; mkdir, touch, cp, mv, sed and rm inside the working directory run without asking, outside or chmod is refused', async (ctx) => {
    const cwd = tempDir();
    const extra = tempDir('agent-extra-');
    const outside = tempDir('agent-outside-');
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\n');
    const api = await startTestApi(ctx, [
      calls(
        [
          ['Write', { file_path: join(cwd, 'in.txt'), content: 'in' }],
          ['Write', { file_path: join(extra, 'added.txt'), content: 'added' }],
          ['Write', { file_path: join(outside, 'out.txt'), content: 'out' }],
          ['Write', { file_path: `${cwd}/../${outside.split('/').pop()}/dots.txt`, content: 'dots' }],
        ],
        'w',
      ),
      calls(
        [
          ['Bash', { command: 'mkdir -p out/sub && touch out/sub/made && cp notes.txt out/copy.txt' }],
          ['Bash', { command: "sed -i 's/alpha/beta/' notes.txt && mv out/copy.txt out/moved.txt && rm out/sub/made" }],
          ['Bash', { command: `touch ${join(outside, 'escaped')}` }],
          ['Bash', { command: 'touch x && chmod +x x' }],
        ],
        's',
      ),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'acceptEdits', '--add-dir', extra],
      input: userLine('write'),
    });
    expect(r.code).toBe(0);
    // Write.
    const wrote = resultsById(api.requests[1]);
    expect([wrote.w1.isError, wrote.w2.isError, wrote.w3.isError, wrote.w4.isError]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(wrote.w3.text).toContain(outside);
    expect(wrote.w3.text).toMatch(/--add-dir/);
    expect(readFileSync(join(cwd, 'in.txt'), 'utf8')).toBe('in');
    expect(readFileSync(join(extra, 'added.txt'), 'utf8')).toBe('added');
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
    expect(existsSync(join(outside, 'dots.txt'))).toBe(false);
    // Shell commands.
    const seen = resultsById(api.requests[2]);
    expect(seen.s1.isError, seen.s1.text).toBe(false);
    expect(seen.s2.isError, seen.s2.text).toBe(false);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('beta\n');
    expect(existsSync(join(cwd, 'out/moved.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'out/sub/made'))).toBe(false);
    expect(seen.s3.isError).toBe(true);
    expect(seen.s3.text).toContain(`${join(outside, 'escaped')} is outside the working directories`);
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(seen.s4.isError).toBe(true);
    expect(existsSync(join(cwd, 'x'))).toBe(false);
    expect(resultOf(r.json()).permission_denials.map((d: any) => d.tool_use_id)).toEqual(['w3', 'w4', 's3', 's4']);
  });

  it('default mode in text mode (-p) too: denied, never a hang', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([['Write', { file_path: join(cwd, 'w.txt'), content: 'w' }]]),
      text('could not write'),
    ]);
    const r = await runAgent({ api, cwd, args: ['-p', 'write it'] });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('could not write');
    expect(resultsById(api.requests[1]).t1.text).toMatch(/acceptEdits/);
    expect(existsSync(join(cwd, 'w.txt'))).toBe(false);
  });

  it('plan mode with nobody to ask: Write and Bash are refused with a plan-mode message and a permission_denied line (mode), Read runs', async (ctx) => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.txt'), 'line one\n');
    const api = await startTestApi(ctx, [
      calls([
        ['Write', { file_path: join(cwd, 'plan.txt'), content: 'x' }],
        ['Read', { file_path: join(cwd, 'notes.txt') }],
        ['Bash', { command: 'touch P' }],
      ]),
      text('here is my plan'),
    ]);
    // Even a rule that allows the tool does not lift plan mode.
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'plan', '--allowedTools', 'Write,Bash'],
      input: userLine('plan'),
    });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ subtype: 'init', permissionMode: 'plan' });
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toMatch(/plan mode/);
    expect(seen.t2.isError).toBe(false);
    expect(seen.t2.text).toContain('line one');
    expect(seen.t3.isError).toBe(true);
    expect(seen.t3.text).toMatch(/plan mode/);
    expect(existsSync(join(cwd, 'plan.txt')) || existsSync(join(cwd, 'P'))).toBe(false);
    const denied = r.json().filter((m) => m.type === 'system' && m.subtype === 'permission_denied');
    expect(denied).toEqual([
      expect.objectContaining({
        tool_name: 'Write',
        tool_use_id: 't1',
        decision_reason_type: 'mode',
        message: seen.t1.text,
      }),
      expect.objectContaining({
        tool_name: 'Bash',
        tool_use_id: 't3',
        decision_reason_type: 'mode',
        message: seen.t3.text,
      }),
    ]);
  });

  it('plan mode with a host: a Write is put to it (can_use_tool, decision_reason_type mode); its allow writes the file, its deny is what the model reads', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([['Write', { file_path: join(cwd, 'yes.txt'), content: 'y' }]], 'a'),
      calls([['Write', { file_path: join(cwd, 'no.txt'), content: 'n' }]], 'b'),
      text('done'),
    ]);
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-mode', 'plan', '--permission-prompt-tool', 'stdio'],
    });
    const asked: Array<Record<string, any>> = [];
    let seen = 0;
    p.child.stdout!.on('data', () => {
      for (; seen < p.lines.length; seen++) {
        const l = JSON.parse(p.lines[seen]);
        if (l.type !== 'control_request' || l.request.subtype !== 'can_use_tool') continue;
        asked.push(l.request);
        const allow = l.request.input.file_path.endsWith('yes.txt');
        p.send({
          type: 'control_response',
          response: {
            subtype: 'success',
            request_id: l.request_id,
            response: allow
              ? { behavior: 'allow', updatedInput: l.request.input }
              : { behavior: 'deny', message: 'keep planning' },
          },
        });
      }
    });
    p.sendRaw(userLine('plan'));
    await p.waitFor((m) => m.type === 'result');
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(asked.map((a) => [a.tool_name, a.decision_reason_type])).toEqual([
      ['Write', 'mode'],
      ['Write', 'mode'],
    ]);
    expect(readFileSync(join(cwd, 'yes.txt'), 'utf8')).toBe('y');
    expect(existsSync(join(cwd, 'no.txt'))).toBe(false);
    expect(resultsById(api.requests[2]).b1).toEqual({ text: 'keep planning', isError: true });
    // The host's own deny sends no permission_denied (the reference's rule, measured).
    expect(p.json().filter((m) => m.subtype === 'permission_denied')).toEqual([]);
  });

  it('--permission-mode bypassPermissions on its own: taken for a user, refused for root outside a sandbox, taken with IS_SANDBOX=1 (the reference rule)', async (ctx) => {
    const api = await startTestApi(ctx, () => text('hello'));
    const noSandbox = { IS_SANDBOX: undefined, CLAUDE_CODE_BUBBLEWRAP: undefined };
    for (const args of [
      [...STREAM_ARGS, '--permission-mode', 'bypassPermissions'],
      [...STREAM_ARGS, '--permission-mode=bypassPermissions'],
    ]) {
      const r = await runAgent({ api, args, input: userLine('hi'), env: noSandbox });
      if (process.getuid?.() === 0) {
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(
          '--permission-mode bypassPermissions on its own is refused for root outside a sandbox: set IS_SANDBOX=1',
        );
        expect(r.lines).toEqual([]);
      } else {
        expect(r.code, r.stderr).toBe(0);
        expect(r.json()[0]).toMatchObject({ subtype: 'init', permissionMode: 'bypassPermissions' });
      }
    }
    if (process.getuid?.() === 0) expect(api.requests).toHaveLength(0);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--permission-mode', 'bypassPermissions'],
      input: userLine('hi'),
      env: { IS_SANDBOX: '1' },
    });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ subtype: 'init', permissionMode: 'bypassPermissions' });
  });

  it('bypassPermissions from a settings file without the opt-in flag: start-up error, exit 2, nothing sent', async (ctx) => {
    const api = await startTestApi(ctx, [text('must not be asked')]);
    const cwd = tempDir();
    projectSettings(cwd, { permissions: { defaultMode: 'bypassPermissions' } });
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('hi') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bypassPermissions/);
    expect(api.requests).toHaveLength(0);
  });

  it('bypassPermissions with the flag: everything runs, deny rules still hold', async (ctx) => {
    for (const args of [
      ['--dangerously-skip-permissions'],
      ['--permission-mode', 'bypassPermissions', '--allow-dangerously-skip-permissions'],
    ]) {
      const cwd = tempDir();
      const outside = tempDir('agent-outside-');
      const list: Call[] = [
        ['Bash', { command: 'echo a && touch X' }],
        ['Write', { file_path: join(outside, 'o.txt'), content: 'o' }],
        ['Bash', { command: 'rm -f nothing' }],
      ];
      const api = await startTestApi(ctx, [calls(list), text('done')]);
      const r = await runAgent({
        api,
        cwd,
        args: [...STREAM_ARGS, ...args, '--disallowedTools', 'Bash(rm:*)'],
        input: userLine('go'),
      });
      expect(r.code).toBe(0);
      expect(r.json()[0]).toMatchObject({ subtype: 'init', permissionMode: 'bypassPermissions' });
      const seen = resultsById(api.requests[1]);
      expect(
        [seen.t1, seen.t2, seen.t3].map((s) => s.isError),
        JSON.stringify(seen),
      ).toEqual([false, false, true]);
      expect(existsSync(join(cwd, 'X'))).toBe(true);
      expect(readFileSync(join(outside, 'o.txt'), 'utf8')).toBe('o');
      await api.close();
    }
  });

  it('--allow-dangerously-skip-permissions alone only permits switching to bypassPermissions later', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([['Bash', { command: 'touch early' }]]),
      text('first'),
      calls([['Bash', { command: 'touch late' }]], 'u'),
      text('second'),
    ]);
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allow-dangerously-skip-permissions'] });
    p.sendRaw(userLine('one'));
    await p.waitFor((m) => m.type === 'result');
    p.send({
      type: 'control_request',
      request_id: 'm1',
      request: { subtype: 'set_permission_mode', mode: 'bypassPermissions' },
    });
    await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === 'm1');
    p.sendRaw(userLine('two'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(existsSync(join(cwd, 'early'))).toBe(false);
    expect(existsSync(join(cwd, 'late'))).toBe(true);
  });
});

describe.concurrent('set_permission_mode mid-session', () => {
  it('changes what is allowed for the next tool call; bypass without opt-in is refused', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([['Write', { file_path: join(cwd, 'a.txt'), content: 'a' }]]),
      text('first'),
      calls([['Write', { file_path: join(cwd, 'b.txt'), content: 'b' }]], 'u'),
      text('second'),
      calls(
        [
          ['Read', { file_path: join(cwd, 'b.txt') }],
          ['Write', { file_path: join(cwd, 'c.txt'), content: 'c' }],
        ],
        'v',
      ),
      text('third'),
    ]);
    const p = startAgent({ api, cwd, args: STREAM_ARGS });
    const setMode = async (id: string, mode: string) => {
      p.send({ type: 'control_request', request_id: id, request: { subtype: 'set_permission_mode', mode } });
      return (await p.waitFor((m) => m.type === 'control_response' && m.response.request_id === id)).response;
    };
    p.sendRaw(userLine('one'));
    await p.waitFor((m) => m.type === 'result');
    expect((await setMode('m1', 'acceptEdits')).subtype).toBe('success');
    p.sendRaw(userLine('two'));
    await p.waitFor((m) => m.type === 'result' && m.result === 'second');
    expect(await setMode('m2', 'bypassPermissions')).toMatchObject({
      subtype: 'error',
      error: expect.stringMatching(/dangerously-skip-permissions/),
    });
    expect((await setMode('m3', 'plan')).subtype).toBe('success');
    p.sendRaw(userLine('three'));
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('b');
    expect(existsSync(join(cwd, 'c.txt'))).toBe(false);
    const inits = p.json().filter((m) => m.subtype === 'init');
    expect(inits.map((m) => m.permissionMode)).toEqual(['default', 'acceptEdits', 'plan']);
    const third = resultsById(api.requests[5]);
    expect(third.v1.isError).toBe(false);
    expect(third.v2.text).toMatch(/plan mode/);
  });
});

// ---- the prompting host: the test reads can_use_tool requests and answers them ----

interface Ask {
  request_id: string;
  request: Record<string, any>;
}

/** Answers every can_use_tool request with `answer(ask)` (undefined: leave it unanswered). */
function playHost(p: AgentProcess, answer: (ask: Ask, index: number) => Record<string, unknown> | undefined) {
  const asks: Ask[] = [];
  let cursor = 0;
  const timer = setInterval(() => {
    while (cursor < p.lines.length) {
      const line = p.lines[cursor++];
      let m: any;
      try {
        m = JSON.parse(line);
      } catch {
        continue;
      }
      if (m.type !== 'control_request' || m.request?.subtype !== 'can_use_tool') continue;
      const ask = { request_id: m.request_id, request: m.request };
      asks.push(ask);
      const response = answer(ask, asks.length - 1);
      if (response !== undefined)
        p.send({ type: 'control_response', response: { subtype: 'success', request_id: m.request_id, response } });
    }
  }, 10);
  p.exited.then(() => clearInterval(timer));
  return asks;
}

const HOST_ARGS = [...STREAM_ARGS, '--permission-prompt-tool', 'stdio'];

/**
 * Three of the prompting host's checks share one session with HOST_ARGS, each with its own prompts
 * and tool_use ids: the asks and their answers (t), an error response (e), then the remembered
 * updatedPermissions (r, u, v, w) last, since the rules and the mode they add would answer a later
 * ask. The host answers by the call's id; each check reads its own asks, its turns' requests and
 * stdout lines. Made once, by the first check that reads it, with a fake API of its own.
 */

async function hostSession() {
  const cwd = tempDir();
  const outside = tempDir('agent-outside-');
  const api = await startFakeApi([
    // asks
    calls([
      ['Bash', { command: 'touch first' }],
      ['Bash', { command: 'touch second' }],
      ['Write', { file_path: join(cwd, 'third.txt'), content: '3' }],
      ['Read', { file_path: join(cwd, 'third.txt') }],
      ['Read', { file_path: join(outside, 'nope.txt') }],
    ]),
    text('done'),
    // error
    calls([['Bash', { command: 'touch never' }]], 'e'),
    text('ok'),
    // remembered: one, two, three
    calls([['Bash', { command: 'touch a1' }]], 'r'),
    calls([['Bash', { command: 'touch a2' }]], 'u'),
    text('first'),
    calls(
      [
        ['Bash', { command: 'touch a3' }],
        ['Bash', { command: 'rm -f a3' }],
      ],
      'v',
    ),
    text('second'),
    calls(
      [
        ['Write', { file_path: join(cwd, 'w1.txt'), content: '1' }],
        ['Write', { file_path: join(cwd, 'w2.txt'), content: '2' }],
      ],
      'w',
    ),
    text('third'),
  ]);
  try {
    const asks: Record<'asks' | 'error' | 'remember', Ask[]> = { asks: [], error: [], remember: [] };
    const r = await runTurns(
      'the shared prompting-host session',
      {
        api,
        cwd,
        args: HOST_ARGS,
        onStart: (p) => {
          let cursor = 0;
          const timer = setInterval(() => {
            while (cursor < p.lines.length) {
              const m = JSON.parse(p.lines[cursor++]);
              if (m.type !== 'control_request' || m.request?.subtype !== 'can_use_tool') continue;
              const ask = { request_id: m.request_id, request: m.request };
              const id: string = m.request.tool_use_id;
              const turn = id.startsWith('t') ? 'asks' : id.startsWith('e') ? 'error' : 'remember';
              asks[turn].push(ask);
              const i = asks[turn].length - 1;
              if (turn === 'error') {
                p.send({
                  type: 'control_response',
                  response: { subtype: 'error', request_id: m.request_id, error: 'host exploded' },
                });
                continue;
              }
              const response =
                turn === 'remember'
                  ? // Bash: the rules it suggests; Write: a switch to acceptEdits.
                    {
                      behavior: 'allow',
                      updatedInput: m.request.input,
                      updatedPermissions:
                        m.request.tool_name === 'Write'
                          ? [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]
                          : m.request.permission_suggestions,
                    }
                  : i === 0
                    ? { behavior: 'allow', updatedInput: m.request.input }
                    : i === 1
                      ? { behavior: 'allow', updatedInput: { command: 'touch changed' } }
                      : { behavior: 'deny', message: `host says no to ${m.request.tool_name} #${i}` };
              p.send({
                type: 'control_response',
                response: { subtype: 'success', request_id: m.request_id, response },
              });
            }
          }, 10);
          p.exited.then(() => clearInterval(timer));
        },
      },
      { asks: 'go', error: 'go on', one: 'one', two: 'two', three: 'three' },
    );
    // Nothing was asked after the last turn's result.
    expect(api.requests, 'requests of the shared prompting-host session').toHaveLength(
      Object.values(r.turns).reduce((n, t) => n + t.requests.length, 0),
    );
    return { ...r, cwd, outside, asks };
  } finally {
    await api.close();
  }
}
const hostTurns = sharedSession('prompting-host', hostSession);

describe.concurrent('a prompting host (--permission-prompt-tool stdio)', () => {
  it('asks in order with tool_name, input, tool_use_id; allow, allow with updatedInput, deny with message', async () => {
    const s = await hostTurns();
    const { cwd, outside } = s;
    const asks = s.asks.asks;
    const turn = s.turns.asks;
    expect(turn.requests).toHaveLength(2);
    // Read inside cwd is allowed without asking; the other four are asked, in order.
    expect(asks.map((a) => [a.request.tool_name, a.request.tool_use_id])).toEqual([
      ['Bash', 't1'],
      ['Bash', 't2'],
      ['Write', 't3'],
      ['Read', 't5'],
    ]);
    expect(asks[0].request).toMatchObject({ subtype: 'can_use_tool', input: { command: 'touch first' } });
    expect(asks[0].request.permission_suggestions).toEqual([
      {
        type: 'addRules',
        rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }],
        behavior: 'allow',
        destination: 'session',
      },
    ]);
    expect(asks[2].request.input).toEqual({ file_path: join(cwd, 'third.txt'), content: '3' });
    expect(asks[3].request.blocked_path).toBe(join(outside, 'nope.txt'));
    expect(existsSync(join(cwd, 'first'))).toBe(true);
    expect(existsSync(join(cwd, 'second'))).toBe(false);
    expect(existsSync(join(cwd, 'changed'))).toBe(true);
    expect(existsSync(join(cwd, 'third.txt'))).toBe(false);
    const seen = resultsById(turn.requests[1]);
    expect(seen.t1.isError).toBe(false);
    expect(seen.t2.isError).toBe(false);
    expect(seen.t3).toEqual({ text: 'host says no to Write #2', isError: true });
    expect(seen.t5).toEqual({ text: 'host says no to Read #3', isError: true });
    const result = resultOf(turn.json());
    expect(result.permission_denials).toEqual([
      { tool_name: 'Write', tool_use_id: 't3', tool_input: { file_path: join(cwd, 'third.txt'), content: '3' } },
      { tool_name: 'Read', tool_use_id: 't5', tool_input: { file_path: join(outside, 'nope.txt') } },
    ]);
    // The asks came before the tool results they decide, in the stream the host reads.
    const idx = (pred: (m: any) => boolean) => turn.json().findIndex(pred);
    expect(idx((m) => m.type === 'control_request' && m.request.tool_use_id === 't3')).toBeLessThan(
      idx((m) => m.type === 'user' && m.message.content[0]?.tool_use_id === 't3'),
    );
  });

  it('deny with interrupt ends the run: no further request to the model', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [
      calls([
        ['Bash', { command: 'touch one' }],
        ['Bash', { command: 'touch two' }],
      ]),
      text('never'),
    ]);
    const p = startAgent({ api, cwd, args: HOST_ARGS });
    const asks = playHost(p, () => ({ behavior: 'deny', message: 'stop everything', interrupt: true }));
    p.sendRaw(userLine('go'));
    await p.waitFor((m) => m.type === 'result');
    p.endInput();
    const { code } = await p.exited;
    expect(asks).toHaveLength(1);
    expect(api.requests).toHaveLength(1);
    expect(existsSync(join(cwd, 'one')) || existsSync(join(cwd, 'two'))).toBe(false);
    const result = resultOf(p.json());
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result)).toContain('stop everything');
    expect(result.permission_denials.map((d: any) => d.tool_use_id)).toContain('t1');
    expect(code).toBe(1);
  });

  it('updatedPermissions are remembered: the same call is not asked about again; a setMode in them changes the mode for what follows', async () => {
    const s = await hostTurns();
    const { cwd } = s;
    const asks = s.asks.remember;
    expect([s.turns.one, s.turns.two, s.turns.three].map((t) => resultOf(t.json()).result)).toEqual([
      'first',
      'second',
      'third',
    ]);
    expect(asks.map((a) => (a.request.tool_name === 'Write' ? 'Write' : a.request.input.command))).toEqual([
      'touch a1',
      'rm -f a3',
      'Write',
    ]);
    expect(existsSync(join(cwd, 'a1')) && existsSync(join(cwd, 'a2'))).toBe(true);
    expect(existsSync(join(cwd, 'a3'))).toBe(false);
    expect(existsSync(join(cwd, 'w1.txt')) && existsSync(join(cwd, 'w2.txt'))).toBe(true);
  });

  it('a host that never answers: denied after AGENT_PERMISSION_TIMEOUT_MS with a clear message', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [calls([['Bash', { command: 'touch never' }]]), text('gave up')]);
    const p = startAgent({ api, cwd, args: HOST_ARGS, env: { AGENT_PERMISSION_TIMEOUT_MS: '400' } });
    const asks = playHost(p, () => undefined);
    p.sendRaw(userLine('go'));
    const result = await p.waitFor((m) => m.type === 'result', 8000);
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(asks).toHaveLength(1);
    expect(result.result).toBe('gave up');
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toMatch(/did not answer the can_use_tool request within 0.4 s/);
    expect(existsSync(join(cwd, 'never'))).toBe(false);
  });

  it('an answer that is an error response denies with its message', async () => {
    const s = await hostTurns();
    expect(s.asks.error).toHaveLength(1);
    const turn = s.turns.error;
    expect(turn.requests).toHaveLength(2);
    expect(resultsById(turn.requests[1]).e1).toMatchObject({
      isError: true,
      text: expect.stringContaining('host exploded'),
    });
    expect(existsSync(join(s.cwd, 'never'))).toBe(false);
    expect(resultOf(turn.json()).result).toBe('ok');
  });
});

// Not beside the tests above: their elapsed time is bounded. A suite that is not concurrent runs after the
// concurrent ones have ended (vitest runs a file's consecutive concurrent suites together).
describe('modes, timed alone', () => {
  it('default mode with no prompting host: Bash is denied at once with a message naming what would allow it', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [calls([['Bash', { command: 'touch made-it' }]]), text('ok, denied')]);
    const started = Date.now();
    const r = await runAgent({ api, cwd, args: STREAM_ARGS, input: userLine('touch') });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(0);
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toContain('--allowedTools "Bash(touch:*)"');
    expect(seen.t1.text).toContain('--permission-prompt-tool stdio');
    expect(existsSync(join(cwd, 'made-it'))).toBe(false);
    expect(resultOf(r.json())).toMatchObject({
      subtype: 'success',
      permission_denials: [{ tool_name: 'Bash', tool_use_id: 't1' }],
    });
  });
});

// Not beside the tests above either: its elapsed time is bounded.
describe('a prompting host (--permission-prompt-tool stdio), timed alone', () => {
  it('stdin closed while an ask is needed: denied at once, never a hang', async (ctx) => {
    const cwd = tempDir();
    const api = await startTestApi(ctx, [calls([['Bash', { command: 'touch never' }]]), text('denied, fine')]);
    const started = Date.now();
    const r = await runAgent({ api, cwd, args: HOST_ARGS, input: userLine('go'), timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'never'))).toBe(false);
    const seen = resultsById(api.requests[1]);
    expect(seen.t1.isError).toBe(true);
    expect(seen.t1.text).toMatch(/stdin is closed/);
    expect(resultOf(r.json()).permission_denials).toHaveLength(1);
  });
});
