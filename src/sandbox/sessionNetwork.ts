// One network namespace for all of a session's sandboxed commands, with the two bridges into the
// filtering proxy (socat on :3128 and :1080, to the runtime's Unix socket) started once. The
// sandbox runtime gives every command a namespace of its own and starts both bridges inside it,
// then the command has to wait for them to listen: about half of what a sandboxed command costs.
// Here a small holder sandbox (bubblewrap: its own user, network and PID namespaces, nothing
// writable) keeps the namespace and the bridges alive; each command's bubblewrap is started inside
// it by `nsenter`, and gets the rest of its sandbox (mounts, PID namespace, seccomp) as before.
// Only the network is shared: what one command listens on, the next can reach (as without a
// sandbox); nothing outside the session can.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { childEnv } from '../util/processGroup.js';
import { quote } from './linuxWrap.js';

export interface SessionNetworkOptions {
  bwrap: string;
  socat: string;
  /** util-linux's nsenter (absolute path). */
  nsenter: string;
  /** The shell the holder runs its bridges under (bash, for `wait -n`). */
  shell: string;
  /** The runtime's host-side bridge sockets (its proxy behind them). */
  httpSocket: string;
  socksSocket: string;
  /** How long the bridges may take to listen. */
  readyTimeoutMs?: number;
}

/** Both bridges listen in the holder's namespace: ports 3128 (0x0C38) and 1080 (0x0438), state LISTEN. */
function bridgesListen(pid: number): boolean {
  let tcp: string;
  try {
    tcp = readFileSync(`/proc/${pid}/net/tcp`, 'utf8');
  } catch {
    return false;
  }
  return / 0{8}:0C38 0{8}:0{4} 0A /.test(tcp) && / 0{8}:0438 0{8}:0{4} 0A /.test(tcp);
}

/** The first executable `name` on PATH, or undefined. */
export function onPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

export class SessionNetwork {
  private alive = true;
  private closed = false;
  private endListeners: Array<(why: string) => void> = [];

  private constructor(
    private readonly holder: ChildProcess,
    private readonly pid: number,
    private readonly nsenter: string,
  ) {
    holder.on('exit', (code, signal) => {
      this.alive = false;
      if (!this.closed) for (const l of this.endListeners) l(signal ? `signal ${signal}` : `exit code ${code}`);
    });
  }

  /** Called once if the holder ends by itself (a bridge died, it was killed). */
  onEnd(listener: (why: string) => void): void {
    this.endListeners.push(listener);
  }

  /** Starts the holder and waits until its bridges listen; throws with what went wrong. */
  static async start(o: SessionNetworkOptions): Promise<SessionNetwork> {
    const binds = [
      '--bind',
      o.httpSocket,
      o.httpSocket,
      ...(o.socksSocket !== o.httpSocket ? ['--bind', o.socksSocket, o.socksSocket] : []),
    ];
    const bridge = (port: number, socket: string) =>
      `${quote([o.socat, `TCP-LISTEN:${port},fork,reuseaddr`, `UNIX-CONNECT:${socket}`])} >/dev/null 2>&1 &`;
    // uid 0 inside (mapped to ours): then the user namespace the commands enter is the one that owns
    // the network namespace (bubblewrap adds a second one when the sandbox's uid differs), and
    // `nsenter` can join both. It holds no capability over anything but its own namespaces.
    const args = [
      '--new-session',
      '--die-with-parent',
      '--unshare-user',
      '--uid',
      '0',
      '--gid',
      '0',
      '--unshare-net',
      '--unshare-pid',
      // No fresh /proc (it needs nothing there, and some containers refuse one): the host's, read-only.
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      ...binds,
      '--cap-drop',
      'ALL',
      '--info-fd',
      '3',
      '--',
      o.shell,
      '-c',
      // If either bridge ends, the holder ends, and commands go back to the runtime's own bridges.
      `${bridge(3128, o.httpSocket)} ${bridge(1080, o.socksSocket)} wait -n; exit 1`,
    ];
    const holder = spawn(o.bwrap, args, {
      env: childEnv(),
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    holder.stderr!.on('data', (c: Buffer) => {
      if (stderr.length < 2000) stderr += c.toString('utf8');
    });
    const ended = new Promise<string>((resolve) => {
      holder.on('error', (err) => resolve(err.message));
      holder.on('exit', (code, signal) =>
        resolve(`it exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().slice(0, 500)}` : ''}`),
      );
    });
    const info = new Promise<number>((resolve) => {
      let text = '';
      holder.stdio[3]!.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        try {
          const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
          if (typeof pid === 'number') resolve(pid);
        } catch {
          // Not whole yet.
        }
      });
    });
    const fail = (why: string): never => {
      holder.kill('SIGKILL');
      throw new Error(why);
    };
    const started = await Promise.race([info, ended.then((why) => ({ why }))]);
    if (typeof started !== 'number') fail(`the holder sandbox did not start: ${started.why}`);
    const pid = started as number;
    const deadline = Date.now() + (o.readyTimeoutMs ?? 3000);
    let exited: string | undefined;
    void ended.then((why) => (exited = why));
    while (!bridgesListen(pid)) {
      if (exited !== undefined) fail(`the holder sandbox ended before its bridges listened: ${exited}`);
      if (Date.now() > deadline) fail('its proxy bridges did not listen within the time allowed');
      await new Promise((r) => setTimeout(r, 5));
    }
    // Not ours to wait for: it dies with this process (--die-with-parent) or by close().
    holder.unref();
    (holder.stdio[3] as NodeJS.ReadableStream & { unref?: () => void }).unref?.();
    (holder.stderr as NodeJS.ReadableStream & { unref?: () => void }).unref?.();
    return new SessionNetwork(holder, pid, o.nsenter);
  }

  /** The words that put a command into the namespace, or undefined once the holder is gone. */
  enterWords(): string[] | undefined {
    if (!this.alive) return undefined;
    // Its exit may not have reached us yet: a gone holder has no namespaces to enter (~20 µs).
    try {
      readlinkSync(`/proc/${this.pid}/ns/net`);
    } catch {
      return undefined;
    }
    // uid/gid 0 there (our own ids outside); supplementary groups kept as they are: setgroups is
    // not allowed in a namespace bubblewrap made, and dropping them would change file access.
    return [
      this.nsenter,
      `--user=/proc/${this.pid}/ns/user`,
      `--net=/proc/${this.pid}/ns/net`,
      '--preserve-credentials',
      '-S',
      '0',
      '-G',
      '0',
      '--',
    ];
  }

  get active(): boolean {
    return this.alive;
  }

  close(): void {
    this.closed = true;
    if (this.alive) this.holder.kill('SIGKILL');
    this.alive = false;
  }
}
