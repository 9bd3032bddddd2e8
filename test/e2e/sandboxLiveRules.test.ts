// The Bash sandbox follows the rules and directories as they change mid-session, end to end with
// real bubblewrap: a host's updatedPermissions (through the official SDK and over stream-json),
// apply_flag_settings, the terminal's [a]lways and a skill's allowed-tools open a domain (also
// for a command already running), mask a newly denied folder from the next command, add and
// remove limits; EnterWorktree moves the writable folder into the worktree.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { text, toolUse, type ScriptedReply } from '../fake-api/server.js';
import {
  resultsById,
  startAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  runAgent,
  type FakeApi,
} from './harness.js';
import { sandboxUnavailableReason, startHostServer } from './sandboxAvailable.js';
import { sdkOptions } from './sdkHost.js';
import { hasTmux, startTerm, type Term } from './tmux.js';

const reason = sandboxUnavailableReason();
if (reason) console.log(`SKIPPED: the sandbox live-rules tests: ${reason}`);
const describeSandbox = reason ? describe.skip : describe;

let api: FakeApi | undefined;
let server: http.Server | undefined;
let term: Term | undefined;
afterEach(async () => {
  term?.close();
  term = undefined;
  await api?.close();
  api = undefined;
  server?.close();
  server = undefined;
});

const sandboxSettings = (extra: object = {}) => [
  '--settings',
  JSON.stringify({ sandbox: { enabled: true, ...extra } }),
];

/** Every tool result the agent sent back, by tool_use id. */
function allResults(a: FakeApi): Record<string, { text: string; isError: boolean }> {
  return Object.assign({}, ...a.requests.slice(1).map((q) => resultsById(q)));
}

/** Replies one scripted tool call per request, then 'done'. */
function oneByOne(replies: ScriptedReply[]) {
  let n = 0;
  return () => replies[n++] ?? text('done');
}

describeSandbox('the sandbox follows mid-session rule changes', () => {
  it('a host\'s "always allow WebFetch(domain:…)" opens the network for the next command and for one already running; a domain the runtime rejects is said on stderr', async () => {
    const host = await startHostServer();
    server = host.server;
    const { port } = host;
    const curl = host.viaProxy;
    const cwd = tempDir();
    api = await startFakeApi(
      oneByOne([
        // Started before the change: retries until the proxy lets it through.
        toolUse(
          'Bash',
          {
            command: `for i in $(seq 200); do curl --noproxy '' -sf --max-time 2 http://127.0.0.1:${port}/ > got.txt && break; sleep 0.05; done`,
            run_in_background: true,
          },
          'bg',
        ),
        toolUse('Bash', { command: curl }, 'before'),
        toolUse('Bash', { command: curl }, 'after'),
        toolUse(
          'Bash',
          { command: "timeout 10 sh -c 'until [ -s got.txt ]; do sleep 0.05; done' && cat got.txt" },
          'running',
        ),
      ]),
    );
    const stderr: string[] = [];
    const messages: SDKMessage[] = [];
    const options = sdkOptions(api.url, cwd, {
      sandbox: { enabled: true },
      stderr: (s: string) => stderr.push(s),
      canUseTool: async (_tool: string, input: Record<string, unknown>, o: { toolUseID: string }) =>
        o.toolUseID === 'after'
          ? {
              behavior: 'allow',
              updatedInput: input,
              updatedPermissions: [
                {
                  type: 'addRules',
                  rules: [
                    { toolName: 'WebFetch', ruleContent: 'domain:*.com' },
                    { toolName: 'WebFetch', ruleContent: 'domain:127.0.0.1' },
                  ],
                  behavior: 'allow',
                  destination: 'localSettings',
                },
              ],
            }
          : { behavior: 'allow', updatedInput: input },
    });
    for await (const m of query({ prompt: 'go', options: options as never })) messages.push(m);
    const r = allResults(api);
    expect(r.before.text).toContain(`deny network-outbound 127.0.0.1:${port}`);
    expect(r.before.text).not.toContain('hello from the host');
    expect(r.after).toEqual({ text: 'hello from the host', isError: false });
    expect(r.running).toEqual({ text: 'hello from the host', isError: false });
    expect(host.hits()).toBe(2);
    // The rule the runtime cannot take is left out (the valid one in the same update still applied), loudly.
    expect(stderr.join('')).toMatch(/left out of the sandbox's limits.*network\.allowedDomains entry "\*\.com"/);
    // A host's "always" is this session's only: no settings file was written.
    expect(existsSync(join(cwd, '.claude', 'settings.local.json'))).toBe(false);
  });

  it('a WebFetch "always" (the host applies the ask\'s own suggestion) is a rule for that domain only, and opens that domain to sandboxed commands too', async () => {
    const host = await startHostServer();
    server = host.server;
    const cwd = tempDir();
    const main = oneByOne([
      toolUse('WebFetch', { url: `http://127.0.0.1:${host.port}/page`, prompt: 'What does it say?' }, 'fetch'),
      toolUse('Bash', { command: host.viaProxy }, 'bash'),
    ]);
    // WebFetch asks the small model about the page; that request is not the main loop's.
    api = await startFakeApi((req) => (String(req.body.model).includes('haiku') ? text('it says hello') : main()));
    const asked: Array<{ tool: string; suggestions: unknown }> = [];
    const options = sdkOptions(api.url, cwd, {
      sandbox: { enabled: true, autoAllowBashIfSandboxed: true },
      canUseTool: async (tool: string, input: Record<string, unknown>, o: { suggestions?: unknown[] }) => {
        asked.push({ tool, suggestions: o.suggestions });
        return { behavior: 'allow', updatedInput: input, updatedPermissions: o.suggestions ?? [] };
      },
    });
    for await (const _m of query({ prompt: 'go', options: options as never })) void _m;
    expect(asked).toEqual([
      {
        tool: 'WebFetch',
        suggestions: [
          {
            type: 'addRules',
            rules: [{ toolName: 'WebFetch', ruleContent: 'domain:127.0.0.1' }],
            behavior: 'allow',
            destination: 'session',
          },
        ],
      },
    ]);
    const results = Object.assign(
      {},
      ...api.requests
        .filter((q) => !String(q.body.model).includes('haiku'))
        .slice(1)
        .map((q) => resultsById(q)),
    );
    expect(results.fetch).toEqual({ text: 'it says hello', isError: false });
    expect(results.bash).toEqual({ text: 'hello from the host', isError: false });
    expect(host.hits()).toBe(2);
  });

  it("a skill's allowed-tools WebFetch(domain:…) opens the network for its turn only", async () => {
    const host = await startHostServer();
    server = host.server;
    const { port } = host;
    const curl = host.viaProxy;
    const cwd = tempDir();
    mkdirSync(join(cwd, '.claude/skills/fetch'), { recursive: true });
    writeFileSync(
      join(cwd, '.claude/skills/fetch/SKILL.md'),
      '---\nname: fetch\ndescription: Fetch from the host\nallowed-tools: WebFetch(domain:127.0.0.1)\n---\nFETCH-BODY\n',
    );
    api = await startFakeApi(
      oneByOne([
        toolUse('Skill', { skill: 'fetch' }, 'skill'),
        toolUse('Bash', { command: curl }, 'during'),
        text('fetched'),
        toolUse('Bash', { command: curl }, 'later'),
      ]),
    );
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash,Skill(fetch)', ...sandboxSettings()],
      input: `${userLine('fetch')}\n${userLine('again')}\n`,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const res = allResults(api);
    expect(res.skill.isError).toBe(false);
    expect(res.during).toEqual({ text: 'hello from the host', isError: false });
    expect(res.later.text).toContain(`deny network-outbound 127.0.0.1:${port}`);
    expect(host.hits()).toBe(1);
  });

  it('over stream-json: a Read deny rule added by the answer masks the folder from that very command (the wrap made ahead is not used); addDirectories opens a folder for writing; removeRules lifts the mask; an apply_flag_settings deny masks it again', async () => {
    const cwd = tempDir();
    const extra = realpathSync(tempDir('agent-extra-'));
    mkdirSync(join(cwd, 'secret'));
    writeFileSync(join(cwd, 'secret', 'key'), 'TOPSECRET=hunter2\n');
    // A program the permission rules cannot see into.
    writeFileSync(join(cwd, 'show.sh'), '#!/bin/sh\ncat secret/key\n');
    chmodSync(join(cwd, 'show.sh'), 0o755);
    api = await startFakeApi(
      oneByOne([
        toolUse('Bash', { command: './show.sh' }, 'open'),
        toolUse('Bash', { command: './show.sh' }, 'denied'),
        toolUse('Bash', { command: `echo w > ${extra}/w.txt && echo wrote` }, 'dir'),
        toolUse('Bash', { command: './show.sh' }, 'lifted'),
        text('done'),
        toolUse('Bash', { command: './show.sh' }, 'flagged'),
      ]),
    );
    const deny = { toolName: 'Read', ruleContent: './secret/**' };
    const updates: Record<string, unknown[]> = {
      denied: [{ type: 'addRules', rules: [deny], behavior: 'deny', destination: 'session' }],
      dir: [{ type: 'addDirectories', directories: [extra], destination: 'session' }],
      lifted: [{ type: 'removeRules', rules: [deny], behavior: 'deny', destination: 'session' }],
    };
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--permission-prompt-tool', 'stdio', ...sandboxSettings()],
    });
    p.sendRaw(userLine('go'));
    const asked = new Set<string>();
    const answerAsks = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const ask = await p.waitFor(
          (m) => m.type === 'control_request' && m.request?.subtype === 'can_use_tool' && !asked.has(m.request_id),
        );
        asked.add(ask.request_id);
        const id = ask.request.tool_use_id as string;
        p.send({
          type: 'control_response',
          response: {
            subtype: 'success',
            request_id: ask.request_id,
            response: {
              behavior: 'allow',
              updatedInput: ask.request.input,
              ...(updates[id] ? { updatedPermissions: updates[id] } : {}),
            },
          },
        });
      }
    };
    await answerAsks(4);
    await p.waitFor((m) => m.type === 'result');
    // A deny rule from the host's settings layer (the SDK's applyFlagSettings) masks it too.
    p.send({
      type: 'control_request',
      request_id: 'flags1',
      request: { subtype: 'apply_flag_settings', settings: { permissions: { deny: ['Read(./secret/**)'] } } },
    });
    const applied = await p.waitFor((m) => m.type === 'control_response' && m.response?.request_id === 'flags1');
    expect(applied.response.subtype).toBe('success');
    p.sendRaw(userLine('again'));
    await answerAsks(1);
    let results = 0;
    await p.waitFor((m) => m.type === 'result' && ++results === 2);
    p.endInput();
    expect((await p.exited).code).toBe(0);
    const r = allResults(api);
    expect(r.open).toEqual({ text: 'TOPSECRET=hunter2', isError: false });
    expect(r.denied.isError).toBe(true);
    expect(r.denied.text).not.toContain('hunter2');
    expect(r.denied.text).toMatch(/Permission denied|No such device|No such file/);
    // Written, and not reported as blocked (the runtime's write monitor still judges by the start's folders).
    expect(r.dir).toEqual({ text: 'wrote', isError: false });
    expect(readFileSync(join(extra, 'w.txt'), 'utf8')).toBe('w\n');
    expect(r.lifted).toEqual({ text: 'TOPSECRET=hunter2', isError: false });
    expect(r.flagged.isError).toBe(true);
    expect(r.flagged.text).not.toContain('hunter2');
  });

  it.skipIf(!hasTmux)(
    "the terminal's [a]lways for a Write outside the working directory adds the folder: sandboxed Bash may write there from the next command",
    async () => {
      const cwd = tempDir();
      const outside = realpathSync(tempDir('agent-outside-'));
      api = await startFakeApi(
        oneByOne([
          toolUse('Write', { file_path: join(outside, 'a.txt'), content: 'a\n' }, 'write'),
          toolUse('Bash', { command: `echo b > ${outside}/b.txt && echo wrote` }, 'bash'),
        ]),
      );
      term = startTerm(api.url, ['--allowedTools', 'Bash', ...sandboxSettings()], cwd);
      await term.waitFor(/│ > {2,}│/);
      term.type('go');
      term.keys('Enter');
      await term.waitFor(/Allow Write\(/);
      term.type('a');
      await term.waitFor(/done/);
      term.keys('C-d');
      expect(await term.exited()).toBe(0);
      const r = allResults(api);
      expect(r.write.isError).toBe(false);
      expect(r.bash).toEqual({ text: 'wrote', isError: false });
      expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('b\n');
    },
  );

  it('in a worktree entered with EnterWorktree, sandboxed Bash writes and commits there, cannot write the main checkout or outside; after ExitWorktree the checkout is writable again', async () => {
    const env = {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    const git = (dir: string, ...args: string[]) =>
      execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
    const dir = realpathSync(tempDir('agent-wt-'));
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'README.md'), 'hello\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'first');
    const outside = realpathSync(tempDir('agent-outside-'));
    const wt = join(dir, '.claude', 'worktrees', 'feat');
    api = await startFakeApi(
      oneByOne([
        toolUse('EnterWorktree', { name: 'feat' }, 'enter'),
        toolUse(
          'Bash',
          { command: 'echo in > made.txt && git add made.txt && git commit -qm made && git log --oneline | wc -l' },
          'commit',
        ),
        toolUse('Bash', { command: `echo x > ${dir}/from-worktree.txt` }, 'checkout'),
        toolUse('Bash', { command: `echo x > ${outside}/o.txt` }, 'outside'),
        toolUse('ExitWorktree', { action: 'keep' }, 'exit'),
        toolUse('Bash', { command: 'echo back > top.txt && cat top.txt' }, 'back'),
      ]),
    );
    const r = await runAgent({
      api,
      cwd: dir,
      env,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash,EnterWorktree,ExitWorktree', ...sandboxSettings()],
      input: userLine('go'),
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const res = allResults(api);
    expect(res.enter.isError).toBe(false);
    expect(res.commit).toEqual({ text: '2', isError: false });
    expect(readFileSync(join(wt, 'made.txt'), 'utf8')).toBe('in\n');
    expect(git(dir, 'log', '--oneline', 'worktree-feat').trim().split('\n')).toHaveLength(2);
    expect(res.checkout.isError).toBe(true);
    expect(res.checkout.text).toMatch(/Read-only file system/);
    expect(existsSync(join(dir, 'from-worktree.txt'))).toBe(false);
    expect(res.outside.text).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, 'o.txt'))).toBe(false);
    expect(res.back).toEqual({ text: 'back', isError: false });
  });
});
