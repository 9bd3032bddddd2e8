// A process teammate's permission questions go to its lead through the team's inboxes
// (permission_request / permission_response, the reference's frames). The lead here is
// claude-code-controller (a dev dependency, real): it hears `permission:request` and answers with
// sendPermissionResponse. Only the Messages API is faked.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  firstUserText,
  lastToolResults,
  lastUserText,
  type RecordedRequest,
  systemText,
  startFakeApi,
  text,
  toolUse,
} from '../fake-api/server.js';
import { waitUntil } from '../processes.js';
import { type FakeApi, resultText, tempDir } from './harness.js';
import { type Controller, startLead } from './controllerLead.js';
import { promptStream, sdkOptions } from './sdkHost.js';
import { hasTmux, privateTmux } from './tmux.js';

// The tests run side by side: each has its own lead and team (its own fake API where the script
// keeps state); the file's API below answers from each request alone.
let api: FakeApi;
// python3 with its pty module, found once for the run (test/globalSetup.ts).
const hasPython = process.env.AGENT_TEST_PYTHON_PTY === '1';

/** "WRITE <path> <text>": the teammate calls Write; the call's result goes back to the controller. */
function script(req: RecordedRequest) {
  const results = lastToolResults(req);
  const messages: any[] = req.body.messages;
  const last = messages[messages.length - 2];
  const called = last?.role === 'assistant' ? last.content.find((b: any) => b.type === 'tool_use') : undefined;
  if (results.length && called?.name === 'Write')
    return toolUse('SendMessage', {
      to: 'controller',
      message: `RESULT ${called.input.file_path}: ${resultText(results[0].content)}`,
      summary: 'result',
    });
  if (results.length && called?.name === 'ExitPlanMode')
    return toolUse('SendMessage', {
      to: 'controller',
      message: `RESULT ${/1\. write (\w+)/.exec(called.input.plan)?.[1]}: ${resultText(results[0].content)}`,
      summary: 'plan result',
    });
  if (results.length) return text('done');
  const plan = /PLAN (\w+)/.exec(lastUserText(req));
  if (plan) return toolUse('ExitPlanMode', { plan: `1. write ${plan[1]}` });
  // The controller's shutdown: approved, so the process ends at once.
  const request = /"type":"shutdown_request","requestId":"([^"]+)"/.exec(lastUserText(req));
  if (request)
    return toolUse('SendMessage', { message: { type: 'shutdown_response', request_id: request[1], approve: true } });
  const write = /WRITE (\S+) (\S+)/.exec(lastUserText(req));
  if (write) return toolUse('Write', { file_path: write[1], content: write[2] });
  return text('read it');
}

beforeAll(async () => {
  // One API for the whole file (the harness's closes at each test's end): closed in afterAll.
  api = await startFakeApi(script);
});
afterAll(async () => {
  await api?.close();
});

/** A started lead, shut down when the test ends. */
async function lead(
  onTestFinished: TestContext['onTestFinished'],
  env: Record<string, string> = {},
): Promise<{ c: Controller; cwd: string; claudeDir: string }> {
  const started = await startLead(api, { prefix: 'p', cwd: tempDir('agent-perm-cwd-'), env });
  onTestFinished(() => started.stop());
  return { c: started.c, cwd: started.cwd, claudeDir: started.claudeDir };
}

/** The RESULT messages the controller hears, by file. */
function results(c: Controller) {
  const heard = new Map<string, string>();
  c.on('message', (_from: string, m: { text: string }) => {
    const r = /^RESULT (\S+): ([\s\S]*)$/.exec(m.text);
    if (r) heard.set(r[1], r[2]);
  });
  return async (file: string) => {
    expect(await waitUntil(() => heard.has(file), 20_000, 50), `no result for ${file}`).toBe(true);
    return heard.get(file)!;
  };
}

function inboxOf(c: Controller, claudeDir: string, name: string): any[] {
  return JSON.parse(readFileSync(join(claudeDir, 'teams', c.teamName, 'inboxes', `${name}.json`), 'utf8'));
}

(hasPython ? describe.concurrent : describe.skip)(
  'a process teammate asks its lead (claude-code-controller) for permission',
  () => {
    it('its Write is allowed once and denied once by the lead, through the inboxes', async ({ onTestFinished }) => {
      const { c, cwd, claudeDir } = await lead(onTestFinished);
      const resultFor = results(c);
      const asked: any[] = [];
      c.on('permission:request', (from: string, msg: any) => {
        asked.push({ from, msg });
        // The first question is allowed, the second denied.
        void c.sendPermissionResponse(from, msg.requestId, asked.length === 1);
      });
      await c.spawnAgent({ name: 'e' });
      const one = join(cwd, 'one.txt');
      const two = join(cwd, 'two.txt');
      await c.send('e', `WRITE ${one} first`);
      expect(await resultFor(one)).toMatch(/File created successfully|one\.txt/);
      expect(readFileSync(one, 'utf8')).toBe('first');
      await c.send('e', `WRITE ${two} second`);
      expect(await resultFor(two)).toContain('The team lead "controller" denied permission to use Write');
      expect(existsSync(two)).toBe(false);

      // The question, in the reference's fields and the controller's older ones, from the teammate.
      expect(asked).toHaveLength(2);
      expect(asked[0].from).toBe('e');
      expect(asked[0].msg).toMatchObject({
        type: 'permission_request',
        request_id: expect.stringMatching(/^perm-\d+-[0-9a-f]+$/),
        agent_id: 'e',
        tool_name: 'Write',
        tool_use_id: expect.any(String),
        input: { file_path: one, content: 'first' },
        permission_suggestions: expect.any(Array),
        requestId: asked[0].msg.request_id,
        toolName: 'Write',
      });
      const frame = inboxOf(c, claudeDir, 'controller').find((m) => m.text.includes('"permission_request"'));
      expect(frame).toMatchObject({ from: 'e', color: expect.any(String), timestamp: expect.any(String) });
    });

    it('in plan mode its ExitPlanMode is a plan_approval_request: rejected with feedback, then approved', async ({
      onTestFinished,
    }) => {
      const { c } = await lead(onTestFinished);
      const resultFor = results(c);
      const plans: any[] = [];
      c.on('plan:approval_request', (from: string, msg: any) => {
        plans.push(msg);
        void c.sendPlanApproval(
          from,
          msg.requestId,
          plans.length === 2,
          plans.length === 1 ? 'add a test step' : undefined,
        );
      });
      await c.spawnAgent({ name: 'p', permissionMode: 'plan' });
      await c.send('p', 'PLAN plan1');
      expect(await resultFor('plan1')).toContain(
        'The team lead "controller" did not approve the plan: add a test step',
      );
      await c.send('p', 'PLAN plan2');
      expect(await resultFor('plan2')).toMatch(/approved your plan/);
      expect(plans[0]).toMatchObject({
        type: 'plan_approval_request',
        from: 'p',
        planContent: '1. write plan1',
        requestId: expect.stringMatching(/^plan-\d+-[0-9a-f]+$/),
        planFilePath: '',
        timestamp: expect.any(String),
      });
    });

    it('an answer that never comes is a deny naming the lead; a malformed one is a deny that says so', async ({
      onTestFinished,
    }) => {
      const { c, cwd } = await lead(onTestFinished, { AGENT_PERMISSION_TIMEOUT_MS: '1500' });
      const resultFor = results(c);
      const asked: any[] = [];
      c.on('permission:request', (from: string, msg: any) => {
        asked.push(msg);
        // The second question gets an answer with a subtype the reference does not know.
        if (asked.length === 2)
          void c.send(
            from,
            JSON.stringify({ type: 'permission_response', request_id: msg.request_id, subtype: 'maybe' }),
          );
      });
      await c.spawnAgent({ name: 'q' });
      const late = join(cwd, 'late.txt');
      await c.send('q', `WRITE ${late} x`);
      expect(await resultFor(late)).toContain(
        'The team lead "controller" did not answer the permission request for Write within 2 s',
      );
      const odd = join(cwd, 'odd.txt');
      await c.send('q', `WRITE ${odd} y`);
      expect(await resultFor(odd)).toMatch(
        /The team lead "controller"'s answer to the permission request for Write is malformed \(subtype: /,
      );
      expect(existsSync(late) || existsSync(odd)).toBe(false);
    });
  },
);

// Our own lead, under the official SDK as host (canUseTool), with teammate mode tmux: its teammate
// is an `agent` process in a pane of a private tmux server, and the teammate's questions reach the
// host as can_use_tool naming the teammate (agentID).
(hasTmux ? describe.concurrent : describe.skip)(
  'a pane teammate asks our lead, whose SDK host answers (canUseTool)',
  () => {
    it('the Write of a pane teammate is allowed once and denied once by the host, which is told whose call it is', async () => {
      const sdkApi = await startFakeApi(paneScript);
      const socket = `agent-e2e-perm-${process.pid}`;
      try {
        const tmux = privateTmux(socket);
        tmux('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '50', 'sleep', '600');
        tmux('set-option', '-g', 'remain-on-exit', 'off');
        const [socketPath, serverPid, paneId] = tmux('display-message', '-p', '#{socket_path} #{pid} #{pane_id}')
          .trim()
          .split(' ');
        await hostAnswersTeammate(sdkApi, 'tmux', {
          // Inside the private tmux server: its socket and the pane to split.
          TMUX: `${socketPath},${serverPid},0`,
          TMUX_PANE: paneId,
        });
        // No teammate pane is left in the server.
        expect(tmux('list-panes', '-a', '-F', '#{pane_id}').trim().split('\n')).toEqual([paneId]);
      } finally {
        spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
        await sdkApi.close();
      }
    }, 90_000);
  },
);

/**
 * Our lead under the official SDK (canUseTool) forms a team whose process teammate (teammate mode
 * `mode`) writes two files: the host allows the first with a changed input, denies the second.
 */
async function hostAnswersTeammate(sdkApi: FakeApi, mode: 'tmux' | 'detached', env: Record<string, string>) {
  const cwd = tempDir('agent-perm-sdk-cwd-');
  const asked: Array<{ tool: string; input: any; agentID?: string }> = [];
  const base = sdkOptions(sdkApi.url, cwd);
  // A streaming prompt: the host can answer until the lead has the teammate's report.
  const input = promptStream();
  input.push(`form a team and write in ${cwd}`);
  const q = query({
    prompt: input,
    options: {
      ...base,
      env: {
        ...base.env,
        CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
        ...env,
      },
      extraArgs: { 'teammate-mode': mode },
      canUseTool: async (tool: string, input: Record<string, unknown>, opts: { agentID?: string }) => {
        asked.push({ tool, input, agentID: opts.agentID });
        if (tool !== 'Write') return { behavior: 'allow', updatedInput: input };
        // The host's allow may change the input: the teammate writes what the host gave.
        return String(input.file_path).endsWith('one.txt')
          ? { behavior: 'allow', updatedInput: { ...input, content: 'FIRST' } }
          : { behavior: 'deny', message: 'not two' };
      },
    } as never,
  });
  const messages: SDKMessage[] = [];
  for await (const m of q) {
    messages.push(m);
    if (m.type === 'result' && m.subtype === 'success' && m.result === 'lead got the results') input.end();
  }

  const writes = asked.filter((a) => a.tool === 'Write');
  const story = sdkApi.requests
    .map((r) => `${/You are "worker"/.test(systemText(r)) ? 'worker' : 'lead'}: ${lastUserText(r).slice(0, 300)}`)
    .join('\n');
  expect(writes, `${JSON.stringify(asked)}\n${story}`).toEqual([
    { tool: 'Write', input: { file_path: join(cwd, 'one.txt'), content: 'first' }, agentID: 'worker@alpha' },
    { tool: 'Write', input: { file_path: join(cwd, 'two.txt'), content: 'second' }, agentID: 'worker@alpha' },
  ]);
  expect(readFileSync(join(cwd, 'one.txt'), 'utf8')).toBe('FIRST');
  expect(existsSync(join(cwd, 'two.txt'))).toBe(false);
  // The teammate's model read the lead's verdicts; the lead heard its report.
  const report = sdkApi.requests.find(
    (r) => !/You are "worker"/.test(systemText(r)) && lastUserText(r).includes('RESULTS'),
  );
  expect(report && lastUserText(report)).toContain('The team lead "team-lead" denied permission to use Write: not two');
  // The team was shut down and deleted as usual.
  const texts = messages.map((m) => (m.type === 'result' && m.subtype === 'success' ? m.result : ''));
  expect(texts).toContain('team closed');
}

describe.concurrent('a detached teammate asks our lead, whose SDK host answers (canUseTool)', () => {
  it('the Write of a detached teammate is allowed once and denied once by the host, which is told whose call it is', async () => {
    const sdkApi = await startFakeApi(paneScript);
    try {
      await hostAnswersTeammate(sdkApi, 'detached', { TMUX: '' });
    } finally {
      await sdkApi.close();
    }
  }, 90_000);
});

/** The lead forms a team; its pane teammate writes two files and reports what each call said. */
function paneScript(req: RecordedRequest) {
  const said = lastUserText(req);
  const messages: any[] = req.body.messages;
  const prev = messages[messages.length - 2];
  const results = lastToolResults(req);
  const called =
    results.length && prev?.role === 'assistant' ? prev.content.find((b: any) => b.type === 'tool_use') : undefined;
  if (/You are "worker"/.test(systemText(req))) {
    const dir = /write in (\S+)/.exec(firstUserText(req))?.[1];
    if (called?.name === 'Write' && String(called.input.file_path).endsWith('one.txt'))
      return toolUse('Write', { file_path: join(dir!, 'two.txt'), content: 'second' });
    if (called?.name === 'Write') {
      const all = messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: any) => b.type === 'tool_result')
        .map((b: any) => resultText(b.content));
      return toolUse('SendMessage', { to: 'team-lead', message: `RESULTS ${all.join(' | ')}`, summary: 'results' });
    }
    if (called) return text('worker rests');
    const request = /"type":"shutdown_request","requestId":"([^"]+)"/.exec(said);
    if (request)
      return toolUse('SendMessage', { message: { type: 'shutdown_response', request_id: request[1], approve: true } });
    if (dir && said.includes('write in'))
      return toolUse('Write', { file_path: join(dir, 'one.txt'), content: 'first' });
    return text('worker read it');
  }
  if (called?.name === 'Task') return text('dispatched');
  if (called?.name === 'SendMessage') return text('asked it to stop');
  if (called?.name === 'TeamDelete') return text('team closed');
  if (called) return text(`unexpected ${called.name}`);
  if (said.includes('shutdown_approved')) return toolUse('TeamDelete', {});
  if (said.includes('You MUST shut down your team'))
    return toolUse('SendMessage', { type: 'shutdown_request', recipient: 'worker', content: 'all done' });
  if (said.includes('RESULTS')) return text('lead got the results');
  const dir = /write in (\S+)/.exec(said)?.[1];
  if (dir)
    return toolUse('Task', {
      name: 'worker',
      team_name: 'alpha',
      description: 'Write',
      prompt: `write in ${dir}`,
      subagent_type: 'general-purpose',
    });
  return text('noted');
}
