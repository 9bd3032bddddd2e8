import { existsSync, readFileSync, statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BashTool, type BackgroundShellService, type BashOutput } from '../../../tools/bash.js';
import { killAllGroups } from '../../../src/util/processGroup.js';
import { makeCtx, removeDir, run, tempDir, text } from './helpers.js';
import { alive } from '../../processes.js';

async function waitGone(pids: number[], ms = 3000): Promise<number[]> {
  const until = Date.now() + ms;
  let left = pids;
  while (left.length > 0 && Date.now() < until) {
    left = left.filter(alive);
    if (left.length) await new Promise((r) => setTimeout(r, 50));
  }
  return left;
}

describe('Bash', () => {
  let dir = '';
  beforeEach(() => {
    dir = tempDir('bash-');
  });
  afterEach(() => removeDir(dir));

  it('runs in cwd and returns stdout and stderr together', async () => {
    const r = await run(BashTool, { command: 'pwd; echo out; echo err >&2' }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe(`${dir}\nout\nerr`);
    const data = r.data as BashOutput;
    expect(data.stdout).toBe(`${dir}\nout`);
    expect(data.stderr).toBe('err');
    expect(data.interrupted).toBe(false);
    expect(data.exitCode).toBe(0);
  });

  it('says so when there is no output', async () => {
    const r = await run(BashTool, { command: 'true' }, makeCtx(dir));
    expect(text(r)).toBe('(Bash completed with no output)');
  });

  it('reports a non-zero exit as an error, Exit code first', async () => {
    const r = await run(BashTool, { command: 'echo nope; exit 3' }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Exit code 3\nnope');
    expect((r.data as BashOutput).exitCode).toBe(3);
  });

  it('kills the whole process group on timeout', async () => {
    const pidFile = `${dir}/pids`;
    const started = Date.now();
    const r = await run(
      BashTool,
      // 1 s: time enough, on a loaded machine too, for both pids to be written before the kill.
      {
        command: `sleep 30 & echo $! > ${pidFile}; (sleep 31 & echo $! >> ${pidFile}; wait) & sleep 32`,
        timeout: 1000,
      },
      makeCtx(dir),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('timed out after 1000 ms');
    expect((r.data as BashOutput).interrupted).toBe(true);
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids.length).toBe(2);
    expect(await waitGone(pids)).toEqual([]);
  });

  it('kills the group on abort and says it was interrupted', async () => {
    const pidFile = `${dir}/pid`;
    const ac = new AbortController();
    const p = run(BashTool, { command: `sleep 30 & echo $! > ${pidFile}; wait` }, makeCtx(dir, { signal: ac.signal }));
    const until = Date.now() + 5000;
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
      if (Date.now() > until) throw new Error('command did not start');
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    ac.abort();
    const r = await p;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('interrupted');
    expect((r.data as BashOutput).interrupted).toBe(true);
    expect(await waitGone([pid])).toEqual([]);
  });

  it('spills a huge output to a file and shows a small preview', async () => {
    const ctx = makeCtx(dir);
    const r = await run(BashTool, { command: 'yes | head -c 5000000' }, ctx);
    expect(r.isError).toBeFalsy();
    const t = text(r);
    expect(t.length).toBeLessThan(4500);
    const data = r.data as BashOutput;
    expect(data.persistedOutputPath).toBeDefined();
    expect(t).toContain(data.persistedOutputPath!);
    expect(data.persistedOutputPath!.startsWith(ctx.scratchDir)).toBe(true);
    expect(statSync(data.persistedOutputPath!).size).toBe(5_000_000);
    expect(data.stdout.length).toBeLessThanOrEqual(30_000);
  });

  it('a large block written at once: the preview holds its start and its end', async () => {
    const r = await run(
      BashTool,
      { command: "python3 -c \"import sys; sys.stdout.write('START' + 'x' * 5000000 + 'END\\\\n')\"" },
      makeCtx(dir),
    );
    const t = text(r);
    expect(t).toMatch(/^Output too large \(5000009 characters\)\. Full output saved to: \S+/);
    expect(t).toContain('\n\nFirst 2000 characters:\nSTARTxxx');
    expect(t).toMatch(/\[… 4996009 characters omitted …\]\n\nLast 2000 characters:\nx+END$/);
    expect(t.length).toBeLessThan(4500);
  });

  it("output past the file cap: the preview and the file both keep the end (stdout's last line after 70 MB of stderr)", async () => {
    const r = await run(
      BashTool,
      { command: "head -c 70000000 /dev/zero | tr '\\0' e >&2; echo LAST-LINE" },
      makeCtx(dir),
    );
    const t = text(r);
    const data = r.data as BashOutput;
    expect(t).toMatch(
      /^Output too large \(70000010 characters\)\. Full output saved to: \S+ \(it holds the first 67043328 bytes and the last 65536; 2891146 bytes in between were dropped\)/,
    );
    expect(t).toMatch(/\n\nLast 2000 characters:\ne+LAST-LINE$/);
    const file = readFileSync(data.persistedOutputPath!, 'utf8');
    expect(file.endsWith('eeeeLAST-LINE\n')).toBe(true);
    expect(file).toContain('\n[… 2891146 bytes dropped here: the file is capped at 64 MiB …]\n');
  });

  it('says so when the working directory was deleted, instead of a bare exit code', async () => {
    const gone = tempDir('bash-gone-');
    removeDir(gone);
    const r = await run(BashTool, { command: 'echo hi' }, makeCtx(gone));
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(
      `<tool_use_error>The working directory ${gone} no longer exists (deleted or moved); the command was not run. Use absolute paths, or recreate the directory.</tool_use_error>`,
    );
  });

  it('a command that leaves processes running (setsid, &) says so, and they die when the session ends', async () => {
    const r = await run(
      BashTool,
      { command: 'setsid sleep 300 >/dev/null 2>&1 & echo $!; sleep 301 >/dev/null 2>&1 & echo $!' },
      makeCtx(dir),
    );
    expect(r.isError).toBeFalsy();
    const pids = text(r).split('\n').slice(0, 2).map(Number);
    expect(pids.every((p) => p > 0 && alive(p))).toBe(true);
    expect(text(r)).toMatch(
      new RegExp(
        `\\n\\nThe command left 2 processes running \\(pids ${pids[0]}, ${pids[1]}\\); they are killed when the session ends\\.$`,
      ),
    );
    expect((r.data as BashOutput).leftRunning).toEqual(pids);
    killAllGroups(); // what the session does at exit
    expect(await waitGone(pids)).toEqual([]);
  });

  it('keeps outputs under the limit inline', async () => {
    const r = await run(BashTool, { command: 'yes | head -c 20000' }, makeCtx(dir));
    expect(text(r).length).toBe(19_999); // 10000 "y\n" lines, the final newline trimmed
    expect((r.data as BashOutput).persistedOutputPath).toBeUndefined();
  });

  it('refuses run_in_background without the service, and uses it when present', async () => {
    const r = await run(BashTool, { command: 'sleep 1', run_in_background: true }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('run_in_background is not available in this context');

    const calls: unknown[] = [];
    const svc: BackgroundShellService = {
      async start(command, opts) {
        calls.push({ command, ...opts });
        return { taskId: 'bash_1', outputFile: '/tmp/out.txt' };
      },
    };
    const ctx = makeCtx(dir, { services: { backgroundShell: svc } });
    const ok = await run(BashTool, { command: 'sleep 1', run_in_background: true, description: 'Wait' }, ctx);
    expect(ok.isError).toBeFalsy();
    expect(text(ok)).toContain('bash_1');
    expect(text(ok)).toContain('/tmp/out.txt');
    expect(calls).toEqual([
      { command: 'sleep 1', cwd: dir, timeoutMs: undefined, description: 'Wait', toolUseId: 'toolu_test' },
    ]);
    expect((ok.data as BashOutput).backgroundTaskId).toBe('bash_1');
  });

  it('rejects a missing command through validation', async () => {
    const r = await run(BashTool, {}, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('The required parameter `command` is missing');
  });
});
