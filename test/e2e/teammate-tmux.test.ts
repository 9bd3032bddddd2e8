// Teammate mode tmux end to end: a lead (`bin/agent -p … --teammate-mode tmux`) running inside a
// real, private tmux server starts its teammate as its own `agent` process in a new pane. The
// teammate gets its work through its inbox, answers through the lead's, and shuts down at the
// lead's request; its pane is then gone and no process is left. Only the Messages API is faked.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, type TestContext } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  type RecordedRequest,
  type ScriptedReply,
  text,
  toolUse,
} from '../fake-api/server.js';
import { alive, waitUntil } from '../processes.js';
import { answeredCall, approveShutdown, teammateOf } from './teamScripts.js';
import { AGENT_BIN, type FakeApi, startTestApi, tempDir } from './harness.js';
import { hasTmux, privateTmux } from './tmux.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
// The tests run side by side (describe.concurrent), each with its own API and tmux server.
let serial = 0;

function script(req: RecordedRequest): ScriptedReply {
  const said = lastUserText(req);
  const tool = answeredCall(req)?.name;
  if (teammateOf(req) === 'worker') {
    if (tool) return text('worker rests');
    const approval = approveShutdown(said);
    if (approval) return approval;
    if (said.includes('compute the answer'))
      return toolUse('SendMessage', { to: 'team-lead', message: 'the answer is 42', summary: 'answer' });
    return text('worker read it');
  }
  if (tool === 'Task') return text('dispatched');
  if (tool === 'SendMessage') return text('asked it to stop');
  if (tool === 'TeamDelete') return text(`team closed: ${JSON.stringify(lastToolResults(req)[0]?.content)}`);
  if (tool) return text(`unexpected ${tool}`);
  if (said.includes('shutdown_approved')) return toolUse('TeamDelete', {});
  if (said.includes('You MUST shut down your team')) {
    // The variants: a lead that leaves its team to the session's end, one that hangs until killed.
    if (firstUserText(req).includes('leave it')) return text('leaving the team as it is');
    if (firstUserText(req).includes('hang')) return toolUse('Bash', { command: 'sleep 60' });
    return toolUse('SendMessage', { type: 'shutdown_request', recipient: 'worker', content: 'all done' });
  }
  if (said.includes('the answer is 42')) return text('lead got: 42');
  if (said.includes('form a team'))
    return toolUse('Task', {
      name: 'worker',
      team_name: 'alpha',
      description: 'Compute',
      prompt: 'compute the answer',
      subagent_type: 'general-purpose',
    });
  return text('noted');
}

interface Lead {
  tmux: (...args: string[]) => string;
  status: () => string;
  out: () => string;
  err: () => string;
}

/**
 * The lead in the first pane of a fresh private tmux server (so $TMUX and $TMUX_PANE are set),
 * killed when the test ends.
 */
function startLead(onTestFinished: TestContext['onTestFinished'], api: FakeApi, args: string[], config: string): Lead {
  const socket = `agent-e2e-team-${process.pid}-${serial++}`;
  onTestFinished(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
  });
  const work = tempDir('agent-tmux-team-');
  const env = {
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: api.url,
    AGENT_MAX_RETRIES: '2',
    CLAUDE_CONFIG_DIR: config,
    CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
    TMPDIR: tempDir('agent-tmp-'),
  };
  // Only the lead's shell has them: the tmux server (and so a new pane) starts without them.
  const exports = Object.entries(env)
    .map(([k, v]) => `export ${k}=${quote(v)};`)
    .join(' ');
  const files = { out: join(work, 'out'), err: join(work, 'err'), status: join(work, 'status') };
  const cmd = `${exports} cd ${quote(work)} && ${[AGENT_BIN, ...args].map(quote).join(' ')} > ${quote(files.out)} 2> ${quote(files.err)}; echo $? > ${quote(files.status)}`;
  const tmux = privateTmux(socket);
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '50', 'sh', '-c', cmd);
  // A pane stays when its command exits: only the lead's kill-pane removes a teammate's pane.
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return { tmux, status: () => read(files.status).trim(), out: () => read(files.out), err: () => read(files.err) };
}

function panes(lead: Lead): Array<{ id: string; pid: number }> {
  try {
    return lead
      .tmux('list-panes', '-a', '-F', '#{pane_id} #{pane_pid}')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => ({ id: l.split(' ')[0], pid: Number(l.split(' ')[1]) }));
  } catch {
    return []; // the server ends with its last pane
  }
}

/** The teammate's entry in the team file once it names its pane, and the pid that pane runs. */
async function teammatePane(lead: Lead, config: string): Promise<{ entry: any; pid: number }> {
  const cfgFile = join(config, 'teams', 'alpha', 'config.json');
  const member = () => {
    try {
      return JSON.parse(readFileSync(cfgFile, 'utf8')).members.find((m: any) => m.name === 'worker');
    } catch {
      return undefined;
    }
  };
  // The team file names its pane, the reference's way; the pane is there and runs the teammate.
  expect(await waitUntil(() => /^%\d+$/.test(member()?.tmuxPaneId ?? ''), 20_000, 50), lead.err()).toBe(true);
  const entry = member();
  expect(entry).toMatchObject({ name: 'worker', agentId: 'worker@alpha', backendType: 'tmux' });
  const pane = panes(lead).find((p) => p.id === entry.tmuxPaneId);
  expect(pane, `panes: ${JSON.stringify(panes(lead))}`).toBeDefined();
  return { entry, pid: pane!.pid };
}

/** The lead's own process: the child of the shell its pane runs. */
function leadPid(lead: Lead): number {
  const shell = panes(lead)[0]!.pid;
  return Number(readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/)[0]);
}

(hasTmux ? describe.concurrent : describe.skip)('teammate mode tmux', () => {
  it('the teammate runs in its own pane, answers through the mailbox, and its pane and process are gone after shutdown', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req) => script(req));
    const config = tempDir('agent-tmux-config-');
    const lead = startLead(
      onTestFinished,
      api,
      ['-p', 'form a team and find the answer', '--teammate-mode', 'tmux', '--dangerously-skip-permissions'],
      config,
    );
    const { entry, pid } = await teammatePane(lead, config);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toEqual(
      expect.arrayContaining(['--agent-id', 'worker@alpha', '--agent-name', 'worker', '--team-name', 'alpha']),
    );
    expect(cmdline).toEqual(expect.arrayContaining(['--teammate-mode', '--dangerously-skip-permissions']));
    // The key reached it through the environment file, never its command line.
    expect(cmdline.join(' ')).not.toContain('test-key');

    const story = () =>
      api.requests
        .map((r) => `${teammateOf(r) ?? 'lead'} ${answeredCall(r)?.name ?? ''}: ${lastUserText(r).slice(0, 160)}`)
        .join('\n');
    expect(
      await waitUntil(() => lead.status() !== '', 40_000, 100),
      `stderr: ${lead.err()}\n${story()}\n${existsSync(join(config, 'teams', 'alpha', 'config.json')) ? readFileSync(join(config, 'teams', 'alpha', 'config.json'), 'utf8') : 'no team file'}`,
    ).toBe(true);
    expect(lead.status(), lead.err()).toBe('0');
    // The lead deleted its team once the teammate had gone (TeamDelete refuses while one is live);
    // a later task-notification turn may be its last answer, so the request is what is checked.
    const deleted = api.requests.find((r) => answeredCall(r)?.name === 'TeamDelete');
    expect(JSON.stringify(deleted && lastToolResults(deleted)), lead.out()).toContain('deleted');

    // The teammate's requests came from its own process, with the lead's key and API (its env file).
    const fromWorker = api.requests.filter((r) => teammateOf(r) === 'worker');
    expect(fromWorker.length).toBeGreaterThan(0);
    const key = (r: RecordedRequest) => `${r.headers['x-api-key'] ?? ''} ${r.headers.authorization ?? ''}`;
    expect(key(fromWorker[0])).toContain('test-key');
    expect(lastUserText(fromWorker[0])).toContain(
      '<teammate-message teammate_id="team-lead" summary="Compute">\ncompute the answer\n</teammate-message>',
    );
    // The lead read its message (and its idle notice) as a teammate-message turn.
    const heard = api.requests.find(
      (r) => teammateOf(r) === null && lastUserText(r).includes('<teammate-message teammate_id="worker"'),
    );
    expect(heard && lastUserText(heard)).toContain('the answer is 42');
    expect(api.requests.some((r) => teammateOf(r) === null && lastUserText(r).includes('shutdown_approved'))).toBe(
      true,
    );

    // Nothing is left: no teammate process, no pane, no environment file.
    expect(await waitUntil(() => !alive(pid), 5000, 50)).toBe(true);
    expect(panes(lead).some((p) => p.id === entry.tmuxPaneId)).toBe(false);
    expect(existsSync(join(config, 'teams', 'alpha'))).toBe(false);
    const leftovers = existsSync(join(config, 'teams')) ? readdirSync(join(config, 'teams')) : [];
    expect(leftovers).toEqual([]);
  }, 60_000);

  it('the session ends with the teammate idle (teammateMode auto, as a setting): its process is ended and its pane killed', async ({
    onTestFinished,
  }) => {
    const api = await startTestApi({ onTestFinished }, (req) => script(req));
    const config = tempDir('agent-tmux-config-');
    const lead = startLead(
      onTestFinished,
      api,
      ['-p', 'form a team and leave it', '--settings', '{"teammateMode":"auto"}'],
      config,
    );
    const { entry, pid } = await teammatePane(lead, config);
    expect(await waitUntil(() => lead.status() !== '', 40_000, 100), `stderr: ${lead.err()}`).toBe(true);
    expect(lead.status(), lead.err()).toBe('0');
    expect(lead.out()).toContain('leaving the team as it is');
    expect(await waitUntil(() => !alive(pid), 5000, 50)).toBe(true);
    // remain-on-exit is on: the pane is gone because the lead killed it.
    expect(panes(lead).map((p) => p.id)).not.toContain(entry.tmuxPaneId);
  }, 60_000);

  it('the lead is terminated mid-turn: the teammate pane and its process go with it', async ({ onTestFinished }) => {
    const api = await startTestApi({ onTestFinished }, (req) => script(req));
    const config = tempDir('agent-tmux-config-');
    const lead = startLead(onTestFinished, api, ['-p', 'form a team and hang', '--teammate-mode', 'tmux'], config);
    const { entry, pid } = await teammatePane(lead, config);
    // The lead is in its Bash sleep (its wrap-up turn) once its team is idle.
    expect(
      await waitUntil(
        () =>
          api.requests.some(
            (r) => answeredCall(r)?.name === undefined && lastUserText(r).includes('You MUST shut down'),
          ),
        30_000,
        100,
      ),
    ).toBe(true);
    process.kill(leadPid(lead), 'SIGTERM');
    expect(await waitUntil(() => lead.status() !== '', 10_000, 50), `stderr: ${lead.err()}`).toBe(true);
    expect(await waitUntil(() => !alive(pid), 5000, 50)).toBe(true);
    expect(panes(lead).map((p) => p.id)).not.toContain(entry.tmuxPaneId);
  }, 60_000);

  it('tmux outside tmux is refused with a clear error (exit 2), from the flag or the setting', async () => {
    const env = { ...process.env };
    delete env.TMUX;
    // Both side by side, asynchronously (a synchronous run would stall the other tests).
    const run = async (...args: string[]) => {
      const p = promisify(execFile)(AGENT_BIN, ['-p', 'hi', ...args], { env, encoding: 'utf8' });
      p.child.stdin?.end();
      return p.then(
        () => ({ status: 0, stderr: '' }),
        (err: any) => ({ status: err.code as number, stderr: String(err.stderr) }),
      );
    };
    const [flag, setting] = await Promise.all([
      run('--teammate-mode', 'tmux'),
      run('--settings', '{"teammateMode":"tmux"}'),
    ]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/--teammate-mode tmux: this agent is not running inside tmux \(\$TMUX is not set\)/);
    expect(setting.status).toBe(2);
    expect(setting.stderr).toMatch(/the teammateMode setting tmux: this agent is not running inside tmux/);
  });
});
