// The session's temp folder ($TMPDIR/agent-runtime-<session id>) goes with the agent process: a
// large Bash output and a background task's output file are written there while the session runs,
// and the folder is gone after a normal exit and after SIGTERM.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fake-api/server.js';
import { calls, runAgent, STREAM_ARGS, startAgent, startFakeApi, tempDir, userLine, type FakeApi } from './harness.js';

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const leftovers = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith('agent-runtime-'));

describe("the session's temp folder", () => {
  it('holds the large outputs and task files while the session runs, and is removed at exit', async () => {
    const tmp = tempDir('agent-tmp-');
    api = await startFakeApi([
      calls([
        ['Bash', { command: 'seq 1 40000' }],
        ['Bash', { command: 'echo from the background', run_in_background: true }],
      ]),
      // The next turn runs once both results are in: the spill file and the task file exist now.
      calls([['Bash', { command: `ls ${tmp}/agent-runtime-*/ ${tmp}/agent-runtime-*/tasks/` }]], 'u'),
      text('done'),
      // The background task's notification is a turn of its own.
      text('noted'),
    ]);
    const r = await runAgent({
      api,
      args: [...STREAM_ARGS, '--allowedTools', 'Bash'],
      input: userLine('go'),
      env: { TMPDIR: tmp },
    });
    expect(r.code, r.stderr + r.stdout.slice(-3000)).toBe(0);
    const spill = r.json().find((m) => m.type === 'user' && m.tool_use_result?.persistedOutputPath)
      ?.tool_use_result.persistedOutputPath;
    expect(spill).toMatch(new RegExp(`^${tmp}/agent-runtime-[0-9a-f-]+/bash-`));
    const listing = JSON.stringify(api.requests[2].body.messages.at(-1).content);
    expect(listing).toContain('bash-t1.txt');
    expect(listing).toMatch(/\.output/);
    expect(existsSync(spill)).toBe(false);
    expect(leftovers(tmp)).toEqual([]);
  });

  it('is removed after SIGTERM too', async () => {
    const tmp = tempDir('agent-tmp-');
    api = await startFakeApi([
      calls([['Bash', { command: 'seq 1 40000' }]]),
      calls([['Bash', { command: 'sleep 30' }]], 'u'),
      text('never'),
    ]);
    const p = startAgent({ api, args: [...STREAM_ARGS, '--allowedTools', 'Bash'], env: { TMPDIR: tmp } });
    p.send({ type: 'user', message: { role: 'user', content: 'go' }, parent_tool_use_id: null });
    await p.waitFor((m) => m.type === 'assistant' && m.message.content.some((b: any) => b.id === 'u1'));
    expect(leftovers(tmp)).toHaveLength(1);
    expect(readdirSync(join(tmp, leftovers(tmp)[0]))).toContain('bash-t1.txt');
    p.child.kill('SIGTERM');
    const { code } = await p.exited;
    expect(code).toBe(143);
    expect(leftovers(tmp)).toEqual([]);
  });
});
