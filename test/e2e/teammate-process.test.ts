// Process teammates driven by a real program: claude-code-controller (a dev dependency) starts
// bin/agent as teammates (`--teammate-mode auto --agent-id … --agent-name … --team-name …`, in a
// pty through its python wrapper) and leads them through the team files: inboxes, config.json and
// the task list. Only the Messages API is faked; the controller, its lock library and our
// processes are real.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  lastUserText,
  type RecordedRequest,
  type ScriptedReply,
  systemText,
  text,
  toolUse,
} from '../fake-api/server.js';
import { alive, waitUntil } from '../processes.js';
import { answeredCall, approveShutdown, teammateOf } from './teamScripts.js';
import { type Controller, startLead } from './controllerLead.js';
import { AGENT_BIN, DEFERRED_REMINDER, type FakeApi, startFakeApi, tempDir } from './harness.js';

// The tests run side by side (describe.concurrent), each with its own lead and team; the file's API
// answers from each request alone.
let api: FakeApi;
// python3 with its pty module, found once for the run (test/globalSetup.ts).
const hasPython = process.env.AGENT_TEST_PYTHON_PTY === '1';

function script(req: RecordedRequest): ScriptedReply {
  const name = teammateOf(req) ?? '?';
  const said = lastUserText(req);
  const call = answeredCall(req);
  if (call?.name === 'TaskUpdate' && call.input.status === 'in_progress')
    return toolUse('TaskUpdate', { taskId: call.input.taskId, status: 'completed' });
  if (call?.name === 'TaskUpdate' && call.input.status === 'completed')
    return toolUse('SendMessage', { to: 'controller', message: `task ${call.input.taskId} is done`, summary: 'done' });
  if (call) return text(`${name} rests`);
  const approval = approveShutdown(said);
  if (approval) return approval;
  const task = /"type":"task_assignment","taskId":"([^"]+)"/.exec(said);
  if (task) return toolUse('TaskUpdate', { taskId: task[1], owner: name, status: 'in_progress' });
  const ask = /ASK (.+)/.exec(said);
  if (ask)
    return toolUse('SendMessage', {
      to: 'controller',
      message: `${name} answers: ${ask[1].length}`,
      summary: 'answer',
    });
  const ping = /PING (\w+)/.exec(said);
  if (ping) return toolUse('SendMessage', { to: ping[1], message: `hello from ${name}` });
  const hello = /teammate_id="(\w+)">\nhello from/.exec(said);
  if (hello) return toolUse('SendMessage', { to: 'controller', message: `${name} got a hello from ${hello[1]}` });
  if (said.includes('BROADCAST'))
    return toolUse('SendMessage', { to: 'controller', message: `${name} heard the broadcast` });
  return text(`${name} read it`);
}

beforeAll(async () => {
  api = await startFakeApi((req) => script(req));
});
afterAll(async () => {
  await api?.close();
});

/** A started lead, shut down when the test ends. */
async function lead(onTestFinished: TestContext['onTestFinished']): Promise<{ c: Controller; claudeDir: string }> {
  const started = await startLead(api, { prefix: 't' });
  onTestFinished(() => started.stop());
  return { c: started.c, claudeDir: started.claudeDir };
}

/** Every message the controller hears from now on, in order. */
function listen(c: Controller) {
  const heard: Array<{ kind: string; from: string; text?: string }> = [];
  c.on('message', (from: string, m: { text: string }) => heard.push({ kind: 'message', from, text: m.text }));
  c.on('idle', (from: string) => heard.push({ kind: 'idle', from }));
  c.on('shutdown:approved', (from: string) => heard.push({ kind: 'shutdown', from }));
  c.on('agent:exited', (from: string, code: number | null) => heard.push({ kind: `exited ${code}`, from }));
  const until = async (pred: (h: (typeof heard)[number]) => boolean, ms = 20_000) => {
    expect(await waitUntil(() => heard.some(pred), ms, 50), `heard so far: ${JSON.stringify(heard)}`).toBe(true);
    return heard.find(pred)!;
  };
  return { heard, until };
}

function inboxOf(c: Controller, claudeDir: string, name: string): any[] {
  return JSON.parse(readFileSync(join(claudeDir, 'teams', c.teamName, 'inboxes', `${name}.json`), 'utf8'));
}

/** Our agent process under the controller's python pty wrapper. */
function agentPid(wrapperPid: number): number | undefined {
  try {
    const kids = readFileSync(`/proc/${wrapperPid}/task/${wrapperPid}/children`, 'utf8').trim().split(/\s+/);
    return kids[0] ? Number(kids[0]) : undefined;
  } catch {
    return undefined;
  }
}

(hasPython ? describe.concurrent : describe.skip)('process teammates under claude-code-controller', () => {
  it('spawn and ask: the answer comes by SendMessage, then an idle event; the messages carry the reference fields', async ({
    onTestFinished,
  }) => {
    const { c, claudeDir } = await lead(onTestFinished);
    const w = await c.spawnAgent({ name: 'w' });
    // The controller's own poller and receive() both take unread mail: ask alone here.
    (c as any).poller.stop();
    const answer = await w.ask('ASK four', { timeout: 20_000 });
    expect(answer).toBe('w answers: 4');
    await waitUntil(
      () => inboxOf(c, claudeDir, 'controller').some((m) => m.text.includes('idle_notification')),
      10_000,
      50,
    );
    const inbox = inboxOf(c, claudeDir, 'controller');
    // The reference 2.1.330's envelope: msgV, msg_id, type and read on every message.
    expect(inbox[0]).toMatchObject({
      from: 'w',
      text: 'w answers: 4',
      summary: 'answer',
      color: '#00FF00',
      msgV: 1,
      msg_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'message',
      read: expect.any(Boolean),
    });
    expect(typeof inbox[0].timestamp).toBe('string');
    const idle = JSON.parse(inbox.find((m) => m.text.includes('idle_notification')).text);
    expect(idle).toMatchObject({ type: 'idle_notification', from: 'w', idleReason: 'available', result: 'w rests' });
    (c as any).poller.start();
    // Its request: the inbox turn as a <teammate-message> from the controller, the lead named from config.json.
    const req = api.requests.find((r) => teammateOf(r) === 'w' && lastUserText(r).includes('ASK four'))!;
    // Its first request, so with the deferred-tools reminder after it.
    expect(lastUserText(req)).toBe(
      `<teammate-message teammate_id="controller">\nASK four\n</teammate-message>\n${DEFERRED_REMINDER}`,
    );
    expect(systemText(req)).toContain('The team\'s lead is "controller"');
  });

  it('idle events, a task assigned and completed, broadcast, and shutdown with approval', async ({
    onTestFinished,
  }) => {
    const { c, claudeDir } = await lead(onTestFinished);
    const { until } = listen(c);
    await c.spawnAgent({ name: 'a' });
    await c.spawnAgent({ name: 'b' });
    await c.send('a', 'hello a');
    await until((h) => h.kind === 'idle' && h.from === 'a');

    const taskId = await c.createTask({ subject: 'Count', description: 'count the files', owner: 'b' });
    const done = await c.waitForTask(taskId, 20_000);
    expect(done).toMatchObject({ id: taskId, status: 'completed', owner: 'b', subject: 'Count' });
    await until((h) => h.kind === 'message' && h.from === 'b' && h.text === `task ${taskId} is done`);

    await c.broadcast('BROADCAST: stand up');
    await until((h) => h.kind === 'message' && h.text === 'a heard the broadcast');
    await until((h) => h.kind === 'message' && h.text === 'b heard the broadcast');

    await c.sendShutdownRequest('a');
    await until((h) => h.kind === 'shutdown' && h.from === 'a');
    await until((h) => h.kind === 'exited 0' && h.from === 'a');
    expect(c.isAgentRunning('b')).toBe(true);
    const approval = JSON.parse(
      inboxOf(c, claudeDir, 'controller').find((m) => m.text.includes('shutdown_approved')).text,
    );
    expect(approval).toMatchObject({
      type: 'shutdown_approved',
      from: 'a',
      requestId: expect.stringMatching(/^shutdown-\d+@a$/),
    });
  });

  it('two agents message each other; one that dies leaves no process behind and the other goes on', async ({
    onTestFinished,
  }) => {
    const { c } = await lead(onTestFinished);
    const { until } = listen(c);
    const x = await c.spawnAgent({ name: 'x' });
    await c.spawnAgent({ name: 'y' });
    await c.send('x', 'PING y');
    await until((h) => h.kind === 'message' && h.from === 'y' && h.text === 'y got a hello from x');

    let ours: number | undefined;
    await waitUntil(() => (ours = agentPid(x.pid!)) !== undefined, 5000);
    expect(ours && alive(ours)).toBe(true);
    process.kill(x.pid!, 'SIGKILL'); // the wrapper dies at once: our process loses its terminal
    await until((h) => h.kind.startsWith('exited') && h.from === 'x');
    expect(await waitUntil(() => !alive(ours!), 5000)).toBe(true);
    await c.send('y', 'ASK still there');
    await until((h) => h.kind === 'message' && h.text === 'y answers: 11');
  });

  it('a malformed inbox is set aside and replaced; the agent goes on reading its mail; it ends with its team', async ({
    onTestFinished,
  }) => {
    const { c, claudeDir } = await lead(onTestFinished);
    const { until } = listen(c);
    await c.spawnAgent({ name: 'm' });
    await c.send('m', 'hello m');
    await until((h) => h.kind === 'idle' && h.from === 'm');
    const dir = join(claudeDir, 'teams', c.teamName, 'inboxes');
    writeFileSync(join(dir, 'm.json'), '[{"from": "controller", "te');
    await waitUntil(() => readdirSync(dir).some((f) => f.startsWith('m.json.corrupt-')), 5000);
    expect(readFileSync(join(dir, readdirSync(dir).find((f) => f.startsWith('m.json.corrupt-'))!), 'utf8')).toBe(
      '[{"from": "controller", "te',
    );
    await c.send('m', 'ASK abc');
    await until((h) => h.kind === 'message' && h.text === 'm answers: 3');
    // Its team deleted under it (config.json gone): it stops on its own.
    rmSync(join(claudeDir, 'teams', c.teamName, 'config.json'));
    await until((h) => h.kind === 'exited 0' && h.from === 'm', 5000);
  });
});

/** bin/agent with `args` and no input (its stdin ended), as a promise of its output. */
function teammateRun(args: string[], configDir: string) {
  const run = promisify(execFile)(AGENT_BIN, args, { env: { ...process.env, CLAUDE_CONFIG_DIR: configDir } });
  run.child.stdin?.end();
  return run;
}

describe.concurrent('teammate flags', () => {
  it('a teammate without its team, or with flags that disagree, fails at start with the reason', async () => {
    // The five runs go side by side (asynchronously: a synchronous one would stall the other tests).
    const run = async (args: string[]) => {
      try {
        await teammateRun(args, tempDir('agent-config-'));
        return { code: 0, stderr: '' };
      } catch (err: any) {
        return { code: err.code as number, stderr: String(err.stderr) };
      }
    };
    const [noTeam, idMismatch, color, mode, prompt] = await Promise.all([
      run(['--agent-name', 'w', '--team-name', 'nope']),
      run(['--agent-id', 'v@t', '--agent-name', 'w', '--team-name', 't']),
      run(['--agent-color', '#fff']),
      run(['--teammate-mode', 'panes']),
      run(['--agent-name', 'w', '--team-name', 't', '-p', 'hi']),
    ]);
    expect(noTeam).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/teammate w@nope: no team file at .*teams\/nope\/config\.json/),
    });
    expect(idMismatch).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--agent-id "v@t" does not match --agent-name and --team-name (expected "w@t")'),
    });
    expect(color).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--agent-color is for a teammate process'),
    });
    expect(mode).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--teammate-mode must be one of auto, tmux, in-process'),
    });
    expect(prompt).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('takes no prompt'),
    });
  });

  it('the team file must name its lead', async () => {
    const config = tempDir('agent-config-');
    mkdirSync(join(config, 'teams', 't'), { recursive: true });
    writeFileSync(join(config, 'teams', 't', 'config.json'), JSON.stringify({ name: 't', members: [] }));
    let stderr = '';
    try {
      await teammateRun(['--agent-name', 'w', '--team-name', 't'], config);
    } catch (err: any) {
      stderr = String(err.stderr);
    }
    expect(stderr).toMatch(/config\.json is not a team file: leadAgentId/);
    expect(existsSync(join(config, 'teams', 't', 'inboxes'))).toBe(false);
  });
});
