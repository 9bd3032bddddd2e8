// The Bash sandbox end to end: bin/agent with `sandbox.enabled` against the fake API, running real
// commands under bubblewrap. Skipped, with the reason printed, where bubblewrap, socat or ripgrep
// is missing or user namespaces are off (.ci/run installs the packages).
// A sandboxed session costs about a second of CPU before its first command, so tests that need
// the same settings read their checks from one shared session (writesSession, defaultSession,
// namespaceEndsSession), each check its own Bash call. Each test keeps its folders, fake API and
// host server to itself (closed through its own onTestFinished), so they could run side by side;
// they do not: run so (two or five at once) on a loaded machine, every session, busy with
// bubblewrap and its commands, became slow enough to reach the tests' time limits.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import {
  type FakeApi,
  lastToolResults,
  type Script,
  type ScriptedReply,
  startFakeApi,
  text,
  toolUse,
} from '../fake-api/server.js';
import { alive, waitUntil } from '../processes.js';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { type HostServer, sandboxUnavailableReason, startHostServer, which } from './sandboxAvailable.js';
import { sdkOptions } from './sdkHost.js';
import {
  AGENT_BIN,
  type AgentProcess,
  resultText,
  resultsById,
  runAgent,
  startAgent,
  STREAM_ARGS,
  tempDir,
  turns,
  userLine,
  calls,
  type Call,
  once,
} from './harness.js';

const reason = sandboxUnavailableReason();
/** Why the unprivileged run cannot be tested here (it needs root to become nobody, and nobody must reach bin/agent). */
function nobodyUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'the tests do not run as root, so they cannot run the agent as nobody';
  const r = spawnSync(AGENT_BIN, ['--version'], { uid: 65534, gid: 65534, encoding: 'utf8' });
  if (r.status !== 0)
    return `nobody cannot run ${AGENT_BIN} (${r.error?.message ?? r.stderr.trim()}): a folder above it is closed to other users`;
  return undefined;
}
const nobodyReason = reason ? undefined : nobodyUnavailableReason();
if (nobodyReason) console.log(`SKIPPED: the sandbox test run as nobody: ${nobodyReason}`);
if (reason) console.log(`SKIPPED: the sandbox tests: ${reason}`);
const describeSandbox = reason ? describe.skip : describe;

/**
 * Tries to lift the mask over ./secret and read through it. A script, so the permission check
 * (which sees only `bash lift.sh`) lets it run, and its words are not on the command line.
 */
const LIFT_MASK = [
  'if umount "$PWD/secret" 2>/dev/null || umount -l "$PWD/secret" 2>/dev/null; then echo "umount: done"; else echo "umount: refused"; fi',
  'cat secret/key 2>&1',
  'echo "lift: done"',
  '',
].join('\n');

type OnFinished = TestContext['onTestFinished'];

/** A fake API closed when the test that started it ends. */
async function fakeApi(script: Script, onTestFinished: OnFinished): Promise<FakeApi> {
  const api = await startFakeApi(script);
  onTestFinished(() => api.close());
  return api;
}

/** A server on the host's loopback (sandboxAvailable.ts), closed when the test that started it ends. */
async function hostServer(onTestFinished: OnFinished): Promise<HostServer> {
  const host = await startHostServer();
  onTestFinished(() => void host.server.close());
  return host;
}

/** Several groups of Bash calls as one assistant turn: ids `<prefix>1…`, so each group keeps its own. */
function callGroups(groups: Record<string, Array<Record<string, unknown>>>): ScriptedReply {
  return {
    content: Object.entries(groups).flatMap(([prefix, list]) => {
      const reply = calls(
        list.map((input): Call => ['Bash', input]),
        prefix,
      );
      return 'content' in reply ? reply.content : [];
    }),
  };
}

/** Ends the session's input and waits for it to exit; killed past `timeoutMs`, as runAgent does. */
async function finish(p: AgentProcess, timeoutMs = 30_000) {
  p.endInput();
  const timeout = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const ended = await p.exited;
  clearTimeout(timeout);
  return ended;
}

function settingsArg(sandbox: object, permissions: object = {}): string[] {
  return ['--settings', JSON.stringify({ sandbox: { enabled: true, ...sandbox }, permissions })];
}

/** Runs one scripted list of Bash calls in one assistant turn; returns results by id (t1…). */
async function runCalls(
  list: Array<Record<string, unknown>>,
  opts: { cwd: string; args: string[]; env?: Record<string, string>; onTestFinished: OnFinished },
) {
  const api = await fakeApi([calls(list.map((input) => ['Bash', input])), text('done')], opts.onTestFinished);
  const r = await runAgent({
    api,
    cwd: opts.cwd,
    args: [...STREAM_ARGS, ...opts.args],
    env: opts.env,
    input: userLine('go'),
    timeoutMs: 30_000,
  });
  const init = r.json().find((m) => m.type === 'system' && m.subtype === 'init');
  const results = api.requests.length > 1 ? resultsById(api.requests[1]) : {};
  return { ...r, init, results };
}

/**
 * Runs one session whose first turn is `firstTurn(the agent's pid)` (several Bash calls), then
 * plain text; returns its init message and its results by id.
 */
async function oneTurnSession(
  firstTurn: (agentPid: number) => ScriptedReply,
  opts: { cwd: string; args: string[]; env?: Record<string, string> },
) {
  let agentPid = 0;
  const api = await startFakeApi((req): ScriptedReply => (turns(req) === 0 ? firstTurn(agentPid) : text('done')));
  try {
    const p = startAgent({ api, cwd: opts.cwd, args: [...STREAM_ARGS, ...opts.args], env: opts.env });
    agentPid = p.child.pid!;
    p.sendRaw(userLine('go'));
    const { code } = await finish(p);
    return {
      code,
      init: p.json().find((m) => m.type === 'system' && m.subtype === 'init'),
      results: api.requests.length > 1 ? resultsById(api.requests[1]) : {},
    };
  } finally {
    await api.close();
  }
}

/**
 * One session that writes, for three tests below, each check its own Bash call: writes (w…),
 * ignoreViolations (i…, for folders of its own), dangerouslyDisableSandbox not honoured with
 * allowUnsandboxedCommands false (u1).
 */
const writesSession = once(async () => {
  const cwd = tempDir();
  const outside = tempDir('agent-outside-');
  const added = tempDir('agent-added-');
  const quiet = tempDir('agent-quiet-');
  const loud = tempDir('agent-loud-');
  const unsandboxed = tempDir('agent-outside-');
  const r = await oneTurnSession(
    () =>
      callGroups({
        w: [
          { command: `echo leak > ${outside}/escaped.txt` },
          { command: 'echo kept > inside.txt && cat inside.txt' },
          { command: 'f=$(mktemp) && echo tmp-ok > "$f" && cat "$f"' },
          { command: `echo added > ${added}/a.txt` },
        ],
        i: [
          { command: `echo x > ${quiet}/quiet.txt` },
          { command: `echo x > ${loud}/loud.txt` },
          { command: `touch ${loud}/t.txt` },
        ],
        u: [{ command: `touch ${unsandboxed}/made`, dangerouslyDisableSandbox: true }],
      }),
    {
      cwd,
      args: [
        '--allowedTools',
        'Bash',
        '--add-dir',
        added,
        ...settingsArg({ allowUnsandboxedCommands: false, ignoreViolations: { '*': [quiet], touch: [loud] } }),
      ],
    },
  );
  return { ...r, cwd, outside, added, quiet, loud, unsandboxed };
});

/**
 * One session with the default limits, for three tests below, each check its own Bash call: the
 * network (n…), the agent's /proc entry (p1), a daemon left behind (d1).
 */
const defaultSession = once(async () => {
  const marker = `${Date.now() % 100000}.913`;
  const host = await startHostServer();
  try {
    const r = await oneTurnSession(
      (agentPid) =>
        callGroups({
          n: [{ command: host.viaProxy }, { command: `curl -sS --max-time 5 http://127.0.0.1:${host.port}/` }],
          p: [
            {
              command: `cat /proc/${agentPid}/environ >/dev/null 2>&1 && echo visible || echo hidden; ls /proc | grep -c '^[0-9]'`,
            },
          ],
          d: [{ command: `nohup setsid sleep ${marker} >/dev/null 2>&1 & echo started` }],
        }),
      {
        cwd: tempDir(),
        args: ['--allowedTools', 'Bash', ...settingsArg({})],
        // The API key passed on to commands: the agent's own environ must stay out of their reach.
        env: { AGENT_SHARE_API_KEY: '1' },
      },
    );
    return { ...r, hits: host.hits(), port: host.port, marker };
  } finally {
    host.server.close();
  }
});

/**
 * One session allowed to reach the host's loopback by a WebFetch rule, whose shared network
 * namespace the test ends after its first command; for two tests (the network allowed, and what
 * happens once the namespace ended).
 */
const namespaceEndsSession = once(async () => {
  const host = await startHostServer();
  const curl = host.viaProxy;
  const outside = tempDir('agent-outside-');
  let agentPid = 0;
  let hitsAfterBefore = -1;
  /** The holder: the agent's bubblewrap child started with --info-fd (commands' bubblewraps are not). */
  const holders = () =>
    execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(agentPid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /bwrap .*--info-fd/.test(l))
      .map((l) => Number(l.trim().split(' ')[0]));
  const api = await startFakeApi((req): ScriptedReply => {
    const n = turns(req);
    if (n === 0) return toolUse('Bash', { command: curl }, 'before');
    if (n === 1) {
      hitsAfterBefore = host.hits();
      for (const pid of holders()) process.kill(pid, 'SIGKILL');
      // A moment for its end to reach the agent (a command racing it is run again: unit-tested).
      return {
        ...calls([
          ['Bash', { command: curl }],
          ['Bash', { command: `touch ${outside}/x` }],
        ]),
        delayMs: 300,
      };
    }
    return text('done');
  });
  try {
    const p = startAgent({
      api,
      cwd: tempDir(),
      args: [...STREAM_ARGS, '--allowedTools', 'Bash', ...settingsArg({}, { allow: ['WebFetch(domain:127.0.0.1)'] })],
    });
    agentPid = p.child.pid!;
    p.sendRaw(userLine('go'));
    await p.waitFor((m) => m.type === 'result', 30_000);
    await finish(p);
    return {
      before: resultsById(api.requests[1]).before,
      after: resultsById(api.requests[2]),
      hitsAfterBefore,
      hits: host.hits(),
      stderr: p.stderr(),
      outside,
    };
  } finally {
    await api.close();
    host.server.close();
  }
});

describeSandbox('the Bash sandbox (bubblewrap)', () => {
  it('writes: outside cwd fail (nothing is created, the violation is reported); inside cwd, the scratch TMPDIR and --add-dir work; init says it is active', async () => {
    const s = await writesSession();
    expect(s.code).toBe(0);
    expect(s.init?.sandbox).toEqual({ enabled: true, active: true });
    expect(existsSync(join(s.outside, 'escaped.txt'))).toBe(false);
    expect(s.results.w1.isError).toBe(true);
    expect(s.results.w1.text).toMatch(/Read-only file system/);
    expect(s.results.w1.text).toContain('<sandbox_violations>');
    expect(s.results.w1.text).toContain(`${s.outside}/escaped.txt`);
    expect(s.results.w2).toEqual({ text: 'kept', isError: false });
    expect(readFileSync(join(s.cwd, 'inside.txt'), 'utf8')).toBe('kept\n');
    expect(s.results.w3).toEqual({ text: 'tmp-ok', isError: false });
    expect(s.results.w4.isError).toBe(false);
    expect(readFileSync(join(s.added, 'a.txt'), 'utf8')).toBe('added\n');
  });

  it('ignoreViolations leaves matching violations out of the report (the write is still blocked)', async () => {
    const s = await writesSession();
    expect(s.results.i1.text).toMatch(/Read-only file system/);
    expect(s.results.i3.text).not.toContain('<sandbox_violations>');
    expect(existsSync(join(s.quiet, 'quiet.txt'))).toBe(false);
  });

  it('a folder denied by a Read rule cannot be read by any program: grep -r, find -exec cat, python3 open(), a script in cwd', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'secret'));
    writeFileSync(join(cwd, 'secret', 'key'), 'TOPSECRET=hunter2\n');
    writeFileSync(join(cwd, 'notes.txt'), 'PUBLIC=ok\n');
    writeFileSync(join(cwd, 'read.sh'), '#!/bin/sh\ncat secret/key\n');
    chmodSync(join(cwd, 'read.sh'), 0o755);
    const r = await runCalls(
      [
        { command: 'grep -r =  . ; true' },
        { command: 'find . -type f -exec cat {} + ; true' },
        { command: `python3 -c "print(open('secret/key').read())"` },
        { command: './read.sh' },
        { command: 'ls secret | wc -l' },
      ],
      { cwd, args: ['--allowedTools', 'Bash', ...settingsArg({}, { deny: ['Read(./secret/**)'] })], onTestFinished },
    );
    expect(r.code).toBe(0);
    for (const id of ['t1', 't2', 't3', 't4', 't5']) expect(r.results[id].text).not.toContain('hunter2');
    // The rest of the project stays readable.
    expect(r.results.t1.text).toContain('PUBLIC=ok');
    expect(r.results.t2.text).toContain('PUBLIC=ok');
    expect(r.results.t3.isError).toBe(true);
    expect(r.results.t4.isError).toBe(true);
    expect(r.results.t5.text).toBe('0');
    expect(readFileSync(join(cwd, 'secret', 'key'), 'utf8')).toBe('TOPSECRET=hunter2\n');
  });

  it('the wrap prepared between commands is never stale: a denied file made by a command, by the Write tool or by a background shell is masked for the next command', async ({
    onTestFinished,
  }) => {
    // Deny-read globs are expanded when a command is wrapped, and the next command's wrap is made
    // ahead of time; each step below changes files after that, so only a fresh wrap masks them.
    const cwd = tempDir();
    const replies: ScriptedReply[] = [
      toolUse('Bash', { command: 'echo SECRET-A > a.pem && echo made' }, 'b1'),
      toolUse('Bash', { command: './show.sh a' }, 'b2'),
      toolUse('Write', { file_path: join(cwd, 'b.pem'), content: 'SECRET-B\n' }, 'w1'),
      toolUse('Bash', { command: './show.sh b' }, 'b3'),
      toolUse('Bash', { command: 'sleep 0.3; echo SECRET-C > c.pem', run_in_background: true }, 'b4'),
      toolUse('Bash', { command: "timeout 10 sh -c 'until [ -s c.pem ]; do sleep 0.05; done' && echo seen" }, 'b5'),
      toolUse('Bash', { command: './show.sh c' }, 'b6'),
      toolUse('Bash', { command: 'cat plain.txt' }, 'b7'),
    ];
    writeFileSync(join(cwd, 'plain.txt'), 'PUBLIC\n');
    // A program the permission rules cannot see into (`cat a.pem` itself is refused by the rule).
    writeFileSync(join(cwd, 'show.sh'), '#!/bin/sh\ncat "$1.pem"\n');
    chmodSync(join(cwd, 'show.sh'), 0o755);
    let n = 0;
    // Then plain text: to the last result and to the background shell's notification.
    const api = await fakeApi(() => replies[n++] ?? text('done'), onTestFinished);
    const r = await runAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash,Write', ...settingsArg({}, { deny: ['Read(./**/*.pem)'] })],
      input: userLine('go'),
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const results = Object.assign({}, ...api.requests.slice(1).map((q) => resultsById(q)));
    expect(results.b1).toEqual({ text: 'made', isError: false });
    expect(readFileSync(join(cwd, 'a.pem'), 'utf8')).toBe('SECRET-A\n');
    expect(results.w1.isError, results.w1.text).toBe(false);
    expect(results.b5.text).toBe('seen');
    for (const id of ['b2', 'b3', 'b6']) {
      expect(results[id].isError, id).toBe(true);
      expect(results[id].text, id).not.toMatch(/SECRET/);
      expect(results[id].text, id).toMatch(/Permission denied|No such device/);
    }
    expect(results.b7).toEqual({ text: 'PUBLIC', isError: false });
  });

  it('network: a loopback server the test started is refused (and reported); allowed once its domain is allowed by a WebFetch rule', async () => {
    const [denied, allowed] = await Promise.all([defaultSession(), namespaceEndsSession()]);
    expect(denied.hits).toBe(0);
    expect(denied.results.n1.text).not.toContain('hello from the host');
    expect(denied.results.n1.text).toContain(`deny network-outbound 127.0.0.1:${denied.port}`);
    expect(denied.results.n2.isError).toBe(true);
    expect(denied.results.n2.text).not.toContain('hello from the host');
    // The allowed session's first command, before anything else happened in it.
    expect(allowed.before).toEqual({ text: 'hello from the host', isError: false });
    expect(allowed.hitsAfterBefore).toBe(1);
  });

  it("one network namespace per session, bridges started once: a server a background shell started is reached by the next command; no bridge runs in a command's sandbox; a command cannot lift its own masks", async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'secret'));
    writeFileSync(join(cwd, 'secret/key'), 'TOP-SECRET\n');
    mkdirSync(join(cwd, 'site'));
    writeFileSync(join(cwd, 'site/hello.txt'), 'hello from the session\n');
    writeFileSync(join(cwd, 'lift.sh'), LIFT_MASK);
    const port = 20000 + (process.pid % 20000);
    const tmp = tempDir('agent-tmpdir-');
    const r = await runCalls(
      [
        // Serves one request, then ends (the session waits for its background shells).
        {
          command: `cd site && exec python3 -c "import http.server as h; s = h.HTTPServer(('127.0.0.1', ${port}), h.SimpleHTTPRequestHandler); s.timeout = 20; s.handle_request()"`,
          run_in_background: true,
        },
        // Up to 15 s for python to start serving: it once took over 5 s in a whole-suite run.
        { command: `for i in $(seq 300); do curl -sf http://127.0.0.1:${port}/hello.txt && break; sleep 0.05; done` },
        { command: `cat /proc/[0-9]*/comm | sort -u | tr '\\n' ' '` },
        { command: 'bash lift.sh' },
      ],
      {
        cwd,
        args: ['--allowedTools', 'Bash', ...settingsArg({}, { deny: ['Read(./secret/**)'] })],
        env: { TMPDIR: tmp },
        onTestFinished,
      },
    );
    expect(r.stderr).not.toContain('shared network namespace');
    // The runtime's proxy socket is not left behind in $TMPDIR, nor the commands' TMPDIR in the
    // session's scratch folder (which keeps the background shell's output).
    expect(readdirSync(tmp).filter((f) => f.startsWith('srt-mux-'))).toEqual([]);
    const scratch = readdirSync(tmp).filter((f) => f.startsWith('agent-runtime-'));
    expect(scratch).toHaveLength(1);
    expect(readdirSync(join(tmp, scratch[0]!))).toEqual(['tasks']);
    expect(r.results.t2).toEqual({ text: 'hello from the session', isError: false });
    expect(r.results.t3.text).not.toMatch(/socat/);
    expect(r.results.t3.text).toMatch(/bash/);
    expect(r.results.t4.text).toContain('umount: refused');
    expect(r.results.t4.text).toContain('lift: done');
    expect(r.results.t4.text).not.toContain('TOP-SECRET');
  });

  it('a profile too long for one command line (bubblewrap reads its mounts from a file) still joins the shared namespace: the masks hold, no bridge of its own', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    // 80 masked files with paths of 2.3 KB (ten folders of 200-character names deep): 185 KB of
    // mounts, past the 128 KiB one argument can carry. (Fewer, longer paths: the runtime's work is
    // per path, each command's wrap included.)
    const deep = join('k', ...Array.from({ length: 10 }, (_, i) => `${String(i)}${'d'.repeat(199)}`));
    const names = Array.from({ length: 80 }, (_, i) =>
      join(deep, `${'m'.repeat(200)}-${String(i).padStart(4, '0')}.key`),
    );
    mkdirSync(join(cwd, deep), { recursive: true });
    for (const n of names) writeFileSync(join(cwd, n), 'SECRET\n');
    writeFileSync(join(cwd, 'k/open.txt'), 'PUBLIC\n');
    const settingsFile = join(tempDir('agent-settings-'), 'settings.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({ sandbox: { enabled: true, filesystem: { denyRead: names.map((n) => join(cwd, n)) } } }),
    );
    // The command says it started, then waits until the test has seen its bubblewrap.
    const api = await fakeApi(
      [
        calls([
          [
            'Bash',
            {
              command: `touch started; timeout 20 sh -c 'until [ -e seen ]; do sleep 0.05; done'; cat ${names[40]} 2>&1; cat k/open.txt; cat /proc/[0-9]*/comm | grep -c socat`,
            },
          ],
        ]),
        text('done'),
      ],
      onTestFinished,
    );
    const p = startAgent({
      api,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash', '--settings', settingsFile],
      env: { TMPDIR: tempDir('agent-tmpdir-') },
    });
    p.sendRaw(userLine('go'));
    // While it waits: the agent's child is bubblewrap reading its options from a file (--args),
    // entered through nsenter by the launcher (whose `exec` left bubblewrap in its place).
    const bwrapArgs = () =>
      spawnSync('ps', ['-o', 'args=', '--ppid', String(p.child.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        // (The start-up probe of the runtime's own wrap also reads a file, with a namespace of its own.)
        .find((l) => /^\S*bwrap .*--args 9/.test(l) && !l.includes('--unshare-net') && !l.includes('--info-fd'));
    expect(
      await waitUntil(() => existsSync(join(cwd, 'started')), 20_000),
      `${p.lines.join('\n')}\n${p.stderr()}`,
    ).toBe(true);
    const seen = await waitUntil(() => bwrapArgs() !== undefined, 20_000);
    writeFileSync(join(cwd, 'seen'), '');
    expect(seen).toBe(true);
    await p.waitFor((m) => m.type === 'result', 30_000);
    await finish(p);
    expect(p.stderr()).not.toContain('shared network namespace');
    const out = resultsById(api.requests[1]).t1.text;
    expect(out).not.toContain('SECRET');
    expect(out).toContain('PUBLIC');
    expect(out.trim().split('\n').pop()).toBe('0');
  });

  it('if the shared network namespace ends mid-session, it says so and the next commands start their own bridges: still sandboxed, still filtered', async () => {
    const s = await namespaceEndsSession();
    expect(s.before).toEqual({ text: 'hello from the host', isError: false });
    expect(s.after.t1).toEqual({ text: 'hello from the host', isError: false });
    expect(s.after.t2.isError).toBe(true);
    expect(existsSync(join(s.outside, 'x'))).toBe(false);
    expect(s.hits).toBe(2);
    expect(s.stderr).toContain("the session's shared network namespace ended");
  });

  it.runIf(nobodyReason === undefined)(
    'run by an unprivileged user (nobody): the same sandbox through the shared namespace; commands run as that user, with no capabilities',
    async ({ onTestFinished }) => {
      const nobody = { uid: 65534, gid: 65534 };
      const cwd = tempDir();
      const config = tempDir('agent-config-');
      // Its own TMPDIR: the runtime's sockets there are named by pid, and a root-owned one left by a
      // killed agent of another test with the same pid could not be replaced by this user.
      const tmp = tempDir('agent-tmpdir-');
      mkdirSync(join(cwd, 'secret'));
      writeFileSync(join(cwd, 'secret/key'), 'TOP-SECRET\n');
      writeFileSync(join(cwd, 'lift.sh'), LIFT_MASK);
      for (const d of [cwd, join(cwd, 'secret'), join(cwd, 'secret/key'), config, tmp])
        chownSync(d, nobody.uid, nobody.gid);
      const api = await fakeApi(
        [
          calls([
            ['Bash', { command: `id -u; grep CapEff /proc/self/status; touch made && stat -c %u made` }],
            ['Bash', { command: `touch /tmp/agent-nobody-${process.pid}` }],
            ['Bash', { command: 'bash lift.sh' }],
          ]),
          text('done'),
        ],
        onTestFinished,
      );
      const r = await runAgent({
        api,
        cwd,
        user: nobody,
        args: [...STREAM_ARGS, '--allowedTools', 'Bash', ...settingsArg({}, { deny: ['Read(./secret/**)'] })],
        env: { HOME: cwd, CLAUDE_CONFIG_DIR: config, TMPDIR: tmp },
        input: userLine('go'),
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('shared network namespace');
      expect(r.json().find((m) => m.type === 'system' && m.subtype === 'init')?.sandbox).toEqual({
        enabled: true,
        active: true,
      });
      const res = resultsById(api.requests[1]);
      expect(res.t1).toEqual({ text: '65534\nCapEff:\t0000000000000000\n65534', isError: false });
      expect(statSync(join(cwd, 'made')).uid).toBe(nobody.uid);
      expect(res.t2.isError).toBe(true);
      expect(existsSync(`/tmp/agent-nobody-${process.pid}`)).toBe(false);
      expect(res.t3.text).toContain('umount: refused');
      expect(res.t3.text).toContain('lift: done');
      expect(res.t3.text).not.toContain('TOP-SECRET');
    },
  );

  it('the agent process is out of sight: its /proc entry (and the API key in its environ) cannot be reached', async () => {
    const [seen, count] = (await defaultSession()).results.p1.text.split('\n');
    expect(seen).toBe('hidden');
    // Only the sandbox's own few processes are in its /proc.
    expect(Number(count)).toBeLessThan(10);
  });

  it('a daemon a sandboxed command leaves behind (setsid, nohup) dies with the sandbox and is not reported as left running', async () => {
    const s = await defaultSession();
    expect(s.results.d1).toEqual({ text: 'started', isError: false });
    const running = () => spawnSync('pgrep', ['-f', `^sleep ${s.marker}`]).status === 0;
    expect(await waitUntil(() => !running(), 2000)).toBe(true);
  });

  it('dangerouslyDisableSandbox always asks the host, even with an allow rule; allowed, the command runs outside', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const outside = tempDir('agent-outside-');
    const api = await fakeApi(
      [
        toolUse('Bash', { command: `touch ${outside}/made`, dangerouslyDisableSandbox: true }, 'toolu_dd'),
        text('done'),
      ],
      onTestFinished,
    );
    const p = startAgent({
      api,
      cwd,
      args: [
        ...STREAM_ARGS,
        '--permission-prompt-tool',
        'stdio',
        '--allowedTools',
        'Bash',
        ...settingsArg({ allowUnsandboxedCommands: true }),
      ],
    });
    p.sendRaw(userLine('go'));
    const ask = await p.waitFor((m) => m.type === 'control_request' && m.request?.subtype === 'can_use_tool');
    expect(ask.request.tool_name).toBe('Bash');
    expect(ask.request.decision_reason).toMatch(/outside the sandbox/);
    p.send({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: ask.request_id,
        response: { behavior: 'allow', updatedInput: ask.request.input },
      },
    });
    await p.waitFor((m) => m.type === 'result');
    p.endInput();
    expect((await p.exited).code).toBe(0);
    expect(existsSync(join(outside, 'made'))).toBe(true);
    expect(resultText(lastToolResults(api.requests[1])[0].content)).not.toMatch(/Read-only/);
  });

  it('with allowUnsandboxedCommands false, dangerouslyDisableSandbox is not honoured: no ask, the command stays inside', async () => {
    const s = await writesSession();
    expect(existsSync(join(s.unsandboxed, 'made'))).toBe(false);
    expect(s.results.u1.text).toMatch(/dangerouslyDisableSandbox was not honoured/);
  });

  it('autoAllowBashIfSandboxed: sandboxed commands need no rule; deny rules still hold; an excluded command runs outside through the normal ask', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const outside = tempDir('agent-outside-');
    const r = await runCalls(
      [{ command: 'echo auto > a.txt && cat a.txt' }, { command: 'rm -f a.txt' }, { command: `touch ${outside}/x` }],
      {
        cwd,
        args: [
          ...settingsArg({ autoAllowBashIfSandboxed: true, excludedCommands: ['touch'] }, { deny: ['Bash(rm:*)'] }),
        ],
        onTestFinished,
      },
    );
    expect(r.results.t1).toEqual({ text: 'auto', isError: false });
    expect(r.results.t2.text).toMatch(/denied by the rule Bash\(rm:\*\)/);
    // touch is excluded: not sandboxed, so not auto-allowed; nobody to ask → denied, never run.
    expect(r.results.t3.text).toMatch(/no one can be asked/);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);
  });

  it('background shells are sandboxed too, and stopping one kills everything it started', async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const outside = tempDir('agent-outside-');
    const marker = `${Date.now() % 100000}.731`;
    const api = await fakeApi((req): ScriptedReply => {
      const n = turns(req);
      if (n === 0)
        return toolUse(
          'Bash',
          { command: `echo bg > ${outside}/bg.txt; echo started; sleep ${marker}`, run_in_background: true },
          'toolu_bg',
        );
      return text('started');
    }, onTestFinished);
    const p = startAgent({ api, cwd, args: [...STREAM_ARGS, '--allowedTools', 'Bash', ...settingsArg({})] });
    p.sendRaw(userLine('go'));
    const started = await p.waitFor((m) => m.type === 'system' && m.subtype === 'task_started');
    await p.waitFor((m) => m.type === 'result');
    const pgrep = () =>
      execFileSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(Number);
    expect(
      await waitUntil(() => {
        try {
          return pgrep().length > 0;
        } catch {
          return false;
        }
      }, 10_000),
    ).toBe(true);
    const pids = pgrep();
    expect(started.task_type).toBe('local_bash');
    p.send({ type: 'control_request', request_id: 'int1', request: { subtype: 'interrupt' } });
    await p.waitFor((m) => m.type === 'system' && m.subtype === 'task_notification');
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)), 5000)).toBe(true);
    p.endInput();
    await p.exited;
    expect(existsSync(join(outside, 'bg.txt'))).toBe(false);
  });

  it('a missing bubblewrap (PATH without it) stops the start with exit 1 and how to install it', async ({
    onTestFinished,
  }) => {
    const bin = tempDir('agent-path-');
    for (const c of ['node', 'bash', 'sh', 'which', 'socat', 'rg', 'env']) {
      const at = which(c);
      if (at) symlinkSync(at, join(bin, c));
    }
    const api = await fakeApi([text('never')], onTestFinished);
    const r = await runAgent({ api, args: ['-p', 'hi', ...settingsArg({})], env: { PATH: bin } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Sandbox required but unavailable: bubblewrap/);
    expect(r.stderr).toMatch(/apt-get install bubblewrap/);
    expect(api.requests).toHaveLength(0);

    // failIfUnavailable: false → a warning, init says it is not active, and commands still run.
    const softApi = await fakeApi([toolUse('Bash', { command: 'echo ran' }), text('done')], onTestFinished);
    const cwd = tempDir();
    const soft = await runAgent({
      api: softApi,
      cwd,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash', ...settingsArg({ failIfUnavailable: false })],
      env: { PATH: bin },
      input: userLine('go'),
    });
    expect(soft.code).toBe(0);
    expect(soft.stderr).toMatch(/UNSANDBOXED/);
    const init = soft.json().find((m) => m.subtype === 'init');
    expect(init?.sandbox).toMatchObject({ enabled: true, active: false });
    expect(init?.sandbox.reason).toMatch(/bubblewrap/);
  });

  it("without nsenter (PATH without util-linux) it says the shared namespace is not used, and commands run in the runtime's own wrap: still masked, still filtered", async ({
    onTestFinished,
  }) => {
    const bin = tempDir('agent-path-');
    for (const c of ['node', 'bash', 'sh', 'which', 'socat', 'rg', 'env', 'bwrap', 'cat', 'curl']) {
      const at = which(c);
      if (at) symlinkSync(at, join(bin, c));
    }
    const host = await hostServer(onTestFinished);
    const cwd = tempDir();
    mkdirSync(join(cwd, 'secret'));
    writeFileSync(join(cwd, 'secret/key'), 'TOP-SECRET\n');
    // A script reads it: the permission check, which sees only the command line, lets it through.
    writeFileSync(join(cwd, 'read.sh'), 'cat secret/key 2>&1; echo script-ran\n');
    const r = await runCalls([{ command: 'bash read.sh' }, { command: host.viaProxy }], {
      cwd,
      args: ['--allowedTools', 'Bash', ...settingsArg({}, { deny: ['Read(./secret/**)'] })],
      env: { PATH: bin },
      onTestFinished,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "the session's shared network namespace is not used (nsenter (util-linux) is not on PATH)",
    );
    expect(r.init?.sandbox).toEqual({ enabled: true, active: true });
    expect(r.results.t1.text).toContain('script-ran');
    expect(r.results.t1.text).not.toContain('TOP-SECRET');
    expect(r.results.t2.text).toContain(`deny network-outbound 127.0.0.1:${host.port}`);
    expect(host.hits()).toBe(0);
  });

  it("the official SDK's sandbox option (sent in --settings) turns it on: init says active, autoAllowBashIfSandboxed needs no canUseTool", async ({
    onTestFinished,
  }) => {
    const cwd = tempDir();
    const outside = tempDir('agent-outside-');
    const api = await fakeApi(
      [
        calls([
          ['Bash', { command: `touch ${outside}/sdk` }],
          ['Bash', { command: 'echo sdk > s.txt && cat s.txt' }],
        ]),
        text('done'),
      ],
      onTestFinished,
    );
    const messages: SDKMessage[] = [];
    let asked = 0;
    const options = sdkOptions(api.url, cwd, {
      sandbox: { enabled: true, autoAllowBashIfSandboxed: true },
      canUseTool: async () => {
        asked++;
        return { behavior: 'deny', message: 'no' };
      },
    });
    for await (const m of query({ prompt: 'go', options: options as never })) messages.push(m);
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init') as Record<string, any>;
    expect(init.sandbox).toEqual({ enabled: true, active: true });
    expect(asked).toBe(0);
    const r = resultsById(api.requests[1]);
    expect(r.t1.text).toMatch(/Read-only file system/);
    expect(r.t2).toEqual({ text: 'sdk', isError: false });
    expect(existsSync(join(outside, 'sdk'))).toBe(false);
  });

  it('sandbox settings it cannot enforce stop the start (exit 1), never silently dropped', async ({
    onTestFinished,
  }) => {
    const api = await fakeApi([text('never')], onTestFinished);
    const r = await runAgent({
      api,
      args: ['-p', 'hi', ...settingsArg({ credentials: { envVars: [{ name: 'X', mode: 'deny' }] } })],
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sandbox\.credentials/);
    expect(api.requests).toHaveLength(0);
  });
});
