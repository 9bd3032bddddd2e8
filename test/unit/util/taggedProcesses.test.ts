// The scan for processes a command left running, against a procfs of the test's own making: the
// two races a live /proc shows only now and then (pid wrap-around, a process inside execve).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findTagged, findTaggedNow, OWNER_ENV } from '../../../src/util/taggedProcesses.js';

let proc: string;
beforeEach(() => {
  proc = mkdtempSync(join(tmpdir(), 'fake-proc-'));
});
afterEach(() => rmSync(proc, { recursive: true, force: true }));

const tagged = (tag: string) => `PATH=/bin\0${OWNER_ENV}=${tag}\0HOME=/root\0`;

/** A /proc/<pid> with `environ` and a `stat` line whose state, flags and env_end are given. */
function fakeProcess(
  pid: number,
  environ: string,
  { state = 'S', flags = 0x400000, envEnd = environ ? 140_000 : 0 } = {},
) {
  mkdirSync(join(proc, String(pid)), { recursive: true });
  writeFileSync(join(proc, String(pid), 'environ'), environ);
  const fields = Array.from({ length: 50 }, () => '0'); // fields 3 to 52
  fields[0] = state;
  fields[6] = String(flags);
  fields[47] = String(envEnd ? envEnd - environ.length : 0);
  fields[48] = String(envEnd);
  // A command name with ") " in it: the fields are read after the last ')'.
  writeFileSync(join(proc, String(pid), 'stat'), `${pid} (odd) name) ${fields.join(' ')}\n`);
}
const lastPid = (pid: number) => writeFileSync(join(proc, 'loadavg'), `0.50 0.40 0.30 2/90 ${pid}\n`);

describe('findTagged', () => {
  it('finds the tagged processes made after the shell, and not the older ones or other tags', async () => {
    lastPid(1300);
    fakeProcess(1000, tagged('7.1')); // older than the shell
    fakeProcess(1200, tagged('7.1'));
    fakeProcess(1201, tagged('7.10')); // another command's tag
    fakeProcess(1202, `X${OWNER_ENV}=7.1\0`); // not a variable of its own
    fakeProcess(1250, tagged('7.1'));
    expect(await findTagged('7.1', 1100, { proc })).toEqual([1200, 1250]);
    expect(await findTagged('7.', 0, { proc })).toEqual([1000, 1200, 1201, 1250]);
  });

  it('follows pid numbers that wrapped around past pid_max, oldest first', async () => {
    lastPid(305); // the shell was 32760; pid numbers started again at 300 since
    fakeProcess(32750, tagged('7.1')); // before the shell
    fakeProcess(32765, tagged('7.1'));
    fakeProcess(301, tagged('7.1'));
    fakeProcess(400, tagged('7.1')); // above the last pid made: from before the wrap
    expect(await findTagged('7.1', 32760, { proc })).toEqual([32765, 301]);
    expect(findTaggedNow('7.1', 32760, { proc })).toEqual([32765, 301]);
  });

  it('looks again at a process caught inside execve (empty environment, env_end 0) until its environment is back', async () => {
    lastPid(1300);
    fakeProcess(1200, tagged('7.1'));
    fakeProcess(1201, '', { state: 'R' }); // between the new memory and its environment
    const found = findTagged('7.1', 1100, { proc, againForMs: 30_000 });
    await new Promise((r) => setTimeout(r, 30));
    fakeProcess(1201, tagged('7.1'));
    expect(await found).toEqual([1200, 1201]);
  });

  it('does not wait on processes whose environment is empty for good, and gives up on a stuck execve', async () => {
    lastPid(1300);
    fakeProcess(1200, tagged('7.1'));
    fakeProcess(1201, '', { state: 'Z' }); // a zombie
    fakeProcess(1202, '', { flags: 0x200000 }); // a kernel thread
    fakeProcess(1203, '', { flags: 0x400044 }); // exiting
    fakeProcess(1204, '', { envEnd: 140_000 }); // started with env -i
    // A deadline far past the test's timeout: these must settle at once.
    expect(await findTagged('7.1', 1100, { proc, againForMs: 600_000 })).toEqual([1200]);
    expect(findTaggedNow('7.1', 1100, { proc, againForMs: 600_000 })).toEqual([1200]);

    fakeProcess(1205, '', { state: 'R' }); // inside execve, and stays there
    expect(await findTagged('7.1', 1100, { proc, againForMs: 50 })).toEqual([1200]);
    expect(findTaggedNow('7.1', 1100, { proc, againForMs: 50 })).toEqual([1200]);
  });
});
