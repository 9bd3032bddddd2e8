// Prompts a session schedules for itself, through bin/agent: a cron job (CronCreate) fires its
// prompt into the session as a user turn once the session is idle; /loop with ScheduleWakeup lets
// the model pace iterations (the wakeup fires "/loop …" again, which re-enters the command); a
// pending job never holds the process: -p exits after its result, stream-json at stdin EOF.
// The official SDK as host too: a cron job fires as a turn of its own while the host keeps the input
// open, and nothing fires after the host ends it.
// Cron counts in minutes and a wakeup waits at least 60 s: the agent's clock is moved and sped up
// (agentClock.ts, libfaketime) so a minute comes within seconds, and the three firing tests run side
// by side.
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
// The tests run concurrently, so the harness's startFakeApi (closed when "the" running test ends,
// which vitest cannot tell apart here) is not used: each test closes its own API.
import {
  lastUserText,
  startFakeApi,
  text,
  toolUse,
  type RecordedRequest,
  type ScriptedReply,
} from '../fake-api/server.js';
import { fastClock, minuteComingClock } from './agentClock.js';
import { resultsById, runAgent, startAgent, STREAM_ARGS, tempDir, userLine } from './harness.js';
import { collectUntilResults, promptStream, sdkOptions } from './sdkHost.js';

const ARGS = [...STREAM_ARGS, '--model', 'claude-sonnet-4-5'];

const lastMessage = (req: RecordedRequest) => req.body.messages[req.body.messages.length - 1];
const toolResultFor = (req: RecordedRequest, id: string) => resultsById(req)[id];
/** A request whose newest message is a prompt (not tool results). */
const promptTurn = (req: RecordedRequest) => {
  const last = lastMessage(req);
  return last.role === 'user' && !JSON.stringify(last.content).includes('"tool_result"');
};

describe.concurrent('scheduled prompts', () => {
  it('a cron job fires its prompt as a user turn when it matches, with its own result; CronDelete stops it', async () => {
    let firedAt = 0;
    const api = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (toolResultFor(req, 'toolu_create')) return text('scheduled it');
      if (toolResultFor(req, 'toolu_delete')) return text('cancelled');
      if (toolResultFor(req, 'toolu_list')) {
        const id = /^([0-9a-f]{8}) — /.exec(toolResultFor(req, 'toolu_list').text)![1];
        return toolUse('CronDelete', { id }, 'toolu_delete');
      }
      if (said.includes('TICK from cron')) {
        firedAt ||= Date.now();
        return toolUse('CronList', {}, 'toolu_list');
      }
      if (promptTurn(req) && said.includes('schedule a tick'))
        return toolUse('CronCreate', { cron: '* * * * *', prompt: 'TICK from cron' }, 'toolu_create');
      return text('?');
    });
    const clock = minuteComingClock(60_000, 20);
    const agent = startAgent({ api, args: ARGS, env: clock.env });
    try {
      agent.sendRaw(userLine('schedule a tick every minute'));
      const first = await agent.waitFor((m) => m.type === 'result', 20_000);
      expect(first.result).toBe('scheduled it');
      const created = agent.json().find((m) => m.type === 'user' && m.tool_use_result?.humanSchedule);
      expect(created?.tool_use_result).toMatchObject({
        humanSchedule: 'Every minute',
        recurring: true,
        durable: false,
      });
      const fireAt = created!.tool_use_result.nextFireAt as number;
      // The tick comes as its own turn, at (not before) the minute of the agent's clock, with a result
      // of its own.
      const second = await agent.waitFor((m) => m.type === 'result' && m.result === 'cancelled', 75_000);
      expect(second.is_error).toBe(false);
      const fired = api.requests.find((r) => lastUserText(r).includes('TICK from cron'))!;
      expect(fired).toBeDefined();
      expect(promptTurn(fired)).toBe(true);
      expect(agent.json().filter((m) => m.type === 'result')).toHaveLength(2);
      // On the test's clock (the agent's runs faster): not before the minute, and within 2 s of it.
      expect(firedAt).toBeGreaterThanOrEqual(clock.realTimeOf(fireAt));
      expect(firedAt - clock.realTimeOf(fireAt)).toBeLessThan(2_000);
      // Deleted: nothing more fires, and stdin EOF ends the session at once.
      const requestsBefore = api.requests.length;
      agent.endInput();
      const exit = await agent.exited;
      expect(exit.code).toBe(0);
      expect(api.requests.length).toBe(requestsBefore);
    } finally {
      agent.child.kill('SIGKILL');
      await api.close();
    }
  }, 120_000);

  it('/loop without an interval: the model paces itself with ScheduleWakeup, the wakeup re-enters /loop, and stop: true ends the loop', async () => {
    let iterations = 0;
    const api = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (toolResultFor(req, 'toolu_wake')) return text('iteration done, next in a minute');
      if (toolResultFor(req, 'toolu_stop')) return text('loop finished');
      if (promptTurn(req) && said.includes('Input: check the build')) {
        iterations++;
        if (iterations === 1)
          return toolUse(
            'ScheduleWakeup',
            { delaySeconds: 1, reason: 'the build takes about a minute', prompt: '/loop check the build', noop: false },
            'toolu_wake',
          );
        return toolUse('ScheduleWakeup', { stop: true }, 'toolu_stop');
      }
      return text('?');
    });
    // The wakeup waits the 60 s it was clamped to on the agent's clock, which runs 20 times as fast.
    const clock = fastClock(20);
    const agent = startAgent({ api, args: ARGS, env: clock.env });
    try {
      const started = Date.now();
      agent.sendRaw(userLine('/loop check the build'));
      const first = await agent.waitFor((m) => m.type === 'result', 20_000);
      expect(first.result).toBe('iteration done, next in a minute');
      const wake = agent.json().find((m) => m.type === 'user' && m.tool_use_result?.clampedDelaySeconds);
      expect(wake?.tool_use_result).toMatchObject({ clampedDelaySeconds: 60, wasClamped: true });
      const last = await agent.waitFor((m) => m.type === 'result' && m.result === 'loop finished', 90_000);
      expect(last.is_error).toBe(false);
      expect((Date.now() - started) * clock.rate).toBeGreaterThanOrEqual(59_000);
      expect(iterations).toBe(2);
      // The /loop instructions reached the model both times, with the user's input at the end.
      const loopTurns = api.requests.filter((r) => promptTurn(r) && lastUserText(r).includes('Input: check the build'));
      expect(loopTurns).toHaveLength(2);
      expect(lastUserText(loopTurns[0])).toContain('ScheduleWakeup');
      const stop = agent.json().find((m) => m.type === 'user' && m.tool_use_result?.stopped);
      expect(stop?.tool_use_result).toMatchObject({ stopped: true, cancelledWakeups: 0 });
      agent.endInput();
      expect((await agent.exited).code).toBe(0);
    } finally {
      agent.child.kill('SIGKILL');
      await api.close();
    }
  }, 120_000);

  it('the official SDK as host: a CronCreate job fires into the session as a turn with its own result; ending the input ends it', async () => {
    const api = await startFakeApi((req): ScriptedReply => {
      const said = lastUserText(req);
      if (resultsById(req).cron) return text('scheduled');
      if (resultsById(req).del) return text('tick handled, job deleted');
      if (resultsById(req).list) {
        const id = /^([0-9a-f]{8}) — /.exec(resultsById(req).list.text)![1];
        return toolUse('CronDelete', { id }, 'del');
      }
      if (said.includes('SDK TICK')) return toolUse('CronList', {}, 'list');
      return toolUse('CronCreate', { cron: '* * * * *', prompt: 'SDK TICK' }, 'cron');
    });
    try {
      const prompts = promptStream();
      const options = sdkOptions(api.url, tempDir());
      const q = query({
        prompt: prompts as never,
        options: { ...options, env: { ...options.env, ...minuteComingClock(60_000, 20).env } } as never,
      });
      prompts.push('check something every minute');
      const messages = await collectUntilResults(q, prompts, 2);
      const all = messages.filter((m) => m.type === 'result') as Array<SDKMessage & { result?: string }>;
      expect(all.map((r) => r.result)).toEqual(['scheduled', 'tick handled, job deleted']);
      const created = messages.find(
        (m) =>
          m.type === 'user' && (m as { tool_use_result?: { humanSchedule?: string } }).tool_use_result?.humanSchedule,
      ) as { tool_use_result: Record<string, unknown> } | undefined;
      expect(created?.tool_use_result).toMatchObject({ humanSchedule: 'Every minute', recurring: true });
      const fired = api.requests.filter((r) => r.body?.tools && lastUserText(r) === 'SDK TICK');
      expect(fired.length).toBeGreaterThanOrEqual(1);
    } finally {
      await api.close();
    }
  }, 120_000);

  it('-p: a pending cron job does not hold the process; it exits after its result, as the reference does', async () => {
    const api = await startFakeApi(
      (req): ScriptedReply =>
        toolResultFor(req, 'toolu_c')
          ? text('scheduled')
          : toolUse('CronCreate', { cron: '* * * * *', prompt: 'never fires here' }, 'toolu_c'),
    );
    try {
      const started = Date.now();
      // The agent's clock starts just after a minute: the job is pending for the whole run (on the
      // real clock, a run that spans a minute saw the job fire before the exit).
      const r = await runAgent({
        api,
        args: ['-p', 'schedule', '--model', 'claude-sonnet-4-5'],
        env: minuteComingClock(58_000).env,
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe('scheduled');
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(api.requests.some((q) => lastUserText(q).includes('never fires here'))).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('/loop with nothing to loop answers with its usage, without a model call', async () => {
    const api = await startFakeApi(() => text('should not be called'));
    const agent = startAgent({ api, args: ARGS });
    try {
      agent.sendRaw(userLine('/loop 5m'));
      const r = await agent.waitFor((m) => m.type === 'result', 20_000);
      expect(r.is_error).toBe(true);
      expect(r.result).toContain('Usage: /loop [interval] <prompt>');
      agent.endInput();
      await agent.exited;
      expect(api.requests.filter((q) => q.body?.tools)).toHaveLength(0);
    } finally {
      agent.child.kill('SIGKILL');
      await api.close();
    }
  });
});
