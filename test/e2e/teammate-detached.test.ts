// Teammate mode detached end to end: a lead (`bin/agent -p … --teammate-mode detached`, no tmux)
// starts its teammate as its own `agent` process, detached (its own process group and session, no
// terminal), its output in a log file in the team's directory. The teammate works through the
// mailboxes as a pane teammate does, and its process group is gone after every way it can end:
// an approved shutdown, the session's end, TaskStop, the lead's SIGTERM and the lead's SIGKILL.
// Only the Messages API is faked; what is alive is read from /proc.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import {
  lastToolResults,
  lastUserText,
  type RecordedRequest,
  type ScriptedReply,
  systemText,
  text,
  toolUse,
} from '../fake-api/server.js';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { makeTestPki, startTlsFront } from '../cloud-fakes/tls.js';
import { alive, waitUntil } from '../processes.js';
import { answeredCall, approveShutdown, teammateOf } from './teamScripts.js';
import { type AgentProcess, type FakeApi, startAgent, startTestApi, tempDir } from './harness.js';
import { sdkOptions } from './sdkHost.js';

// The tests run side by side (describe.concurrent), each with its own API, lead and team; what a
// test started is killed when it ends, whatever happened (its context's onTestFinished).
type OnFinished = TestContext['onTestFinished'];

/** The file's script on a test's own API. */
async function scriptedApi(onFinished: OnFinished): Promise<FakeApi> {
  const api: FakeApi = await startTestApi({ onTestFinished: onFinished }, (req) => script(req, api));
  return api;
}

/** The long job the teammate runs when told to (a grandchild of the lead, in its own group). */
const LONG_JOB = 'sleep 61.37';

function script(req: RecordedRequest, api: FakeApi): ScriptedReply {
  const said = lastUserText(req);
  const tool = answeredCall(req)?.name;
  if (teammateOf(req) === 'worker') {
    if (tool) return text('worker rests');
    const approval = approveShutdown(said);
    if (approval) return approval;
    if (said.includes('compute the answer'))
      return toolUse('SendMessage', { to: 'team-lead', message: 'the answer is 42', summary: 'answer' });
    if (said.includes('run the long job')) return toolUse('Bash', { command: LONG_JOB });
    return text('worker read it');
  }
  const first = (req.body.messages[0]?.content ?? '') as unknown;
  const firstText = typeof first === 'string' ? first : JSON.stringify(first);
  if (tool === 'Task') {
    // The stop variant: wait until the teammate's job runs, then stop the teammate.
    if (firstText.includes('stop it'))
      return toolUse('Bash', {
        command: `for i in $(seq 200); do pgrep -f '${LONG_JOB.replace('sleep', 'slee[p]')}' && break; sleep 0.1; done`,
      });
    return text('dispatched');
  }
  if (tool === 'Bash' && firstText.includes('stop it')) {
    const spawned = api.requests.map((r) => JSON.stringify(lastToolResults(r))).find((t) => t.includes('task_id: '));
    return toolUse('TaskStop', { task_id: /task_id: (\w+)/.exec(spawned ?? '')?.[1] ?? 'none' });
  }
  if (tool === 'TaskStop') return text(`stopped: ${JSON.stringify(lastToolResults(req)[0]?.content)}`);
  if (tool === 'SendMessage') return text('asked it to stop');
  if (tool === 'TeamDelete') return text(`team closed: ${JSON.stringify(lastToolResults(req)[0]?.content)}`);
  if (tool) return text(`unexpected ${tool}`);
  if (said.includes('shutdown_approved')) return toolUse('TeamDelete', {});
  if (said.includes('You MUST shut down your team')) {
    if (firstText.includes('leave it')) return text('leaving the team as it is');
    if (firstText.includes('hang')) return { hang: true };
    return toolUse('SendMessage', { type: 'shutdown_request', recipient: 'worker', content: 'all done' });
  }
  if (said.includes('the answer is 42')) return text('lead got: 42');
  if (said.includes('form a team'))
    return toolUse('Task', {
      name: 'worker',
      team_name: 'alpha',
      description: 'Compute',
      prompt: firstText.includes('stop it') ? 'run the long job' : 'compute the answer',
      subagent_type: 'general-purpose',
    });
  return text('noted');
}

/** /proc/<pid>/stat's state, process group and session. */
function stat(pid: number): { state: string; pgrp: number; session: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], pgrp: Number(f[2]), session: Number(f[3]) };
  } catch {
    return undefined;
  }
}

/** Every live process of the group (zombies are dead already). */
function groupMembers(pgrp: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      const s = stat(pid);
      return s !== undefined && s.pgrp === pgrp && s.state !== 'Z';
    });
}

/** Live processes whose command line holds `needle`. */
function withCmdline(needle: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(needle) && alive(pid);
      } catch {
        return false;
      }
    });
}

function lead(onFinished: OnFinished, api: FakeApi, args: string[], config: string): AgentProcess {
  const p = startAgent({
    api,
    args,
    env: {
      CLAUDE_CONFIG_DIR: config,
      CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
      AGENT_MAX_RETRIES: '2',
      TMUX: undefined,
    },
  });
  onFinished(() => {
    p.child.kill('SIGKILL');
  });
  return p;
}

/** The teammate's entry in the team file, and its process: the lead's child running `--agent-name worker`. */
async function teammate(onFinished: OnFinished, p: AgentProcess, config: string): Promise<{ entry: any; pid: number }> {
  const cfgFile = join(config, 'teams', 'alpha', 'config.json');
  const member = () => {
    try {
      return JSON.parse(readFileSync(cfgFile, 'utf8')).members.find((m: any) => m.name === 'worker');
    } catch {
      return undefined;
    }
  };
  const child = () => {
    const leadPid = p.child.pid!;
    const kids = existsSync(`/proc/${leadPid}/task/${leadPid}/children`)
      ? readFileSync(`/proc/${leadPid}/task/${leadPid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number)
      : [];
    return kids.find((k) => {
      try {
        return readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('\0--agent-name\0worker\0');
      } catch {
        return false;
      }
    });
  };
  expect(await waitUntil(() => member() !== undefined && child() !== undefined, 20_000, 50), p.stderr()).toBe(true);
  const pid = child()!;
  // Its group is killed when the test ends, whatever happened.
  onFinished(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  });
  return { entry: member(), pid };
}

describe.concurrent('teammate mode detached', () => {
  it('the teammate is a detached process of its own group, logs to the team folder, answers through the mailbox, and its group is gone after an approved shutdown', async ({
    onTestFinished,
  }) => {
    const api = await scriptedApi(onTestFinished);
    const config = tempDir('agent-detached-config-');
    const p = lead(
      onTestFinished,
      api,
      ['-p', 'form a team and find the answer', '--teammate-mode', 'detached', '--dangerously-skip-permissions'],
      config,
    );
    const { entry, pid } = await teammate(onTestFinished, p, config);
    // The team file: the reference's pane fields, with no pane ("") and our backend type.
    expect(entry).toMatchObject({ name: 'worker', agentId: 'worker@alpha', tmuxPaneId: '', backendType: 'detached' });
    // Its own process group and session (no terminal), the leader of both.
    expect(stat(pid)).toMatchObject({ pgrp: pid, session: pid });
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toEqual(
      expect.arrayContaining(['--agent-id', 'worker@alpha', '--agent-name', 'worker', '--team-name', 'alpha']),
    );
    expect(cmdline.join(' ')).toContain('--teammate-mode detached');
    expect(cmdline).toContain('--dangerously-skip-permissions');
    // The key reached it through the environment file, never its command line.
    expect(cmdline.join(' ')).not.toContain('test-key');
    const log = join(config, 'teams', 'alpha', 'worker.log');
    expect(await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('serving'), 20_000, 50)).toBe(
      true,
    );

    const { code } = await p.exited;
    expect(code, p.stderr()).toBe(0);
    const deleted = api.requests.find((r) => answeredCall(r)?.name === 'TeamDelete');
    expect(JSON.stringify(deleted && lastToolResults(deleted)), p.lines.join('\n')).toContain('deleted');
    const fromWorker = api.requests.filter((r) => teammateOf(r) === 'worker');
    expect(fromWorker.length).toBeGreaterThan(0);
    // With the lead's key and API (its environment file).
    const r0 = fromWorker[0];
    expect(`${r0.headers['x-api-key'] ?? ''} ${r0.headers.authorization ?? ''}`).toContain('test-key');
    const heard = api.requests.find(
      (r) => teammateOf(r) === null && lastUserText(r).includes('<teammate-message teammate_id="worker"'),
    );
    expect(heard && lastUserText(heard)).toContain('the answer is 42');

    // Nothing is left: no process of its group, no team directory (its log went with it).
    expect(await waitUntil(() => groupMembers(pid).length === 0, 5000, 50)).toBe(true);
    expect(existsSync(join(config, 'teams', 'alpha'))).toBe(false);
  }, 60_000);

  it('the session ends with the teammate idle (the teammateMode setting): its group is ended', async ({
    onTestFinished,
  }) => {
    const api = await scriptedApi(onTestFinished);
    const config = tempDir('agent-detached-config-');
    const p = lead(
      onTestFinished,
      api,
      ['-p', 'form a team and leave it', '--settings', '{"teammateMode":"detached"}'],
      config,
    );
    const { entry, pid } = await teammate(onTestFinished, p, config);
    expect(entry.backendType).toBe('detached');
    const { code } = await p.exited;
    expect(code, p.stderr()).toBe(0);
    expect(p.lines.join('\n')).toContain('leaving the team as it is');
    expect(await waitUntil(() => groupMembers(pid).length === 0, 5000, 50)).toBe(true);
    const cfg = JSON.parse(readFileSync(join(config, 'teams', 'alpha', 'config.json'), 'utf8'));
    expect(cfg.members.find((m: any) => m.name === 'worker').status).toBe('shutdown');
  }, 60_000);

  it('TaskStop ends the teammate mid-command: its group and the command it ran are gone', async ({
    onTestFinished,
  }) => {
    const api = await scriptedApi(onTestFinished);
    const config = tempDir('agent-detached-config-');
    const p = lead(
      onTestFinished,
      api,
      ['-p', 'form a team and stop it', '--teammate-mode', 'detached', '--dangerously-skip-permissions'],
      config,
    );
    const { pid } = await teammate(onTestFinished, p, config);
    expect(await waitUntil(() => withCmdline(LONG_JOB).length > 0, 20_000, 50), p.stderr()).toBe(true);
    const { code } = await p.exited;
    expect(code, p.stderr()).toBe(0);
    const stopped = api.requests.find((r) => answeredCall(r)?.name === 'TaskStop');
    expect(JSON.stringify(stopped && lastToolResults(stopped))).toMatch(/[Ss]top/);
    expect(await waitUntil(() => groupMembers(pid).length === 0, 5000, 50)).toBe(true);
    expect(await waitUntil(() => withCmdline(LONG_JOB).length === 0, 5000, 50)).toBe(true);
  }, 60_000);

  it('the official SDK as host: a teammate of an agent type defined only in initialize.agents runs as that agent', async ({
    onTestFinished,
  }) => {
    const REVIEWER = 'You are the host-only reviewer. Answer every review with the code LGTM-7.';
    const api = await startTestApi({ onTestFinished }, (req): ScriptedReply => {
      const tool = answeredCall(req)?.name;
      if (teammateOf(req) === 'rev') {
        if (tool) return text('rev rests');
        if (lastUserText(req).includes('review the change'))
          return toolUse('SendMessage', { to: 'team-lead', message: 'review: LGTM-7', summary: 'review' });
        return text('rev read it');
      }
      if (tool === 'Agent') return text('the reviewer is on it');
      if (lastUserText(req).includes('You MUST shut down your team')) return text('the team is wound up');
      if (lastUserText(req).includes('review: LGTM-7')) return text('the reviewer says LGTM-7');
      if (tool) return text(`unexpected ${tool}`);
      if (!lastUserText(req).includes('review with a teammate')) return text('noted');
      return toolUse('Agent', {
        name: 'rev',
        team_name: 'alpha',
        description: 'Review',
        prompt: 'review the change',
        subagent_type: 'reviewer',
      });
    });
    const options = sdkOptions(api.url, tempDir(), {
      agents: { reviewer: { description: 'Reviews changes', prompt: REVIEWER, tools: ['SendMessage', 'Read'] } },
      extraArgs: { 'teammate-mode': 'detached' },
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
    });
    const config = options.env.CLAUDE_CONFIG_DIR;
    const env: Record<string, string | undefined> = { ...options.env, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' };
    delete env.TMUX;
    const messages: SDKMessage[] = [];
    for await (const m of query({ prompt: 'review with a teammate', options: { ...options, env } as never }))
      messages.push(m);
    const results = messages.flatMap((m) => (m.type === 'result' && m.subtype === 'success' ? [m.result] : []));
    expect(results).toContain('the reviewer says LGTM-7');
    // The teammate's own process ran as the host's agent: its prompt is the agent's.
    const fromRev = api.requests.filter((r) => teammateOf(r) === 'rev');
    expect(fromRev.length).toBeGreaterThan(0);
    expect(systemText(fromRev[0])).toContain(REVIEWER);
    const cfg = JSON.parse(readFileSync(join(config, 'teams', 'alpha', 'config.json'), 'utf8'));
    expect(cfg.members.find((m: any) => m.name === 'rev')).toMatchObject({
      agentType: 'reviewer',
      backendType: 'detached',
    });
  }, 60_000);

  for (const signal of ['SIGTERM', 'SIGKILL'] as const)
    it(`the lead is ended with ${signal} mid-turn: the teammate's group goes with it`, async ({ onTestFinished }) => {
      const api = await scriptedApi(onTestFinished);
      const config = tempDir('agent-detached-config-');
      const p = lead(onTestFinished, api, ['-p', 'form a team and hang', '--teammate-mode', 'detached'], config);
      const { pid } = await teammate(onTestFinished, p, config);
      // The lead waits on its wrap-up request (it hangs) once its team is idle.
      expect(
        await waitUntil(
          () =>
            api.requests.some(
              (r) => answeredCall(r)?.name === undefined && lastUserText(r).includes('You MUST shut down'),
            ),
          30_000,
          100,
        ),
        p.stderr(),
      ).toBe(true);
      expect(groupMembers(pid)).toContain(pid);
      p.child.kill(signal);
      await p.exited;
      expect(await waitUntil(() => groupMembers(pid).length === 0, 5000, 50)).toBe(true);
    }, 60_000);
  it("behind a gateway with a private CA: the teammate trusts the lead's NODE_EXTRA_CA_CERTS, which reaches it only through the environment file", async ({
    onTestFinished,
  }) => {
    const api = await scriptedApi(onTestFinished);
    const pki = makeTestPki(tempDir('agent-detached-pki-'));
    const front = await startTlsFront(pki, api.url);
    try {
      const config = tempDir('agent-detached-config-');
      const p = startAgent({
        api,
        args: [
          '-p',
          'form a team and find the answer',
          '--teammate-mode',
          'detached',
          '--dangerously-skip-permissions',
        ],
        env: {
          CLAUDE_CONFIG_DIR: config,
          CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
          AGENT_MAX_RETRIES: '2',
          TMUX: undefined,
          ANTHROPIC_BASE_URL: front.url,
          NODE_EXTRA_CA_CERTS: pki.caCert,
        },
      });
      onTestFinished(() => {
        p.child.kill('SIGKILL');
      });
      const { pid } = await teammate(onTestFinished, p, config);
      // Its process started without the variable: only the lead's file named the CA.
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environ.some((v) => v.startsWith('NODE_EXTRA_CA_CERTS='))).toBe(false);
      expect(await waitUntil(() => api.requests.some((r) => teammateOf(r) === 'worker'), 20_000, 50)).toBe(true);
      const { code } = await p.exited;
      expect(code, p.stderr()).toBe(0);
      // Its answer came back to the lead (through the mailbox, from a session that called the model).
      const heard = api.requests.find((r) => teammateOf(r) === null && lastUserText(r).includes('the answer is 42'));
      expect(heard).toBeDefined();
    } finally {
      await front.close();
    }
  });
});
