// Finding the processes our commands started, wherever they went (a new session, a daemon), by a
// tag in their environment: /proc/<pid>/environ. Linux only; a process that clears its environment
// (env -i) escapes it.
import { readdirSync, readFileSync } from 'node:fs';

/** Every command we start carries AGENT_RUNTIME_OWNER=<our pid>.<n>, and so does all it starts. */
export const OWNER_ENV = 'AGENT_RUNTIME_OWNER';

/** The kernel's PID_MAX_LIMIT: every pid is below it, whatever pid_max is set to. */
const PID_LIMIT = 4_194_304;
const PF_EXITING = 0x4;
const PF_KTHREAD = 0x200000;

/**
 * A process caught inside execve reads as an empty environment: the kernel has swapped in its new
 * memory but not yet laid out the environment there (env_end, field 51 of /proc/<pid>/stat, is
 * still 0). A moment later it carries the tag again, so it is asked again rather than passed over.
 */
type EnvironRead = Buffer | 'mid-exec' | undefined;

/** The fields of /proc/<pid>/stat from the 3rd (state) on, or undefined once it is gone. */
function statFields(proc: string, pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const isDead = (state: string | undefined) => state === 'Z' || state === 'X';

/** The process still runs: not gone, and not a zombie waiting to be reaped. */
export function isRunning(pid: number, proc = '/proc'): boolean {
  const fields = statFields(proc, pid);
  return fields !== undefined && !isDead(fields[0]);
}

function readEnviron(proc: string, pid: number): EnvironRead {
  const read = () => {
    try {
      return readFileSync(`${proc}/${pid}/environ`);
    } catch {
      return undefined; // gone, or not ours to read
    }
  };
  const env = read();
  if (env === undefined || env.length > 0) return env;
  // Empty: a kernel thread, a zombie, an exiting process, env -i, or an execve under way.
  const fields = statFields(proc, pid);
  if (!fields) return undefined;
  const [state, flags, envEnd] = [fields[0], Number(fields[6]), fields[48]];
  if (isDead(state) || flags & (PF_EXITING | PF_KTHREAD)) return undefined;
  if (envEnd === '0') return 'mid-exec';
  return read(); // the execve may have finished between the two reads
}

/** The pid created last (the last field of /proc/loadavg). */
function lastPid(proc: string): number | undefined {
  try {
    const n = Number(readFileSync(`${proc}/loadavg`, 'latin1').trim().split(/\s+/).pop());
    return Number.isInteger(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Live pids from `sincePid` on, oldest first. Pid numbers wrap around at pid_max (32768 on many
 * machines, so a busy one wraps within minutes): the pids made after `sincePid` are then those above
 * it and those up to the pid made last.
 */
function pidsSince(proc: string, sincePid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return [];
  }
  const last = sincePid > 0 ? lastPid(proc) : undefined;
  const wrapped = last !== undefined && last < sincePid;
  const pids: number[] = [];
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (pid >= sincePid || (wrapped && pid <= last)) pids.push(pid);
  }
  const age = (pid: number) => (pid - sincePid + PID_LIMIT) % PID_LIMIT;
  return pids.sort((a, b) => age(a) - age(b));
}

/** One look at `pids`: which carry the tag, and which were caught mid-exec (look again). */
function look(proc: string, pids: number[], needle: Buffer): { tagged: number[]; again: number[] } {
  const tagged: number[] = [];
  const again: number[] = [];
  for (const pid of pids) {
    const env = readEnviron(proc, pid);
    if (env === 'mid-exec') again.push(pid);
    else if (env) {
      const at = env.indexOf(needle);
      if (at === 0 || (at > 0 && env[at - 1] === 0)) tagged.push(pid);
    }
  }
  return { tagged, again };
}

function needleFor(tag: string): Buffer {
  // A tag ending in "." matches by prefix (all of one runtime's commands).
  return Buffer.from(`${OWNER_ENV}=${tag}${tag.endsWith('.') ? '' : '\0'}`);
}

/** How often a process caught mid-exec is looked at again. */
const AGAIN_EVERY_MS = 5;

export interface ScanOptions {
  /** How long processes caught mid-exec are looked at again. */
  againForMs: number;
  /** Where procfs is (a test swaps in a directory of its own). */
  proc?: string;
}

/**
 * The scan: tagged pids, oldest first. It yields when it wants a pause of AGAIN_EVERY_MS before it
 * looks again at processes caught mid-exec (for at most `againForMs`); the caller pauses its way.
 */
function* scan(tag: string, sincePid: number, { againForMs, proc = '/proc' }: ScanOptions): Generator<void, number[]> {
  const needle = needleFor(tag);
  const pids = pidsSince(proc, sincePid);
  let { tagged, again } = look(proc, pids, needle);
  const deadline = Date.now() + againForMs;
  while (again.length > 0 && Date.now() < deadline) {
    yield;
    const next = look(proc, again, needle);
    tagged = tagged.concat(next.tagged);
    again = next.again;
  }
  const order = new Map(pids.map((pid, i) => [pid, i]));
  return tagged.sort((a, b) => order.get(a)! - order.get(b)!);
}

/**
 * Pids of live processes tagged `tag`, oldest first; `sincePid` skips those made before it (a
 * command's processes are made after its shell), which keeps the scan after each command cheap.
 */
export async function findTagged(tag: string, sincePid = 0, opts: Partial<ScanOptions> = {}): Promise<number[]> {
  const steps = scan(tag, sincePid, { againForMs: 1000, ...opts });
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await new Promise((r) => setTimeout(r, AGAIN_EVERY_MS));
  }
}

/** The same without yielding to the event loop (exit handlers cannot wait on it): blocking pauses. */
export function findTaggedNow(tag: string, sincePid = 0, opts: Partial<ScanOptions> = {}): number[] {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const steps = scan(tag, sincePid, { againForMs: 200, ...opts });
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    Atomics.wait(pause, 0, 0, AGAIN_EVERY_MS);
  }
}
