// Worktrees end to end, in a real git repository in a temp dir: EnterWorktree moves the session
// (Bash, relative paths, path rules) into .claude/worktrees/<name> on a new branch; ExitWorktree
// refuses to throw changes away unless told, keeps or removes; Agent's isolation: "worktree"
// runs a subagent in a worktree of its own, removed when it changed nothing, kept and reported
// when it did; outside a repository every one of them is a clear tool error.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstUserText, lastToolResults, lastUserText, text, toolUse } from '../fake-api/server.js';
import {
  deferredReminder,
  resultText,
  runAgent,
  startFakeApi,
  STREAM_ARGS,
  tempDir,
  userLine,
  type FakeApi,
} from './harness.js';

const SUBAGENT_REMINDER = deferredReminder(['NotebookEdit', 'TaskStop', 'WebFetch', 'WebSearch', 'SendMessage']);

let api: FakeApi | undefined;

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
}

/** A repository with one commit (README.md). */
function repo(): string {
  const dir = realpathSync(tempDir('agent-wt-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'first');
  return dir;
}

const results = (r: { json: () => Array<Record<string, any>> }) =>
  r.json().filter((m) => m.type === 'user' && m.tool_use_result !== undefined);
const toolResult = (i: number) => lastToolResults(api!.requests[i])[0];

describe('EnterWorktree / ExitWorktree', () => {
  it('moves Bash and path rules into a new worktree on its own branch; remove is refused while it has changes; keep leaves it on disk', async () => {
    const dir = repo();
    const wt = join(dir, '.claude', 'worktrees', 'feat');
    api = await startFakeApi([
      toolUse('EnterWorktree', { name: 'feat' }, 'e1'),
      toolUse('Bash', { command: 'pwd && echo hi > new.txt' }, 'b1'),
      toolUse('Write', { file_path: join(wt, 'conf', 'secret.txt'), content: 'x' }, 'w1'),
      toolUse('ExitWorktree', { action: 'remove' }, 'x1'),
      toolUse('ExitWorktree', { action: 'keep' }, 'x2'),
      toolUse('Bash', { command: 'pwd' }, 'b2'),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd: dir,
      env: GIT_ENV,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions', '--disallowedTools', 'Edit(./conf/secret.txt)'],
      input: userLine('work in a worktree'),
    });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(7);

    const entered = results(r)[0].tool_use_result;
    expect(entered).toMatchObject({ worktreePath: wt, worktreeBranch: 'worktree-feat' });
    expect(resultText(toolResult(1).content)).toContain(`Created a worktree at ${wt} on branch worktree-feat`);
    // Bash ran in the worktree; the file is there, not in the main checkout.
    expect(resultText(toolResult(2).content).trim()).toBe(wt);
    expect(existsSync(join(wt, 'new.txt'))).toBe(true);
    expect(existsSync(join(dir, 'new.txt'))).toBe(false);
    // Edit(./conf/secret.txt), written for the main checkout, holds in the worktree too.
    expect(toolResult(3).is_error).toBe(true);
    expect(resultText(toolResult(3).content)).toContain('denied by the rule Edit(./conf/secret.txt)');
    expect(existsSync(join(wt, 'conf', 'secret.txt'))).toBe(false);
    // remove with an uncommitted file: refused, naming it.
    const refused = toolResult(4);
    expect(refused.is_error).toBe(true);
    expect(resultText(refused.content)).toContain('1 uncommitted file (new.txt)');
    expect(resultText(refused.content)).toContain('discard_changes: true');
    // keep: back in the main checkout, the worktree and branch left.
    expect(resultText(toolResult(5).content)).toContain(`it is kept at ${wt} on branch worktree-feat`);
    expect(results(r).find((m) => m.tool_use_result?.action === 'keep')?.tool_use_result).toMatchObject({
      originalCwd: dir,
      worktreePath: wt,
      worktreeBranch: 'worktree-feat',
    });
    expect(resultText(toolResult(6).content).trim()).toBe(dir);
    expect(existsSync(join(wt, 'new.txt'))).toBe(true);
    expect(git(dir, 'branch', '--list', 'worktree-feat')).toContain('worktree-feat');
    // The main checkout's status does not list the worktrees folder.
    expect(git(dir, 'status', '--porcelain')).toBe('');
  }, 30_000);

  it('remove deletes an unchanged worktree and its branch; discard_changes removes one with a commit; a second enter while inside is refused', async () => {
    const dir = repo();
    api = await startFakeApi([
      toolUse('EnterWorktree', {}, 'e1'),
      toolUse('EnterWorktree', { name: 'again' }, 'e2'),
      toolUse('ExitWorktree', { action: 'remove' }, 'x1'),
      toolUse('EnterWorktree', { name: 'c' }, 'e3'),
      toolUse('Bash', { command: 'echo y > y.txt && git add y.txt && git commit -qm y' }, 'b1'),
      toolUse('ExitWorktree', { action: 'remove', discard_changes: true }, 'x2'),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd: dir,
      env: GIT_ENV,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    const first = results(r)[0].tool_use_result;
    expect(first.worktreePath).toMatch(/\/\.claude\/worktrees\/wt-[0-9a-f]{8}$/);
    expect(toolResult(2).is_error).toBe(true);
    expect(resultText(toolResult(2).content)).toContain('A worktree is already active');
    expect(resultText(toolResult(3).content)).toContain(
      `Removed the worktree at ${first.worktreePath} and its branch ${first.worktreeBranch}`,
    );
    expect(existsSync(first.worktreePath)).toBe(false);
    expect(resultText(toolResult(6).content)).toContain('1 commit not on the base discarded');
    expect(results(r).at(-1)?.tool_use_result).toMatchObject({
      action: 'remove',
      discardedFiles: 0,
      discardedCommits: 1,
    });
    expect(git(dir, 'branch', '--list', 'worktree-*')).toBe('');
    expect(readdirSync(join(dir, '.claude', 'worktrees'))).toEqual([]);
  }, 30_000);

  it('outside a git repository: EnterWorktree, ExitWorktree and isolation are clear tool errors, and no subagent runs', async () => {
    const dir = tempDir('agent-nogit-');
    api = await startFakeApi([
      toolUse('EnterWorktree', { name: 'x' }, 'e1'),
      toolUse('ExitWorktree', { action: 'keep' }, 'x1'),
      toolUse('Agent', { description: 'iso', prompt: 'do it', isolation: 'worktree' }, 'a1'),
      toolUse('Agent', { description: 'iso', prompt: 'do it', isolation: 'remote' }, 'a2'),
      toolUse('EnterWorktree', { name: '../escape' }, 'e2'),
      text('ok'),
    ]);
    const r = await runAgent({
      api,
      cwd: dir,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(6); // no subagent request in between
    expect(toolResult(1).is_error).toBe(true);
    expect(resultText(toolResult(1).content)).toContain('is not inside a git repository');
    expect(resultText(toolResult(2).content)).toContain('No worktree is active');
    expect(resultText(toolResult(3).content)).toContain('isolation: "worktree":');
    expect(resultText(toolResult(3).content)).toContain('is not inside a git repository');
    expect(resultText(toolResult(4).content)).toContain('isolation: "remote" is not supported');
    expect(resultText(toolResult(5).content)).toContain('is not a valid worktree name');
  }, 30_000);
});

describe('Agent isolation: "worktree"', () => {
  it('the subagent works in its own worktree: kept and reported when it changed something, removed when it did not', async () => {
    const dir = repo();
    api = await startFakeApi([
      toolUse('Agent', { description: 'edit', prompt: 'change things', isolation: 'worktree' }, 'a1'),
      toolUse('Bash', { command: 'pwd && echo sub > sub.txt' }, 'sb1'),
      text('I changed sub.txt'),
      toolUse('Agent', { description: 'look', prompt: 'only look', isolation: 'worktree' }, 'a2'),
      toolUse('Bash', { command: 'pwd' }, 'sb2'),
      text('nothing to change'),
      text('done'),
    ]);
    const r = await runAgent({
      api,
      cwd: dir,
      env: GIT_ENV,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    expect(api.requests).toHaveLength(7);
    // The session's directory is not the subagent's to move: no worktree tools on offer.
    const subTools = (api.requests[1].body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(subTools).toContain('Bash');
    expect(subTools).not.toContain('EnterWorktree');
    expect(subTools).not.toContain('ExitWorktree');
    // The subagent's Bash ran in a worktree under .claude/worktrees.
    const subPwd = resultText(lastToolResults(api.requests[2])[0].content).trim();
    expect(subPwd).toMatch(new RegExp(`^${dir}/\\.claude/worktrees/agent-[0-9a-f]{8}$`));
    expect(existsSync(join(dir, 'sub.txt'))).toBe(false);
    expect(existsSync(join(subPwd, 'sub.txt'))).toBe(true);
    // Its result names the kept worktree (content and tool_use_result).
    const kept = resultText(lastToolResults(api.requests[3])[0].content);
    expect(kept).toContain('I changed sub.txt');
    expect(kept).toContain(`are kept in the worktree ${subPwd} on branch worktree-agent-`);
    const agentResults = results(r).filter((m) => m.tool_use_result?.agentType);
    expect(agentResults[0].tool_use_result).toMatchObject({
      status: 'completed',
      worktreePath: subPwd,
      worktreeBranch: expect.stringMatching(/^worktree-agent-/),
    });
    // The second changed nothing: its worktree and branch are gone, and nothing is reported.
    const secondPwd = resultText(lastToolResults(api.requests[5])[0].content).trim();
    expect(secondPwd).not.toBe(subPwd);
    expect(existsSync(secondPwd)).toBe(false);
    expect(agentResults[1].tool_use_result.worktreePath).toBeUndefined();
    expect(resultText(lastToolResults(api.requests[6])[0].content)).toBe('nothing to change');
    expect(git(dir, 'branch', '--list', 'worktree-agent-*').trim().split('\n')).toHaveLength(1);
  }, 30_000);

  it('a background agent in a worktree: its notification says where its changes are kept', async () => {
    const dir = repo();
    api = await startFakeApi((req) => {
      // The subagent's requests: its prompt, with the deferred-tools reminder of its first request
      // (a subagent has no worktree, schedule or Monitor tools, so its list is shorter).
      const sub = firstUserText(req) === `bg work\n${SUBAGENT_REMINDER}`;
      const t = (req.body.messages ?? []).filter((m: any) => m.role === 'assistant').length;
      if (sub) return t === 0 ? toolUse('Bash', { command: 'echo bg > bg.txt' }) : text('bg done');
      if (t === 0)
        return toolUse(
          'Agent',
          { description: 'bg', prompt: 'bg work', isolation: 'worktree', run_in_background: true },
          'abg',
        );
      return text(lastUserText(req).includes('<task-notification>') ? 'noted' : 'waiting');
    });
    const r = await runAgent({
      api,
      cwd: dir,
      env: GIT_ENV,
      args: [...STREAM_ARGS, '--dangerously-skip-permissions'],
      input: userLine('go'),
    });
    expect(r.code).toBe(0);
    const notified = api.requests.map(lastUserText).find((t) => t.includes('<task-notification>'));
    expect(notified).toMatch(
      /are kept in the worktree .*\/\.claude\/worktrees\/agent-[0-9a-f]{8} on branch worktree-agent-/,
    );
    const kept = readdirSync(join(dir, '.claude', 'worktrees'));
    expect(kept).toHaveLength(1);
    expect(existsSync(join(dir, '.claude', 'worktrees', kept[0], 'bg.txt'))).toBe(true);
    expect(existsSync(join(dir, 'bg.txt'))).toBe(false);
  }, 30_000);
});
