// Child processes that die with their run: every child leads its own process group, and a
// timeout, an abort or our own exit kills the whole group (a shell's grandchildren included).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileActivity } from './fileActivity.js';
import { findTagged, findTaggedNow, OWNER_ENV } from './taggedProcesses.js';

const live = new Set<ChildProcess>();

let commandCount = 0;

/** Kill a child's whole process group; falls back to the child alone if the group is gone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Kill every process group we started, and every process our commands left running (found by
 * their tag: killing a group cannot reach a process that started a new session, the tag can).
 * Called on SIGTERM/SIGINT and at exit.
 */
export function killAllGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const child of live) killGroup(child, signal);
  // Only runShellCommand tags a process: with no command started, no process of ours carries the
  // tag, and the scan (every process's environment read, about 3-10 ms at each exit) is skipped.
  if (commandCount === 0) return;
  for (const pid of findTaggedNow(`${process.pid}.`)) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Keeps the last `max` characters seen, and counts what it dropped. */
export class CappedText {
  private parts: string[] = [];
  private length = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    this.parts.push(chunk);
    this.length += chunk.length;
    while (this.length > this.max && this.parts.length > 0) {
      const excess = this.length - this.max;
      const first = this.parts[0];
      if (first.length <= excess) {
        this.parts.shift();
        this.length -= first.length;
        this.dropped += first.length;
      } else {
        this.parts[0] = first.slice(excess);
        this.length -= excess;
        this.dropped += excess;
      }
    }
  }
  toString(): string {
    return this.parts.join('');
  }
}

export interface GroupRunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Written to the child's stdin, which is then closed. Without it stdin is /dev/null. */
  stdin?: string;
  /** Each of stdout and stderr keeps at most this many characters (the head is kept). */
  maxOutputChars?: number;
  /** Called with every chunk as it arrives (for live output files). */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** After the command ends, look for processes it left running (a /proc scan: Bash turns only). */
  findLeftovers?: boolean;
  /** Run this program and its arguments directly instead of `bash -c command` (the same command, one shell fewer). */
  argv?: string[];
}

export interface GroupRunResult {
  stdout: string;
  stderr: string;
  /** Interleaved stdout+stderr in arrival order (capped like the others). */
  combined: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Characters dropped from stdout+stderr because of the cap. */
  truncatedChars: number;
  /** With `findLeftovers`: processes the command started that still run (killed at our exit). */
  leftRunning?: number[];
}

/** Keeps the first `max` characters and counts the rest. */
class HeadText {
  private parts: string[] = [];
  private length = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    const room = this.max - this.length;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length <= room ? chunk : chunk.slice(0, room);
    this.parts.push(kept);
    this.length += kept.length;
    this.dropped += chunk.length - kept.length;
  }
  toString(): string {
    return this.parts.join('');
  }
}

/**
 * The model API's credentials stay in this process: a command the model (or a hook) runs cannot
 * print them into a tool result, a transcript or a log. AGENT_SHARE_API_KEY=1 passes them on.
 */
const CREDENTIAL_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'];

export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.AGENT_SHARE_API_KEY === '1') return nestedShellEnv(env);
  const out = nestedShellEnv(env);
  for (const k of CREDENTIAL_ENV) delete out[k];
  return out;
}

/**
 * A copy of `env` in which a shell knows it is not the top-level one. bash runs ~/.bashrc when its
 * stdin is a socket and its SHLVL (counting itself) is below 2, taking itself for a remote login;
 * Node's piped stdin is a socketpair. So when the agent was started without SHLVL (by a service, an
 * editor, a test runner), every hook, and every shell-script MCP server, would run the user's
 * interactive start-up: slow, with side effects (pyenv rehashes under a lock) and output that can
 * corrupt a stdio protocol.
 */
export function nestedShellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const level = Number(env.SHLVL);
  return Number.isInteger(level) && level >= 1 ? { ...env } : { ...env, SHLVL: '1' };
}

/** Run `command` through bash in its own process group, with caps, timeout and abort. */
export function runShellCommand(command: string, opts: GroupRunOptions): Promise<GroupRunResult> {
  const max = opts.maxOutputChars ?? 1_000_000;
  // Inherited by all the command starts, so what it leaves running can be found (taggedProcesses.ts).
  const tag = `${process.pid}.${++commandCount}`;
  return new Promise((resolve) => {
    const [file, ...args] = opts.argv ?? ['/bin/bash', '-c', command];
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: { ...childEnv(opts.env ?? process.env), [OWNER_ENV]: tag },
      detached: true,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    live.add(child);
    fileActivity.started();
    const stdout = new HeadText(max);
    const stderr = new HeadText(max);
    const combined = new HeadText(max);
    let timedOut = false;
    let aborted = false;
    let settled = false;

    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (c: string) => {
      stdout.push(c);
      combined.push(c);
      opts.onOutput?.(c, 'stdout');
    });
    child.stderr!.on('data', (c: string) => {
      stderr.push(c);
      combined.push(c);
      opts.onOutput?.(c, 'stderr');
    });
    if (opts.stdin !== undefined && child.stdin) {
      child.stdin.on('error', () => {
        /* the child may exit without reading its stdin */
      });
      child.stdin.end(opts.stdin);
    }

    const timer =
      opts.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, opts.timeoutMs)
        : undefined;
    const onAbort = () => {
      aborted = true;
      killGroup(child);
    };
    if (opts.signal) {
      if (opts.signal.aborted) onAbort();
      else opts.signal.addEventListener('abort', onAbort, { once: true });
    }

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      fileActivity.ended();
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      live.delete(child);
      // A background grandchild may still hold the pipes open; the group goes with its leader.
      if (timedOut || aborted) killGroup(child);
      const settle = (leftRunning?: number[]) =>
        resolve({
          stdout: stdout.toString(),
          stderr: stderr.toString(),
          combined: combined.toString(),
          exitCode,
          signal,
          timedOut,
          aborted,
          truncatedChars: stdout.dropped + stderr.dropped,
          ...(leftRunning?.length ? { leftRunning } : {}),
        });
      if (opts.findLeftovers) findTagged(tag, child.pid ?? 0).then(settle, () => settle());
      else settle();
    };
    child.on('error', (err) => {
      stderr.push(String(err.message));
      combined.push(String(err.message));
      finish(127, null);
    });
    child.on('close', (code, sig) => finish(code, sig));
    // A grandchild left running in the background keeps the pipes open and 'close' never comes:
    // once the shell itself has exited, give the pipes a moment to drain, then settle anyway. The
    // last step waits for setImmediate: after an event-loop stall longer than the 200 ms, the timer
    // can run before the poll phase has read output already in the pipe; one more poll reads it.
    child.on('exit', (code, sig) => {
      setTimeout(() => {
        if (settled) return;
        setImmediate(() => {
          if (settled) return;
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish(code, sig);
        });
      }, 200).unref();
    });
  });
}
