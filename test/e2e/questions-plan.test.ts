// AskUserQuestion and plan mode end to end: the official SDK answers through canUseTool, a run
// with no one to ask fails clearly, and the plan-mode reminder (with the host's
// planModeInstructions) reaches the model.
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lastUserText, text } from '../fake-api/server.js';
import { calls, sentFromInit, resultsById, runAgent, startFakeApi, tempDir, type FakeApi, once } from './harness.js';
import { runQuery as run, sdkOptions } from './sdkHost.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const QUESTIONS = {
  questions: [
    {
      question: 'Which database?',
      header: 'DB',
      options: [
        { label: 'Postgres', description: 'relational' },
        { label: 'Redis', description: 'key-value' },
      ],
      multiSelect: false,
    },
  ],
};

/**
 * One -p run for two tests, made by whichever asks first: its one reply asks an invalid question
 * (one option, t1) and a valid one (t2), with no one to answer either.
 */
const askInPrint = once(runAskInPrint);

async function runAskInPrint() {
  const bad = {
    questions: [{ question: 'Q?', header: 'H', options: [{ label: 'only', description: 'd' }], multiSelect: false }],
  };
  const own = await startFakeApi([
    calls([
      ['AskUserQuestion', bad],
      ['AskUserQuestion', QUESTIONS],
    ]),
    text('chose Postgres myself'),
  ]);
  try {
    const r = await runAgent({ cwd: tempDir(), args: ['-p', 'pick', '--output-format', 'json'], api: own });
    expect(own.requests, `the shared run's requests; stderr: ${r.stderr}`).toHaveLength(2);
    return { r, requests: own.requests };
  } finally {
    await own.close();
  }
}

describe('AskUserQuestion', () => {
  it('the SDK host answers in updatedInput.answers; the model reads them; tool_use_result has them', async () => {
    const cwd = tempDir();
    api = await startFakeApi([calls([['AskUserQuestion', QUESTIONS]]), text('Postgres it is')]);
    const asked: Array<{ toolName: string; input: Record<string, unknown> }> = [];
    const canUseTool: CanUseTool = async (toolName, input) => {
      asked.push({ toolName, input });
      return { behavior: 'allow', updatedInput: { ...input, answers: { 'Which database?': 'Postgres' } } };
    };
    // bypassPermissions does not skip the question: the answer is the point.
    const r = await run(
      ['pick a db'],
      sdkOptions(api.url, cwd, {
        canUseTool,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
      }),
    );
    expect(r.error).toBeUndefined();
    expect(asked.map((a) => a.toolName)).toEqual(['AskUserQuestion']);
    expect(resultsById(api.requests[1]).t1).toEqual({
      text: 'User has answered your questions: "Which database?"="Postgres". You can now continue with the user\'s answers in mind.',
      isError: false,
    });
    const user = r.messages.find((m) => m.type === 'user' && (m as any).tool_use_result) as any;
    expect(user.tool_use_result).toMatchObject({
      answers: { 'Which database?': 'Postgres' },
      questions: QUESTIONS.questions,
    });
    expect(r.results[0]).toMatchObject({ subtype: 'success', result: 'Postgres it is' });
    const init = r.messages.find((m) => m.type === 'system' && (m as any).subtype === 'init') as any;
    expect(init.tools).toEqual(
      expect.arrayContaining(['AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'NotebookEdit']),
    );
    const offered = api.requests[0].body.tools.map((t: any) => t.name);
    expect(offered).toEqual(sentFromInit(init.tools));
  });

  it('toolConfig previewFormat html reaches the tool schema the model sees', async () => {
    const cwd = tempDir();
    api = await startFakeApi([text('ok')]);
    await run(['hi'], sdkOptions(api.url, cwd, { toolConfig: { askUserQuestion: { previewFormat: 'html' } } }));
    const tool = api.requests[0].body.tools.find((t: any) => t.name === 'AskUserQuestion');
    expect(JSON.stringify(tool)).toContain('self-contained HTML fragment');
  });

  it('with no one to ask (-p, no permission prompt tool) the call fails clearly and the run goes on', async () => {
    const { r, requests } = await askInPrint();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'chose Postgres myself' });
    const res = resultsById(requests[1]!).t2;
    expect(res.isError).toBe(true);
    expect(res.text).toContain(
      'AskUserQuestion needs a person to answer, and no one can be asked in this non-interactive run',
    );
  });

  it('an invalid question (one option) is an input error naming the parameter', async () => {
    const { requests } = await askInPrint();
    const res = resultsById(requests[1]!).t1;
    expect(res.isError).toBe(true);
    expect(res.text).toContain('questions.0.options');
  });
});

describe('plan mode', () => {
  it('--permission-mode plan: an edit is put to canUseTool (decisionReasonType mode) and refused there, the reminder carries planModeInstructions, ExitPlanMode approved with setMode acceptEdits, then the edit runs', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'out.txt');
    api = await startFakeApi([
      calls([['Write', { file_path: file, content: 'early' }]], 'a'),
      calls([['ExitPlanMode', { plan: '1. write out.txt' }]], 'b'),
      calls([['Write', { file_path: file, content: 'done' }]], 'c'),
      text('finished'),
    ]);
    const asked: string[] = [];
    const canUseTool: CanUseTool = async (toolName, input, options) => {
      asked.push(toolName);
      if (toolName === 'Write') {
        expect((options as { decisionReasonType?: string }).decisionReasonType).toBe('mode');
        return { behavior: 'deny', message: 'Still in plan mode: not yet.' };
      }
      if (toolName === 'ExitPlanMode') {
        expect(input.plan).toBe('1. write out.txt');
        return {
          behavior: 'allow',
          updatedInput: input,
          updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
        };
      }
      return { behavior: 'deny', message: `unexpected ${toolName}` };
    };
    const r = await run(
      ['plan it'],
      sdkOptions(api.url, cwd, { canUseTool, permissionMode: 'plan', planModeInstructions: 'Plan in haiku form.' }),
    );
    expect(r.error).toBeUndefined();
    const first = JSON.stringify(api.requests[0].body.messages);
    expect(first).toContain('Plan mode is active');
    expect(first).toContain('Plan in haiku form.');
    expect(resultsById(api.requests[1]).a1.text).toContain('plan mode');
    expect(resultsById(api.requests[2]).b1.text).toContain('User has approved your plan');
    expect(resultsById(api.requests[2]).b1.text).toContain('permission mode now: acceptEdits');
    expect(resultsById(api.requests[3]).c1.isError).toBe(false);
    expect(resultsById(api.requests[1]).a1.text).toBe('Still in plan mode: not yet.');
    expect(asked).toEqual(['Write', 'ExitPlanMode']); // the Write after approval ran under acceptEdits, unasked
    expect(existsSync(file)).toBe(true);
    expect(r.results[0]).toMatchObject({ subtype: 'success' });
  });

  it('EnterPlanMode switches the session to plan mode; a refused plan keeps it there', async () => {
    const cwd = tempDir();
    api = await startFakeApi([
      calls([['EnterPlanMode', {}]], 'a'),
      calls([['Bash', { command: 'touch x' }]], 'b'),
      calls([['ExitPlanMode', { plan: 'touch x' }]], 'c'),
      text('will revise'),
      text('second prompt'),
    ]);
    const canUseTool: CanUseTool = async () => ({ behavior: 'deny', message: 'not yet: add tests' });
    const r = await run(['do it', 'again'], sdkOptions(api.url, cwd, { canUseTool, allowedTools: ['Bash'] }));
    expect(r.error).toBeUndefined();
    expect(resultsById(api.requests[1]).a1.text).toContain('Entered plan mode');
    expect(resultsById(api.requests[2]).b1.text).toContain('plan mode');
    expect(existsSync(join(cwd, 'x'))).toBe(false);
    expect(resultsById(api.requests[3]).c1).toEqual({ text: 'not yet: add tests', isError: true });
    // Still in plan mode at the next prompt: its reminder comes again.
    expect(lastUserText(api.requests[4])).toContain('Plan mode is active');
    const inits = r.messages.filter((m) => m.type === 'system' && (m as any).subtype === 'init') as any[];
    expect(inits.at(-1).permissionMode).toBe('plan');
  });
});
